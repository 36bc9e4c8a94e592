// trqp() against a live service. The Go test TestTypeScriptSDK (server/sdk_ts_test.go) publishes a
// TRQP ecosystem (docs/trqp.md's worked examples: the namespace SVC_SDK_TRQP_NAMESPACE with the
// membership registry "licences", alice live and carol revoked, and the revocation registry
// "revocations", negative, matched by details.did, listing did:example:mallory), integrates it
// into the log with its state index, and runs this file. Without SVC_SDK_BASE_URL it is skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { trqp } from "../dist/index.js";

const env = process.env;
const live = env.SVC_SDK_BASE_URL ? {} : { skip: "SVC_SDK_BASE_URL is not set: the Go test TestTypeScriptSDK runs this against a live service" };

// The state answers are checked by the SDK's own check (defaultStateCheck: verifyStateAnswer).
const options = () => ({ baseUrl: env.SVC_SDK_BASE_URL, logKey: env.SVC_SDK_LOG_KEY });
const query = (entity_id, action) => ({ entity_id, authority_id: env.SVC_SDK_TRQP_NAMESPACE, action, resource: "engineer-license" });

test("trqp() answers and checks the membership and the revocation registry", live, async () => {
  for (const [entity, action, yes, message, entry] of [
    ["alice", "issue", true, "listed and live", "record"],
    ["carol", "issue", false, "the record is revoked", "record"],
    ["did:example:mallory", "present", false, "listed as revoked", "record"],
    ["did:example:peggy", "present", true, "not listed", "registry"],
  ]) {
    const got = await trqp("authorization", query(entity, action), options());
    assert.equal(got.ok, true, `${entity}: ${got.reason}`);
    assert.equal(got.yes, yes, entity);
    assert.equal(got.message, message, entity);
    assert.equal(got.evidence.entry, entry, entity);
    assert.equal(got.evidence.state.outcome, "current", entity);
    assert.equal(got.evidence.lookup.version, got.evidence.version, entity);
    assert.equal(String(got.evidence.logIndex), got.answer.context.svc_log_index, entity);
  }
});

test("the false of a revoked record: its evidence verifies offline, and forged answers are refused", live, async () => {
  const real = await fetch(`${env.SVC_SDK_BASE_URL}/authorization`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(query("carol", "issue")),
  }).then((r) => r.json());
  const serving = (change) => async (url, init) => {
    if (init?.method === "POST") {
      const a = structuredClone(real);
      change(a, a.context);
      return new Response(JSON.stringify(a), { status: 200, headers: { "content-type": "application/json" } });
    }
    return fetch(url, init);
  };
  const ok = await trqp("authorization", query("carol", "issue"), { ...options(), fetch: serving(() => {}) });
  assert.equal(ok.ok, true, ok.reason);
  assert.equal(ok.yes, false);
  assert.equal(ok.evidence.lookup.state, "revoked");
  for (const [name, change, reason] of [
    ["made true", (a) => { a.authorized = true; a.message = "listed and live"; }, /the record version that decided is revoked/],
    ["another digest", (a, c) => { c.svc_digest = "0x" + "0".repeat(64); }, /not the evidence's/],
    ["without time_evaluated", (a) => { delete a.time_evaluated; }, /does not validate against TRQP's schema: the authorization response: time_evaluated is missing/],
    ["a nested context", (a, c) => { c.x = {}; }, /context\.x is not a string/],
    ["about another entity", (a) => { a.entity_id = "alice"; }, /not the query's/],
    ["another index", (a, c) => { c.svc_log_index = String(Number(c.svc_log_index) + 1); }, /the inclusion proof is of log index/],
    ["the state proof of another entry", (a, c) => { c.svc_state_url = `/svc/log/state/${env.SVC_SDK_TRQP_NAMESPACE}`; }, /is not the state proof/],
    ["not yet logged", (a, c) => { delete c.svc_log_index; }, /not in the transparency log yet/],
  ]) {
    const got = await trqp("authorization", query("carol", "issue"), { ...options(), fetch: serving(change) });
    assert.equal(got.ok, false, name);
    assert.match(got.reason, reason, name);
  }
  // Another log's key; a state check that refuses.
  const other = await trqp("authorization", query("carol", "issue"), { ...options(), logKey: "other.example+00000000+AbCd" });
  assert.equal(other.ok, false);
  assert.match(other.reason, /the inclusion proof/);
  const stale = await trqp("authorization", query("carol", "issue"), { ...options(), checkState: () => ({ outcome: "stale_checkpoint", message: "too old" }) });
  assert.equal(stale.ok, false);
  assert.match(stale.reason, /stale_checkpoint: too old/);
});

test("an unknown authority is an error answer with its problem document", live, async () => {
  const got = await trqp("authorization", { ...query("alice", "issue"), authority_id: "did:web:nobody.example" }, options());
  assert.equal(got.ok, false);
  assert.equal(got.status, 404);
  assert.equal(got.problem.status, 404);
  assert.match(got.problem.detail, /^Unknown authority/);
});
