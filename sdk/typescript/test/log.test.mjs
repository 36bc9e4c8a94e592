// The transparency-log verifiers offline: the RFC 6962 audit-path walk against trees whose
// roots and paths this file computes from RFC 6962's definitions (MTH and PATH, section 2.1),
// and signed checkpoints made here with a fresh Ed25519 key in the note key format.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { verifyCheckpoint, verifyInclusion, verifyConsistency, verifyConsistencyProof, leafHash, nodeHash, rootFromInclusionProof } from "../dist/index.js";

ed.hashes.sha512 = sha512;

const sha256 = (...parts) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const leafText = (i) => `leaf ${i}`;
const H = (i) => sha256(Buffer.from([0]), Buffer.from(leafText(i)));
// k: the largest power of two smaller than n (RFC 6962 2.1).
const split = (n) => { let k = 1; while (k * 2 < n) k *= 2; return k; };
// MTH(D[lo:hi]).
const mth = (lo, hi) => (hi - lo === 1 ? H(lo) : ((k) => sha256(Buffer.from([1]), mth(lo, lo + k), mth(lo + k, hi)))(split(hi - lo)));
// PATH(m, D[lo:hi]).
const auditPath = (m, lo, hi) => {
  if (hi - lo === 1) return [];
  const k = split(hi - lo);
  return m < k ? [...auditPath(m, lo, lo + k), mth(lo + k, hi)] : [...auditPath(m - k, lo + k, hi), mth(lo, lo + k)];
};
const b64 = (b) => Buffer.from(b).toString("base64");

