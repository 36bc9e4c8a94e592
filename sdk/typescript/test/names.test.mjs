// Any name at its exact address (issue 42): the names of a hostile DeDi file each travel as one
// percent-encoded path segment, in lookups and versions, and the server reads back exactly the
// name; a search by name is a percent-encoded query value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSvcClient } from "../dist/index.js";

const names = {
  "<img src=x onerror=alert(1)>": "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
  "../../etc/passwd": "..%2F..%2Fetc%2Fpasswd",
  "a/b?c#d": "a%2Fb%3Fc%23d",
  " spaced ": "%20spaced%20",
  "ad\u202emin": "ad%E2%80%AEmin",
  "\u0430dmin": "%D0%B0dmin",
  "100%": "100%25",
};
const registry = "<svg onload=alert(1)>";
const registrySegment = "%3Csvg%20onload%3Dalert(1)%3E";

test("a name is one percent-encoded path segment, decoded back to itself", async () => {
  const seen = [];
  const fetch = async (request) => {
    seen.push(new URL(request.url));
    return new Response(JSON.stringify({ message: "ok", data: {} }), { status: 200, headers: { "Content-Type": "application/json" } });
  };
  const client = createSvcClient({ baseUrl: "http://svc.test", fetch });
  for (const [name, encoded] of Object.entries(names)) {
    seen.length = 0;
    const params = { path: { namespace: "pub.example", registry_name: registry, record_name: name } };
    await client.GET("/svc/lookup/{namespace}/{registry_name}/{record_name}", { params });
    await client.GET("/svc/versions/{namespace}/{registry_name}/{record_name}", { params });
    await client.GET("/svc/search/{namespace}", { params: { path: { namespace: "pub.example" }, query: { record_name: name } } });
    assert.equal(seen[0].pathname, `/svc/lookup/pub.example/${registrySegment}/${encoded}`);
    assert.equal(seen[1].pathname, `/svc/versions/pub.example/${registrySegment}/${encoded}`);
    assert.equal(decodeURIComponent(seen[0].pathname.split("/").pop()), name);
    assert.equal(seen[2].searchParams.get("record_name"), name);
  }
});
