// The client reads its own writes: it keeps the newest Svc-Consistency-Token its writes were
// answered with and sends it on its reads; refused writes, reads and older tokens change
// nothing, and readYourWrites: false sends none.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSvcClient, tokenPosition } from "../dist/index.js";

function fakeService() {
  const seen = [];
  let next = 0;
  const answers = [];
  const fetch = async (request) => {
    seen.push({ method: request.method, token: request.headers.get("Svc-Consistency-Token") });
    const a = answers[next++] ?? { status: 200, token: null };
    const headers = { "Content-Type": "application/json" };
    if (a.token !== null) headers["Svc-Consistency-Token"] = a.token;
    return new Response(JSON.stringify({ message: "ok", data: {} }), { status: a.status, headers });
  };
  return { seen, answers, fetch };
}

test("tokens order as WAL positions", () => {
  assert.equal(tokenPosition("0/0"), 0n);
  assert.ok(tokenPosition("1/0") > tokenPosition("0/FFFFFFFF"));
  assert.equal(tokenPosition("16/b374d848"), tokenPosition("16/B374D848"));
  assert.equal(tokenPosition("nope"), null);
  assert.equal(tokenPosition("1/2/3"), null);
});

test("reads carry the newest token of the client's successful writes", async () => {
  const svc = fakeService();
  const client = createSvcClient({ baseUrl: "http://svc.test", fetch: svc.fetch });
  svc.answers.push(
    { status: 200, token: null },            // GET before any write
    { status: 201, token: "0/2000" },        // a write
    { status: 200, token: null },            // GET
    { status: 201, token: "0/1000" },        // a write answered an older token (another instance, an older reply)
    { status: 400, token: "0/9000" },        // a refused write
    { status: 200, token: null },            // GET
    { status: 201, token: "1/0" },           // a newer write
    { status: 200, token: null },            // GET
  );
  await client.GET("/svc/lookup/{namespace}", { params: { path: { namespace: "n" } } });
  await client.POST("/svc/create-namespace", { body: { name: "Acme" } });
  await client.GET("/svc/lookup/{namespace}", { params: { path: { namespace: "n" } } });
  await client.POST("/svc/create-namespace", { body: { name: "Acme" } });
  await client.POST("/svc/create-namespace", { body: { name: "" } });
  await client.GET("/svc/lookup/{namespace}", { params: { path: { namespace: "n" } } });
  await client.POST("/svc/create-namespace", { body: { name: "Acme" } });
  await client.GET("/svc/lookup/{namespace}", { params: { path: { namespace: "n" } } });
  const reads = svc.seen.filter((r) => r.method === "GET").map((r) => r.token);
  assert.deepEqual(reads, [null, "0/2000", "0/2000", "1/0"]);
  assert.ok(svc.seen.filter((r) => r.method === "POST").every((r) => r.token === null), "writes carry no token");
});

test("a token the caller sets wins, and readYourWrites: false sends none", async () => {
  const svc = fakeService();
  const client = createSvcClient({ baseUrl: "http://svc.test", fetch: svc.fetch });
  svc.answers.push({ status: 201, token: "0/2000" }, { status: 200, token: null });
  await client.POST("/svc/create-namespace", { body: { name: "Acme" } });
  await client.GET("/svc/lookup/{namespace}", { params: { path: { namespace: "n" }, header: { "Svc-Consistency-Token": "5/0" } } });
  assert.equal(svc.seen[1].token, "5/0");

  const off = fakeService();
  const plain = createSvcClient({ baseUrl: "http://svc.test", fetch: off.fetch, readYourWrites: false });
  off.answers.push({ status: 201, token: "0/2000" }, { status: 200, token: null });
  await plain.POST("/svc/create-namespace", { body: { name: "Acme" } });
  await plain.GET("/svc/lookup/{namespace}", { params: { path: { namespace: "n" } } });
  assert.equal(off.seen[1].token, null);
});
