// trqp() against a live service. The Go test TestTypeScriptSDK (server/sdk_ts_test.go) publishes a
// TRQP ecosystem (docs/trqp.md's worked examples: the namespace SVC_SDK_TRQP_NAMESPACE with the
// membership registry "licences", alice live and carol revoked, and the revocation registry
// "revocations", negative, matched by details.did, listing did:example:mallory), integrates it
// into the log with its state index, and runs this file. Without SVC_SDK_BASE_URL it is skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  trqp,
  verifyCheckpoint,
  rootFromInclusionProof,
  leafHash,
  parseStateLeaf,
  verifyLatest,
  verifyAbsence,
  keysOf,
} from "../dist/index.js";

const env = process.env;
const live = env.SVC_SDK_BASE_URL ? {} : { skip: "SVC_SDK_BASE_URL is not set: the Go test TestTypeScriptSDK runs this against a live service" };

// checkStateForTest checks a state answer as Go's stateindex.CheckAnswer does (no age bound,
// no later checkpoint), from the SDK's own verifiers. It stands in for the SDK's checkCurrent,
// built elsewhere: once it is in this branch, the lead passes that instead.
function checkStateForTest({ answer, key, have, logKey }) {
  const bad = (message) => ({ outcome: "bad_proof", message });
  const b64 = (s) => Uint8Array.from(Buffer.from(s, "base64"));
  const cp = verifyCheckpoint(answer.checkpoint, logKey);
  if (!cp.ok) return bad(`checkpoint: ${cp.reason}`);
  if (answer.key.kind !== key.kind || JSON.stringify(answer.key.parts) !== JSON.stringify(key.parts)) return bad("the answer is about another key");
  const inTree = (l, path) => {
    const r = rootFromInclusionProof(l.log_index, cp.size, leafHash(l.leaf), (path ?? []).map(b64));
    return r !== undefined && Buffer.from(r).equals(Buffer.from(cp.rootHash));
  };
  if (answer.state.log_index !== cp.size - 1 || !inTree(answer.state, answer.state_inclusion)) return bad("the state leaf is not the checkpoint's last");
  const st = parseStateLeaf(answer.state.leaf);
  if (st === undefined || st.size !== answer.state.log_index) return bad("not a state leaf of its index");
  const root = b64(st.root);
  if (!answer.present) {
    const v = verifyAbsence(root, key, b64(answer.proof));
    return v.ok ? { outcome: "absent", message: "absent" } : bad(v.reason);
  }
  if (!inTree(answer.latest, answer.latest_inclusion)) return bad("the latest leaf is not in the tree");
  if (!(keysOf(answer.latest.leaf) ?? []).some((k) => k.kind === key.kind && k.parts.join("\n") === key.parts.join("\n"))) return bad("the latest leaf is not the key's");
  const v = verifyLatest(root, key, answer.count, b64(answer.list_root), answer.latest.log_index, (answer.list_proof ?? []).map(b64), b64(answer.proof));
  if (!v.ok) return bad(v.reason);
  return have === undefined || have === answer.latest.leaf ? { outcome: "current", message: "current" } : { outcome: "superseded", message: "a newer version exists" };
}

const options = () => ({ baseUrl: env.SVC_SDK_BASE_URL, logKey: env.SVC_SDK_LOG_KEY, checkState: checkStateForTest });
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
