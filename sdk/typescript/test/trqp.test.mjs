// The TRQP helper's hand-written shape check against the shared vectors (trqp/testdata/answers.json,
// whose verdicts the Go SDK's JSON Schema validation over TRQP's own schemas holds), and its
// refusals that need no service. test/live.test.mjs asks a real service.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { checkTrqpDocument, isDateTime, trqp } from "../dist/index.js";

const vectors = JSON.parse(readFileSync(new URL("../../../trqp/testdata/answers.json", import.meta.url), "utf8"));

test("checkTrqpDocument agrees with TRQP's schemas on every shared vector", () => {
  let valid = 0;
  for (const c of vectors.cases) {
    const got = checkTrqpDocument(c.kind, c.side, c.document);
    assert.equal(got.ok, c.valid, `${c.name}: ${JSON.stringify(got)}`);
    if (!got.ok) assert.match(got.reason, new RegExp(`^the ${c.kind} ${c.side}: `));
    if (c.valid) valid++;
  }
  assert.ok(valid > 0 && valid < vectors.cases.length && vectors.cases.length >= 20, "the vectors hold valid and invalid documents");
});

test("isDateTime is RFC 3339's date-time", () => {
  for (const ok of ["2026-04-01T00:00:00Z", "2026-04-01t00:00:00.123456789z", "2000-02-29T23:59:60Z", "2026-06-30T19:59:60-04:00", "2026-01-01T00:00:00+23:59"]) {
    assert.ok(isDateTime(ok), ok);
  }
  for (const bad of ["2026-04-01", "2026-04-01T00:00:00", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-04-01T00:00:60Z", "2026-04-01T00:00:00+24:00",
    "2026-04-01T00:00:00.Z", "٢٠٢٦-04-01T00:00:00Z", "2026-04-01T00:00:00Z ", "2026-4-01T00:00:00Z"]) {
    assert.ok(!isDateTime(bad), bad);
  }
});

test("trqp refuses a query that is not TRQP's, and says why an error answer is one", async () => {
  const never = () => assert.fail("no request for an invalid query");
  const opts = { baseUrl: "http://svc.test", logKey: "k", checkState: never, fetch: never };
  const bad = await trqp("authorization", { entity_id: "a", authority_id: "b", action: "c", resource: "d", context: { time: "now" } }, opts);
  assert.deepEqual(bad, { ok: false, reason: "the query: the authorization request: context.time is not an RFC 3339 date-time" });
  const problem = { type: "about:blank", title: "Not Found", status: 404, detail: "Unknown authority: no namespace is b", code: "not_found" };
  const answered = await trqp("recognition", { entity_id: "a", authority_id: "b", action: "c", resource: "d" }, {
    ...opts,
    fetch: async (url, init) => {
      assert.equal(url, "http://svc.test/recognition");
      assert.equal(init.method, "POST");
      return new Response(JSON.stringify(problem), { status: 404, headers: { "content-type": "application/problem+json" } });
    },
  });
  assert.deepEqual(answered, { ok: false, reason: "the recognition query answered 404: Not Found: Unknown authority: no namespace is b", status: 404, problem });
});