test("leaf and node hashes are RFC 6962's", () => {
  assert.deepEqual(leafHash(leafText(3)), H(3));
  assert.deepEqual(leafHash(new TextEncoder().encode(leafText(3))), H(3));
  assert.deepEqual(nodeHash(H(0), H(1)), mth(0, 2));
  // The empty leaf: SHA-256 of the single byte 0x00.
  assert.equal(Buffer.from(leafHash("")).toString("hex"), "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
});

test("the audit path of every leaf of trees of 1 to 17 leaves leads to the root", () => {
  for (let n = 1; n <= 17; n++) {
    const root = mth(0, n);
    for (let m = 0; m < n; m++) {
      const path = auditPath(m, 0, n);
      assert.deepEqual(rootFromInclusionProof(m, n, H(m), path), root, `leaf ${m} of ${n}`);
      // Another leaf, index or size does not lead to that root.
      assert.notDeepEqual(rootFromInclusionProof(m, n, H(m + 1), path), root);
      if (n > 1) {
        const other = (m + 1) % n;
        const r = rootFromInclusionProof(other, n, H(m), path);
        assert.ok(r === undefined || !Buffer.from(r).equals(Buffer.from(root)), `leaf ${m} of ${n} as index ${other}`);
        // A changed hash anywhere in the path.
        for (let i = 0; i < path.length; i++) {
          const bad = path.map((h) => h.slice());
          bad[i][0] ^= 1;
          assert.notDeepEqual(rootFromInclusionProof(m, n, H(m), bad), root, `leaf ${m} of ${n}, hash ${i} flipped`);
        }
      }
      // A path with a hash too many or too few is not one of this tree.
      assert.equal(rootFromInclusionProof(m, n, H(m), [...path, H(0)]), undefined);
      if (path.length > 0) assert.equal(rootFromInclusionProof(m, n, H(m), path.slice(0, -1)), undefined);
    }
    assert.equal(rootFromInclusionProof(n, n, H(n), auditPath(0, 0, n)), undefined, "an index beyond the tree");
  }
  assert.equal(rootFromInclusionProof(-1, 4, H(0), []), undefined);
  assert.equal(rootFromInclusionProof(0, 0, H(0), []), undefined);
});

// A log of its own: a key in the note format and checkpoints signed with it.
const origin = "example.com/svc/log";
function makeKey(name) {
  const { secretKey, publicKey } = ed.keygen();
  const key = Buffer.concat([Buffer.from([1]), publicKey]);
  const hash = sha256(Buffer.from(name + "\n"), key).slice(0, 4);
  return { name, secretKey, hash, vkey: `${name}+${Buffer.from(hash).toString("hex")}+${b64(key)}` };
}
function sign(k, text) {
  return `\u2014 ${k.name} ${b64(Buffer.concat([k.hash, ed.sign(new TextEncoder().encode(text), k.secretKey)]))}\n`;
}
const key = makeKey(origin);
const checkpointOf = (n, k = key) => {
  const text = `${origin}\n${n}\n${b64(mth(0, n))}\n`;
  return text + "\n" + sign(k, text);
};

test("verifyCheckpoint accepts a checkpoint signed by the key, cosigned or not", () => {
  const cp = checkpointOf(7);
  const got = verifyCheckpoint(cp, key.vkey);
  assert.deepEqual(got, { ok: true, origin, size: 7, rootHash: mth(0, 7) });
  const witness = makeKey("witness.example");
  assert.equal(verifyCheckpoint(cp + sign(witness, `${origin}\n7\n${b64(mth(0, 7))}\n`), key.vkey).ok, true);
  // Extension lines are part of the signed text.
  const ext = `${origin}\n7\n${b64(mth(0, 7))}\nextension\n`;
  assert.equal(verifyCheckpoint(ext + "\n" + sign(key, ext), key.vkey).ok, true);
});

test("verifyCheckpoint refuses tampered checkpoints and wrong keys", () => {
  const cp = checkpointOf(7);
  const other = makeKey(origin);
  const [name, hash] = key.vkey.split("+"); const pub = key.vkey.split("+").slice(2).join("+");
  const cases = [
    ["a changed size", cp.replace("\n7\n", "\n8\n"), key.vkey, /signature of .* does not verify/],
    ["a changed root", cp.replace(b64(mth(0, 7)), b64(mth(0, 6))), key.vkey, /does not verify/],
    ["a changed signature", cp.replace(/ (\S+)\n$/, (_, s) => { const b = Buffer.from(s, "base64"); b[20] ^= 1; return ` ${b64(b)}\n`; }), key.vkey, /signature of .* does not verify/],
    ["another key of the same name", cp, other.vkey, /not signed by/],
    ["a key hash that is not the key's", cp, `${name}+${hash === "00000000" ? "00000001" : "00000000"}+${pub}`, /hash does not match/],
    ["a key that is not Ed25519", cp, `${name}+${hash}+${b64(Buffer.alloc(33, 2))}`, /not an Ed25519 key/],
    ["a key of another name", checkpointOf(7, makeKey("other.example")), makeKey("other.example").vkey, /not signed by/],
    ["no blank line", cp.replace("\n\n", "\n"), key.vkey, /not a signed note/],
    ["no signature", `${origin}\n7\n${b64(mth(0, 7))}\n\n`, key.vkey, /signature lines are missing/],
    ["a signature line without a newline", cp.slice(0, -1), key.vkey, /do not end with a newline/],
  ];
  for (const [what, text, vkey, reason] of cases) {
    const got = verifyCheckpoint(text, vkey);
    assert.equal(got.ok, false, what);
    assert.match(got.reason, reason, what);
  }
  // A checkpoint signed by its origin's key but not a checkpoint.
  for (const [what, text, reason] of [
    ["two lines", `${origin}\n7\n`, /not origin, size and root hash/],
    ["a size with a sign", `${origin}\n+7\n${b64(mth(0, 7))}\n`, /size/],
    ["a short root", `${origin}\n7\n${b64(mth(0, 7).slice(1))}\n`, /root hash/],
  ]) {
    const got = verifyCheckpoint(text + "\n" + sign(key, text), key.vkey);
    assert.equal(got.ok, false, what);
    assert.match(got.reason, reason, what);
  }
  const named = makeKey("elsewhere.example");
  const text = `${origin}\n7\n${b64(mth(0, 7))}\n`;
  assert.match(verifyCheckpoint(text + "\n" + sign(named, text), named.vkey).reason, /origin .* is not the key's name/);
});

test("verifyInclusion walks the path to the signed root", () => {
  const n = 11;
  for (let m = 0; m < n; m++) {
    const proof = { log_index: m, tree_size: n, leaf: leafText(m), hashes: auditPath(m, 0, n).map(b64), checkpoint: checkpointOf(n) };
    const got = verifyInclusion(proof, key.vkey);
    assert.equal(got.ok, true, `${m}: ${got.reason}`);
    assert.equal(verifyInclusion(JSON.stringify(proof), key.vkey).ok, true);
    assert.match(verifyInclusion({ ...proof, leaf: leafText(m) + " " }, key.vkey).reason, /does not lead to the checkpoint's root/);
    assert.match(verifyInclusion({ ...proof, tree_size: n + 1 }, key.vkey).reason, /is not the checkpoint's size/);
    assert.match(verifyInclusion({ ...proof, checkpoint: checkpointOf(n + 1) }, key.vkey).reason, /is not the checkpoint's size/);
  }
});

// SUBPROOF(m, D[lo:hi], b) and PROOF(m, D[0:n]) of RFC 6962 section 2.1.2.
const subproof = (m, lo, hi, b) => {
  const n = hi - lo;
  if (m === n) return b ? [] : [mth(lo, hi)];
  const k = split(n);
  return m <= k ? [...subproof(m, lo, lo + k, b), mth(lo + k, hi)] : [...subproof(m - k, lo + k, hi, false), mth(lo, lo + k)];
};
const consistencyProof = (m, n) => (m === 0 || m === n ? [] : subproof(m, 0, n, true));

test("the consistency proof of every pair of trees of 0 to 17 leaves verifies, and a changed one does not", () => {
  for (let n = 1; n <= 17; n++) {
    for (let m = 0; m <= n; m++) {
      const old = m === 0 ? new Uint8Array(32) : mth(0, m);
      const proof = consistencyProof(m, n);
      assert.equal(verifyConsistencyProof(m, n, old, mth(0, n), proof), true, `${m} -> ${n}`);
      if (m === 0) continue;
      // Another old or new root, or a changed, dropped or added hash fails.
      assert.equal(verifyConsistencyProof(m, n, H(99), mth(0, n), proof), false, `${m} -> ${n}: old root`);
      assert.equal(verifyConsistencyProof(m, n, old, H(99), proof), false, `${m} -> ${n}: new root`);
      if (m < n) {
        for (let i = 0; i < proof.length; i++) {
          const bad = proof.map((h) => h.slice());
          bad[i][0] ^= 1;
          assert.equal(verifyConsistencyProof(m, n, old, mth(0, n), bad), false, `${m} -> ${n}: hash ${i} changed`);
        }
        assert.equal(verifyConsistencyProof(m, n, old, mth(0, n), proof.slice(1)), false, `${m} -> ${n}: a hash dropped`);
        assert.equal(verifyConsistencyProof(m, n, old, mth(0, n), [...proof, H(0)]), false, `${m} -> ${n}: a hash added`);
      }
    }
  }
  assert.equal(verifyConsistencyProof(5, 4, mth(0, 5), mth(0, 4), []), false, "a larger old tree");
});

test("verifyConsistency checks both signed checkpoints and the proof between them", () => {
  const proof = { message: "Consistency proof", hashes: consistencyProof(6, 13).map(b64) };
  const got = verifyConsistency(checkpointOf(6), checkpointOf(13), proof, key.vkey);
  assert.equal(got.ok, true, got.reason);
  assert.equal(got.oldSize, 6);
  assert.equal(got.newSize, 13);
  assert.deepEqual(got.newRootHash, mth(0, 13));
  assert.equal(verifyConsistency(checkpointOf(6), checkpointOf(13), JSON.stringify(proof), key.vkey).ok, true);
  assert.equal(verifyConsistency(checkpointOf(6), checkpointOf(13), proof.hashes, key.vkey).ok, true);
  // A fork: a new tree of 13 whose first 6 leaves are not the old ones.
  const forkText = `${origin}\n13\n${b64(sha256(Buffer.from([1]), H(50), mth(1, 13)))}\n`;
  const fork = forkText + "\n" + sign(key, forkText);
  assert.match(verifyConsistency(checkpointOf(6), fork, proof, key.vkey).reason, /forked or the proof is wrong/);
  const other = makeKey(origin);
  for (const [what, args, reason] of [
    ["a checkpoint of another key", [checkpointOf(6, other), checkpointOf(13), proof, key.vkey], /old checkpoint/],
    ["a shrinking log", [checkpointOf(13), checkpointOf(6), proof, key.vkey], /shrank from 13 to 6/],
    ["a tampered hash", [checkpointOf(6), checkpointOf(13), { hashes: [b64(H(1)), ...proof.hashes.slice(1)] }, key.vkey], /forked or the proof is wrong/],
    ["no hashes", [checkpointOf(6), checkpointOf(13), {}, key.vkey], /no hashes array/],
    ["a short hash", [checkpointOf(6), checkpointOf(13), { hashes: ["AAAA"] }, key.vkey], /not 32 bytes/],
    ["invalid JSON", [checkpointOf(6), checkpointOf(13), "{", key.vkey], /cannot verify/],
  ]) {
    const r = verifyConsistency(...args);
    assert.equal(r.ok, false, what);
    assert.match(r.reason, reason, what);
  }
});
