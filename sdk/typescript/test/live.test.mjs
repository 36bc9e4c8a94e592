// The SDK against a live service. The Go test TestTypeScriptSDK (server/sdk_ts_test.go) starts
// one on a temporary SQLite database, publishes a namespace, a registry and records, and runs
// this file with SVC_SDK_BASE_URL, SVC_SDK_API_KEY, SVC_SDK_NAMESPACE, SVC_SDK_REGISTRY and
// SVC_SDK_RECORD set. Without SVC_SDK_BASE_URL it is skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSvcClient, verifyLookup, proofType } from "../dist/index.js";

const env = process.env;
const live = env.SVC_SDK_BASE_URL
  ? {}
  : { skip: "SVC_SDK_BASE_URL is not set: the Go test TestTypeScriptSDK runs this against a live service" };

const need = (name) => {
  const v = env[name];
  assert.ok(v, `${name} is not set`);
  return v;
};

async function lookUpAll(client) {
  const namespace = need("SVC_SDK_NAMESPACE");
  const registry_name = need("SVC_SDK_REGISTRY");
  const record_name = need("SVC_SDK_RECORD");
  const ns = await client.GET("/svc/lookup/{namespace}", { params: { path: { namespace } } });
  const reg = await client.GET("/svc/lookup/{namespace}/{registry_name}", { params: { path: { namespace, registry_name } } });
  const rec = await client.GET("/svc/lookup/{namespace}/{registry_name}/{record_name}", {
    params: { path: { namespace, registry_name, record_name } },
  });
  for (const [what, r] of [["namespace", ns], ["registry", reg], ["record", rec]]) {
    assert.equal(r.response.status, 200, `${what} lookup: ${r.response.status} ${JSON.stringify(r.error)}`);
    assert.ok(r.data, `${what} lookup has no body`);
  }
  assert.equal(ns.data.data.namespace_id, namespace);
  assert.equal(reg.data.data.registry_name, registry_name);
  assert.equal(rec.data.data.record_name, record_name);
  return { namespace: ns.data, registry: reg.data, record: rec.data };
}

test("lookups of every kind through the client verify, with and without an API key", live, async () => {
  for (const apiKey of [need("SVC_SDK_API_KEY"), undefined]) {
    const client = createSvcClient({ baseUrl: need("SVC_SDK_BASE_URL"), apiKey });
    const lookups = await lookUpAll(client);
    assert.match(lookups.namespace.data.genesis, /^0x[0-9a-f]+$/, "a namespace lookup has genesis in its hex form");
    for (const [kind, body] of Object.entries(lookups)) {
      const got = verifyLookup(kind, body);
      assert.deepEqual(got, {
        ok: true,
        kind,
        id: body.data[`${kind}_id`],
        version: body.data.version,
        digest: body.data.proof.digest,
      });
    }
  }
});

test("tampered lookups are rejected, and the service agrees", live, async () => {
  const client = createSvcClient({ baseUrl: need("SVC_SDK_BASE_URL"), apiKey: need("SVC_SDK_API_KEY") });
  const { namespace, registry, record } = await lookUpAll(client);
  const year = Number(record.data.proof.type.slice(-4));
  const tamper = (body, change) => {
    const copy = structuredClone(body);
    change(copy.data);
    return copy;
  };
  const zeros = "0x" + "0".repeat(64);
  const cases = [
    ["record", tamper(record, (d) => { d.details = { ...d.details, email: "mallory@example.com" }; }), /^recomputed digest 0x[0-9a-f]{64} differs from proof\.digest /],
    ["record", tamper(record, (d) => { d.digest = zeros; d.proof.digest = zeros; }), /^recomputed digest .* differs from proof\.digest 0x0{64}$/],
    ["record", tamper(record, (d) => { d.digest = zeros; }), /^data\.digest differs from proof\.digest$/],
    ["record", tamper(record, (d) => { d.proof.type = proofType("record", year + 1); }), new RegExp(`^proof\\.type SvcRecordProof${year + 1} has a year outside 2025\\.\\.${year}$`)],
    ["record", tamper(record, (d) => { d.proof.type = "SvcRecordProof2024"; }), /has a year outside 2025\.\./],
    ["record", registry, /is a registry proof, not a record proof/],
    ["registry", tamper(registry, (d) => { d.schema = {}; }), /^recomputed digest/],
    ["namespace", tamper(namespace, (d) => { d.description += " (forged)"; }), /^recomputed digest/],
    ["namespace", tamper(namespace, (d) => { d.genesis = "0xzz"; }), /neither a timestamp nor its hex form/],
  ];
  for (const [kind, body, reason] of cases) {
    const got = verifyLookup(kind, body, { now: new Date(Date.UTC(year, 6, 1)) });
    assert.equal(got.ok, false, `${kind}: ${JSON.stringify(body.data).slice(0, 120)} verified`);
    assert.match(got.reason, reason);
  }
  // The service's own verifier gives the same verdicts, through the typed client.
  const ok = await client.POST("/svc/verify-record-lookup", { body: { record_lookup_response: record } });
  assert.equal(ok.response.status, 200, JSON.stringify(ok.error));
  const bad = await client.POST("/svc/verify-record-lookup", { body: { record_lookup_response: cases[0][1] } });
  assert.equal(bad.response.status, 400);
});
