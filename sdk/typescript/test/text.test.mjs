// The plain-text endpoints (the checkpoint, the cosigned checkpoint, the log key) through the
// typed helpers, against a fetch that answers as the service does (text/plain bodies).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSvcClient, getCheckpoint, getCosignedCheckpoint, getLogKey, SvcTextError } from "../dist/index.js";

const checkpoint = "log.example/svc/log\n3\nkq9dOnQwWvLO6HV7uTq1JBSQi1fm5rC+tnDZ5RDrvOk=\n\n\u2014 log.example/svc/log Az3grl2AAAA=\n";

function fakeService(routes) {
  return async (input) => {
    const url = new URL(typeof input === "string" ? input : input.url);
    const r = routes[url.pathname];
    if (r === undefined) {
      return new Response(JSON.stringify({ message: "Not found", code: "not_found" }), { status: 404, headers: { "Content-Type": "application/json" } });
    }
    return new Response(r, { status: 200, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  };
}

const client = createSvcClient({
  baseUrl: "http://svc.test",
  fetch: fakeService({ "/svc/log/checkpoint": checkpoint, "/svc/log/key": "log.example/svc/log+01020304+AQID\n" }),
});

test("getCheckpoint and getLogKey return the text", async () => {
  assert.equal(await getCheckpoint(client), checkpoint);
  assert.equal(await getLogKey(client), "log.example/svc/log+01020304+AQID");
});

test("the raw client needs parseAs: \"text\" for them (JSON parsing of a checkpoint throws)", async () => {
  await assert.rejects(client.GET("/svc/log/checkpoint"), SyntaxError);
  const { data } = await client.GET("/svc/log/checkpoint", { parseAs: "text" });
  assert.equal(data, checkpoint);
});

test("an answer outside 2xx is an SvcTextError with its status", async () => {
  await assert.rejects(getCosignedCheckpoint(client), (e) => e instanceof SvcTextError && e.status === 404 && /not_found/.test(e.body));
});
