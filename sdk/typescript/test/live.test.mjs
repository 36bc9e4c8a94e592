// The SDK against a live service. The Go test TestTypeScriptSDK (server/sdk_ts_test.go) starts
// one on a temporary SQLite database, publishes a namespace, a registry and records, and runs
// this file with SVC_SDK_BASE_URL, SVC_SDK_API_KEY, SVC_SDK_NAMESPACE, SVC_SDK_REGISTRY and
// SVC_SDK_RECORD set, and SVC_SDK_LOG_KEY (the transparency log's verifier key, once the
// record's version is in the log). Without SVC_SDK_BASE_URL it is skipped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSvcClient, getCheckpoint, getLogKey, verifyLookup, proofType, verifyCheckpoint, verifyCosignedCheckpoint, verifyInclusion, verifyConsistencyProof, rootFromInclusionProof, leafHash, getLogPolicy, getLogProof, parseTlogPolicy, verifyTlogProof, logLeaf, verifyCurrent, SvcTextError } from "../dist/index.js";

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

async function inclusionOf(client, version) {
  const r = await client.GET("/svc/log/inclusion/{version}", { params: { path: { version } } });
  assert.equal(r.response.status, 200, `inclusion of ${version}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

test("inclusion proofs of every kind verify against the log's key and the lookups", live, async () => {
  const client = createSvcClient({ baseUrl: need("SVC_SDK_BASE_URL") });
  const vkey = need("SVC_SDK_LOG_KEY");
  // The text helpers read the plain-text answers that the raw client would parse as JSON.
  assert.equal(await getLogKey(client), vkey);
  const tree = verifyCheckpoint(await getCheckpoint(client), vkey);
  assert.equal(tree.ok, true, tree.reason);
  assert.equal(tree.origin, vkey.split("+")[0]);
  assert.ok(tree.size >= 3, `a tree of ${tree.size} leaves`);
  const lookups = await lookUpAll(client);
  const seen = new Set();
  for (const [kind, body] of Object.entries(lookups)) {
    const proof = await inclusionOf(client, body.data.version);
    const got = verifyInclusion(proof, vkey, { kind, lookup: body });
    assert.equal(got.ok, true, `${kind}: ${got.reason}`);
    assert.equal(got.logIndex, proof.log_index);
    assert.equal(got.treeSize, proof.tree_size);
    assert.equal(JSON.parse(got.leaf).kind, kind);
    assert.equal(JSON.parse(got.leaf).digest, body.data.proof.digest);
    seen.add(proof.log_index);
    // The proof as JSON text verifies too.
    assert.equal(verifyInclusion(JSON.stringify(proof), vkey).ok, true);
  }
  assert.equal(seen.size, 3, "three versions at three indices");
});

test("the tlog-proof of every kind verifies under the served policy, for its lookup and alone", live, async () => {
  const client = createSvcClient({ baseUrl: need("SVC_SDK_BASE_URL") });
  const vkey = need("SVC_SDK_LOG_KEY");
  const policy = parseTlogPolicy(await getLogPolicy(client));
  assert.deepEqual(policy.logs.map((l) => l.key), [vkey]);
  assert.equal(policy.quorum, "none");
  const lookups = await lookUpAll(client);
  for (const [kind, body] of Object.entries(lookups)) {
    const proof = await getLogProof(client, body.data.version);
    const leaf = logLeaf(kind, body.data);
    const got = verifyTlogProof(proof, policy, leaf);
    assert.equal(got.ok, true, `${kind}: ${got.reason}`);
    assert.equal(got.leaf, leaf);
    const alone = verifyTlogProof(proof, policy);
    assert.ok(alone.ok && alone.leaf === leaf, `${kind} alone`);
    // Another kind's leaf is not what it proves.
    const other = kind === "namespace" ? logLeaf("registry", lookups.registry.data) : logLeaf("namespace", lookups.namespace.data);
    assert.equal(verifyTlogProof(proof, policy, other).stage, "leaf");
  }
  await assert.rejects(getLogProof(client, "0x0190f2a1b2c3d4e5f60718293a4b5c6d"), (e) => e instanceof SvcTextError && e.status === 404);
});

test("a consistency proof links the smallest tree holding a version to the latest checkpoint", live, async () => {
  const client = createSvcClient({ baseUrl: need("SVC_SDK_BASE_URL") });
  const vkey = need("SVC_SDK_LOG_KEY");
  const { namespace } = await lookUpAll(client);
  const latest = await inclusionOf(client, namespace.data.version);
  // The proof in the smallest tree that holds the namespace's version gives that tree's root.
  const size = latest.log_index + 1;
  const r = await client.GET("/svc/log/inclusion/{version}", { params: { path: { version: namespace.data.version }, query: { size } } });
  assert.equal(r.response.status, 200, JSON.stringify(r.error));
  const oldRoot = rootFromInclusionProof(latest.log_index, size, leafHash(r.data.leaf), r.data.hashes.map((h) => new Uint8Array(Buffer.from(h, "base64"))));
  assert.ok(oldRoot, "the path of the smaller tree");
  const tree = verifyCheckpoint(r.data.checkpoint, vkey);
  assert.equal(tree.ok, true, tree.reason);
  const c = await client.GET("/svc/log/consistency", { params: { query: { from: size, to: tree.size } } });
  assert.equal(c.response.status, 200, JSON.stringify(c.error));
  const proof = c.data.hashes.map((h) => new Uint8Array(Buffer.from(h, "base64")));
  assert.equal(verifyConsistencyProof(size, tree.size, oldRoot, tree.rootHash, proof), true, `${size} -> ${tree.size}`);
  if (size < tree.size) {
    const bad = proof.map((h) => h.slice());
    bad[0][3] ^= 1;
    assert.equal(verifyConsistencyProof(size, tree.size, oldRoot, tree.rootHash, bad), false, "a changed hash");
  }
});

test("tampered inclusion proofs and wrong keys are refused", live, async () => {
  const client = createSvcClient({ baseUrl: need("SVC_SDK_BASE_URL") });
  const vkey = need("SVC_SDK_LOG_KEY");
  const { registry, record } = await lookUpAll(client);
  const proof = await inclusionOf(client, record.data.version);
  assert.ok(proof.hashes.length > 0, "a tree of one leaf has nothing to tamper in its path");
  const change = (f) => { const copy = structuredClone(proof); f(copy); return copy; };
  const flip = (b64, at) => { const b = Buffer.from(b64, "base64"); b[at] ^= 1; return b.toString("base64"); };
  const [text, sigs] = [proof.checkpoint.slice(0, proof.checkpoint.lastIndexOf("\n\n") + 1), proof.checkpoint.slice(proof.checkpoint.lastIndexOf("\n\n") + 2)];
  const [size, root] = text.split("\n").slice(1, 3);
  // Another key of the same name: the key hash differs, so the checkpoint is not signed by it.
  const otherKey = (() => {
    const [name, , key] = [vkey.slice(0, vkey.indexOf("+")), "", vkey.slice(vkey.indexOf("+", vkey.indexOf("+") + 1) + 1)];
    return { name, key };
  })();
  const cases = [
    ["a tampered leaf", change((p) => { p.leaf = p.leaf.replace(/"version_count":\d+/, '"version_count":99'); }), /does not lead to the checkpoint's root/],
    ["a tampered proof hash", change((p) => { p.hashes[0] = flip(p.hashes[0], 0); }), /does not lead to the checkpoint's root/],
    ["a hash left out", change((p) => { p.hashes.pop(); }), /not an audit path|does not lead/],
    ["another index", change((p) => { p.log_index = p.log_index === 0 ? 1 : p.log_index - 1; }), /not an audit path|does not lead/],
    ["a tampered checkpoint size", change((p) => { p.checkpoint = p.checkpoint.replace(`\n${size}\n`, `\n${Number(size) + 1}\n`); p.tree_size += 1; }), /signature of .* does not verify/],
    ["a tampered checkpoint root", change((p) => { p.checkpoint = p.checkpoint.replace(root, flip(root, 5)); }), /signature of .* does not verify/],
    ["a tampered signature", change((p) => { p.checkpoint = text + "\n" + sigs.replace(/ (\S+)\n$/, (_, s) => ` ${flip(s, 30)}\n`); }), /signature of .* does not verify/],
    ["a tree_size other than the checkpoint's", change((p) => { p.tree_size += 1; }), /is not the checkpoint's size/],
  ];
  for (const [what, p, reason] of cases) {
    const got = verifyInclusion(p, vkey);
    assert.equal(got.ok, false, `${what} verified`);
    assert.match(got.reason, reason, what);
  }
  // A wrong key: another Ed25519 key of the same name (its hash is written as the key's), and a
  // key hash that does not match.
  const wrongPub = Buffer.concat([Buffer.from([1]), Buffer.alloc(32, 7)]);
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256").update(otherKey.name + "\n").update(wrongPub).digest().subarray(0, 4).toString("hex");
  const wrong = `${otherKey.name}+${hash}+${wrongPub.toString("base64")}`;
  assert.notEqual(wrong, vkey);
  const got = verifyInclusion(proof, wrong);
  assert.equal(got.ok, false, "a wrong key verified");
  assert.match(got.reason, /not signed by/);
  assert.match(verifyInclusion(proof, `${otherKey.name}+00000000+${otherKey.key}`).reason, /hash does not match/);
  // The record's proof is not the registry lookup's leaf.
  assert.match(verifyInclusion(proof, vkey, { kind: "registry", lookup: registry }).reason, /is not the lookup's leaf/);
  // Nor a tampered lookup's.
  const forged = structuredClone(record);
  forged.data.details = { ...forged.data.details, email: "mallory@example.com" };
  assert.match(verifyInclusion(proof, vkey, { kind: "record", lookup: forged }).reason, /the lookup does not verify/);
});

test("the cosigned checkpoint verifies with the witness's key, and not without it", live, async () => {
  const vkey = need("SVC_SDK_LOG_KEY");
  const wkey = need("SVC_SDK_WITNESS_KEY");
  const r = await fetch(new URL("/svc/log/cosigned-checkpoint", need("SVC_SDK_BASE_URL")));
  assert.equal(r.status, 200);
  const text = await r.text();
  const got = verifyCosignedCheckpoint(text, vkey, [wkey]);
  assert.equal(got.ok, true, got.reason);
  assert.deepEqual(got.witnesses, [wkey.slice(0, wkey.indexOf("+"))]);
  assert.ok(got.size >= 3);
  // Another witness's key: its cosignature is missing.
  const name = wkey.slice(0, wkey.indexOf("+"));
  const key = wkey.slice(wkey.indexOf("+", name.length + 1) + 1); // base64 may hold "+"
  const other = `other.example+${"0".repeat(8)}+${key}`;
  assert.match(verifyCosignedCheckpoint(text, vkey, [other]).reason, /hash does not match/);
  assert.equal(verifyCosignedCheckpoint(text, vkey, [wkey], 2).ok, false);
  // The witness's line dropped, or one of its bytes changed.
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`\u2014 ${name} `));
  assert.ok(at > 0);
  const dropped = lines.filter((_, i) => i !== at).join("\n");
  assert.match(verifyCosignedCheckpoint(dropped, vkey, [wkey]).reason, /0 of the given witnesses/);
  const sig = Uint8Array.from(atob(lines[at].split(" ")[2]), (c) => c.charCodeAt(0));
  sig[sig.length - 1] ^= 1;
  const forged = [...lines];
  forged[at] = `\u2014 ${name} ${btoa(String.fromCharCode(...sig))}`;
  assert.match(verifyCosignedCheckpoint(forged.join("\n"), vkey, [wkey]).reason, /does not verify/);
  // The log's own signature still decides: a wrong log key fails.
  assert.equal(verifyCosignedCheckpoint(text, wkey, [wkey]).ok, false);
});

test("the stale-answer attack: an older version, with its own valid proofs, is superseded", live, async () => {
  const logKey = need("SVC_SDK_LOG_KEY");
  const namespace = need("SVC_SDK_NAMESPACE");
  const registry_name = need("SVC_SDK_REGISTRY");
  const owner = createSvcClient({ baseUrl: need("SVC_SDK_BASE_URL"), apiKey: need("SVC_SDK_API_KEY") });
  const anyone = createSvcClient({ baseUrl: need("SVC_SDK_BASE_URL") });
  const record_name = `stale-${Date.now()}`;
  const added = await owner.POST("/svc/{namespace}/{registry_name}/add-record", {
    params: { path: { namespace, registry_name } },
    body: { record_name, details: { email: "stale@example.com" } },
  });
  assert.equal(added.response.status, 201, JSON.stringify(added.error));
  const lookup = () => anyone.GET("/svc/lookup/{namespace}/{registry_name}/{record_name}", { params: { path: { namespace, registry_name, record_name } } });
  const first = (await lookup()).data;
  // The serving index follows the log's checkpoints: wait until the verdict is the one the log
  // settles on (a 503 while the index catches up, or absent before it has the record, first).
  const settle = async (body, want) => {
    let v;
    for (let i = 0; i < 300; i++) {
      try {
        v = await verifyCurrent(anyone, "record", body, { logKey });
        if (v.outcome === want) return v;
      } catch (e) {
        assert.ok(e instanceof SvcTextError && e.status === 503, String(e));
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`never ${want}: ${v?.outcome}: ${v?.message}`);
  };
  const v1 = await settle(first, "current");
  assert.match(v1.message, /the log's own clock/);
  const updated = await owner.POST("/svc/{namespace}/{registry_name}/{record_name}/update-record", {
    params: { path: { namespace, registry_name, record_name } },
    body: { details: { email: "stale@example.org" } },
  });
  assert.equal(updated.response.status, 200, JSON.stringify(updated.error));
  const second = (await lookup()).data;
  // The older version still verifies on its own: its digest, and its inclusion in the log.
  assert.equal(verifyLookup("record", first).ok, true);
  const got = await settle(first, "superseded");
  assert.equal(got.latest.version, second.data.version);
  assert.equal(got.latest.versionCount, 2);
  assert.ok(got.message.includes(`version ${second.data.version} (version_count 2), at log index ${got.latest.logIndex}`), got.message);
  await settle(second, "current");
  // A tampered lookup is bad_proof before anything is asked.
  const forged = structuredClone(second);
  forged.data.details = { email: "mallory@example.com" };
  assert.equal((await verifyCurrent(anyone, "record", forged, { logKey })).outcome, "bad_proof");
});

test("the README's examples (examples/*.ts) run against the service as written", live, async () => {
  const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { fileURLToPath, pathToFileURL } = await import("node:url");
  const ts = (await import("typescript")).default;
  const root = fileURLToPath(new URL("..", import.meta.url));
  // The tooling test type-checks the examples with tsc --strict; here each is only transpiled
  // (fast), with its import of the sources pointed at the build, and run.
  const out = mkdtempSync(join(root, ".examples-"));
  const load = async (name) => {
    const source = readFileSync(join(root, "examples", `${name}.ts`), "utf8");
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText;
    const file = join(out, `${name}.mjs`);
    writeFileSync(file, js.replaceAll('"../src/index.js"', JSON.stringify(pathToFileURL(join(root, "dist", "index.js")).href)));
    return import(pathToFileURL(file).href);
  };
  try {
    const [base, key, ns, reg, rec] = ["SVC_SDK_BASE_URL", "SVC_SDK_API_KEY", "SVC_SDK_NAMESPACE", "SVC_SDK_REGISTRY", "SVC_SDK_RECORD"].map(need);
    const { lookUpAndVerify } = await load("lookup");
    assert.match(await lookUpAndVerify(base, ns, reg, rec), /^0x[0-9a-f]{64}$/);
    const { lookUpAndCheckInclusion } = await load("inclusion");
    assert.ok(Number.isInteger(await lookUpAndCheckInclusion(base, ns, need("SVC_SDK_LOG_KEY"))));
    const { verifyBothWays } = await load("verify");
    assert.equal(await verifyBothWays(base, key, ns, reg, rec), 200, "with a key, the service verifies");
    assert.equal(await verifyBothWays(base, "", ns, reg, rec), 401, "without a key, the service's verify answers 401");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
