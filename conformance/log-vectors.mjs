// Usage: node log-vectors.mjs [DIR]   (DIR: the vectors, default ../translog/leaf/testdata)
//
// Checks the transparency log's known-answer vectors (translog/leaf/testdata, described in its
// README.md) the way a JavaScript reader would, with nothing of the service's: leaf texts with
// `canonicalize` (RFC 8785), hashes with Node's SHA-256, signatures with Node's Ed25519, the
// tree and its proofs with RFC 6962 / RFC 9162's algorithms written out here. Prints one line
// per disagreement and exits 1 when there is any; otherwise prints how many checks passed.
import { readFileSync } from 'node:fs';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import canonicalize from 'canonicalize';
import { blake2b } from '@noble/hashes/blake2.js';

const dir = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'translog', 'leaf', 'testdata');
const load = (name) => JSON.parse(readFileSync(join(dir, name), 'utf8'));
let checks = 0;
const failures = [];
const expect = (cond, what) => {
  checks++;
  if (!cond) failures.push(what);
};

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const b64 = (s) => Buffer.from(s, 'base64');
const same = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
const leafHash = (text) => sha256(Buffer.from([0]), Buffer.from(text, 'utf8'));
const nodeHash = (l, r) => sha256(Buffer.from([1]), l, r);

// The leaf text of fields: the members its kind has, RFC 8785.
function leafText(f) {
  const m = { kind: f.kind, namespace_id: f.namespace_id, version: f.version, version_count: f.version_count, digest: f.digest };
  if (f.kind !== 'namespace') m.registry_id = f.registry_id;
  if (f.kind === 'record') m.record_id = f.record_id;
  return canonicalize(m);
}

// parseLeaf returns the fields of a leaf text, or undefined when it is not a canonical leaf.
function parseLeaf(text) {
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const allowed = ['kind', 'namespace_id', 'registry_id', 'record_id', 'version', 'version_count', 'digest'];
  if (!Object.keys(v).every((k) => allowed.includes(k))) return undefined;
  if (!['namespace', 'registry', 'record'].includes(v.kind)) return undefined;
  if (!Number.isSafeInteger(v.version_count) || v.version_count < 1) return undefined;
  for (const k of allowed) if (k !== 'version_count' && k in v && typeof v[k] !== 'string') return undefined;
  const f = { registry_id: '', record_id: '', namespace_id: '', version: '', digest: '', ...v };
  return leafText(f) === text ? f : undefined;
}

// RFC 6962 MTH of leaf texts.
function mth(d) {
  if (d.length === 0) return sha256();
  if (d.length === 1) return leafHash(d[0]);
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return nodeHash(mth(d.slice(0, k)), mth(d.slice(k)));
}

// RFC 9162 2.1.3.2: the root an audit path leads to, or undefined.
function rootFromPath(index, size, hash, path) {
  if (index < 0 || index >= size) return undefined;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = hash;
  for (const p of path) {
    if (sn === 0n) return undefined;
    if ((fn & 1n) === 1n || fn === sn) {
      r = nodeHash(p, r);
      while ((fn & 1n) === 0n && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      r = nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n ? r : undefined;
}

// RFC 9162 2.1.4.2, with the equal and empty cases of a log's reader.
function consistent(oldSize, newSize, oldRoot, newRoot, proof) {
  if (oldSize > newSize) return false;
  if (oldSize === newSize) return proof.length === 0 && same(oldRoot, newRoot);
  if (oldSize === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  let fn = BigInt(oldSize - 1);
  let sn = BigInt(newSize - 1);
  const path = (fn & (fn + 1n)) === 0n ? [oldRoot, ...proof] : [...proof];
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0n) return false;
    if ((fn & 1n) === 1n || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while ((fn & 1n) === 0n && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && same(fr, oldRoot) && same(sr, newRoot);
}

// openCheckpoint returns {origin, size, root} of a signed checkpoint that a signature of vkey
// verifies and whose origin is the key's name, or undefined.
function openCheckpoint(signed, vkey) {
  const [name, hashHex, keyB64] = [vkey.split('+')[0], vkey.split('+')[1], vkey.split('+').slice(2).join('+')];
  const key = b64(keyB64);
  if (key.length !== 33 || key[0] !== 1) return undefined;
  if (!same(sha256(Buffer.from(name + '\n'), key).subarray(0, 4), Buffer.from(hashHex, 'hex'))) return undefined;
  const pub = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.subarray(1).toString('base64url') }, format: 'jwk' });
  const split = signed.lastIndexOf('\n\n');
  if (split < 0) return undefined;
  const text = signed.slice(0, split + 1);
  const sigs = signed.slice(split + 2);
  if (sigs === '' || !sigs.endsWith('\n')) return undefined;
  let ok = false;
  for (const line of sigs.slice(0, -1).split('\n')) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (m === null) return undefined;
    const sig = b64(m[2]);
    if (m[1] !== name || !same(sig.subarray(0, 4), Buffer.from(hashHex, 'hex'))) continue;
    if (!verify(null, Buffer.from(text, 'utf8'), pub, sig.subarray(4))) return undefined;
    ok = true;
  }
  if (!ok) return undefined;
  const lines = text.split('\n');
  if (lines.length < 4 || lines[0] === '' || !/^(0|[1-9][0-9]*)$/.test(lines[1])) return undefined;
  const root = b64(lines[2]);
  if (root.length !== 32 || root.toString('base64') !== lines[2] || lines[0] !== name) return undefined;
  return { origin: lines[0], size: Number(lines[1]), root };
}

const leaves = load('leaves.json');
for (const v of leaves.leaves) {
  expect(leafText(v.fields) === v.canonical, `leaves: ${v.name}: canonical text`);
  expect(same(leafHash(v.canonical), b64(v.leaf_hash)), `leaves: ${v.name}: leaf hash`);
  expect(parseLeaf(v.canonical) !== undefined, `leaves: ${v.name}: parses`);
}
for (const v of leaves.invalid) expect(parseLeaf(v.text) === undefined, `invalid: ${v.name}: accepted`);

// Key-change leaves (kind dedi-keys): the keys by the UTF-8 bytes of their kid, then x; each
// key's public JWK members; the digest BLAKE2b-256 of the key set's canonical text.
const keyOrder = (a, b) =>
  Buffer.compare(Buffer.from(a.kid, 'utf8'), Buffer.from(b.kid, 'utf8')) ||
  Buffer.compare(Buffer.from(a.x, 'utf8'), Buffer.from(b.x, 'utf8'));
const sortedKeys = (keys) => [...keys].sort(keyOrder).map((k) => ({ kid: k.kid, kty: k.kty, crv: k.crv, x: k.x }));
const keySetText = (f) => canonicalize({ domain: f.domain, keys: sortedKeys(f.keys), updated_at: f.updated_at });
const blake = (text) => '0x' + Buffer.from(blake2b(Buffer.from(text, 'utf8'), { dkLen: 32 })).toString('hex');
const keyLeafText = (f, digest) =>
  canonicalize({ kind: 'dedi-keys', domain: f.domain, keys: sortedKeys(f.keys), updated_at: f.updated_at, digest });

// parseKeyLeaf returns the members of a key-change leaf text, or undefined when it is not one.
function parseKeyLeaf(text) {
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v.kind !== 'dedi-keys') return undefined;
  const members = ['digest', 'domain', 'keys', 'kind', 'updated_at'];
  if (Object.keys(v).length !== members.length || !members.every((k) => k in v)) return undefined;
  if (![v.digest, v.domain, v.updated_at].every((s) => typeof s === 'string' && s !== '')) return undefined;
  if (!Array.isArray(v.keys) || v.keys.length === 0) return undefined;
  for (const k of v.keys) {
    if (typeof k !== 'object' || k === null || Object.keys(k).length !== 4) return undefined;
    if (!['kid', 'kty', 'crv', 'x'].every((m) => typeof k[m] === 'string')) return undefined;
    if (k.kid === '' || k.x === '') return undefined;
  }
  for (let i = 1; i < v.keys.length; i++) if (v.keys[i - 1].kid === v.keys[i].kid) return undefined;
  return keyLeafText(v, v.digest) === text ? v : undefined;
}

const keyLeaves = load('keyleaves.json');
for (const v of keyLeaves.leaves) {
  expect(keySetText(v.fields) === v.key_set, `keyleaves: ${v.name}: key set text`);
  expect(blake(v.key_set) === v.digest, `keyleaves: ${v.name}: digest`);
  expect(keyLeafText(v.fields, v.digest) === v.canonical, `keyleaves: ${v.name}: canonical text`);
  expect(same(leafHash(v.canonical), b64(v.leaf_hash)), `keyleaves: ${v.name}: leaf hash`);
  expect(parseKeyLeaf(v.canonical) !== undefined, `keyleaves: ${v.name}: parses`);
  expect(parseLeaf(v.canonical) === undefined, `keyleaves: ${v.name}: parses as a version's leaf`);
}
for (const v of keyLeaves.invalid) expect(parseKeyLeaf(v.text) === undefined, `keyleaves invalid: ${v.name}: accepted`);

const tree = load('tree.json');
for (const l of tree.leaves) expect(parseLeaf(l) !== undefined, `tree: leaf ${l} does not parse`);
for (const r of tree.roots) expect(same(mth(tree.leaves.slice(0, r.size)), b64(r.root_hash)), `tree: root of ${r.size}`);
for (const p of tree.inclusion) {
  const root = rootFromPath(p.index, p.size, leafHash(tree.leaves[p.index]), p.hashes.map(b64));
  expect(root !== undefined && same(root, mth(tree.leaves.slice(0, p.size))), `tree: inclusion of ${p.index} in ${p.size}`);
}
for (const p of tree.consistency) {
  const [o, n] = [mth(tree.leaves.slice(0, p.old_size)), mth(tree.leaves.slice(0, p.new_size))];
  expect(consistent(p.old_size, p.new_size, o, n, p.hashes.map(b64)), `tree: consistency of ${p.old_size} to ${p.new_size}`);
}

const cps = load('checkpoints.json');
for (const c of cps.checkpoints) {
  const got = openCheckpoint(c.signed, c.verifier_key);
  const ok = got !== undefined && (!c.ok || (got.origin === c.origin && got.size === c.size && same(got.root, b64(c.root_hash))));
  expect((got !== undefined) === c.ok && ok === c.ok, `checkpoints: ${c.name}`);
}
for (const c of cps.inclusion_proofs) {
  const p = c.proof;
  const cp = openCheckpoint(p.checkpoint, c.verifier_key);
  const root = cp && cp.size === p.tree_size ? rootFromPath(p.log_index, p.tree_size, leafHash(p.leaf), p.hashes.map(b64)) : undefined;
  const ok = root !== undefined && same(root, cp.root) && p.leaf === leafText(c.expected_leaf);
  expect(ok === c.ok, `inclusion_proofs: ${c.name}`);
}
for (const c of cps.consistency_proofs) {
  const [o, n] = [openCheckpoint(c.old_checkpoint, c.verifier_key), openCheckpoint(c.new_checkpoint, c.verifier_key)];
  const ok = o !== undefined && n !== undefined && o.origin === n.origin && consistent(o.size, n.size, o.root, n.root, c.hashes.map(b64));
  expect(ok === c.ok, `consistency_proofs: ${c.name}`);
}

if (failures.length > 0) {
  for (const f of failures) console.log(`FAIL ${f}`);
  process.exit(1);
}
console.log(`ok: ${checks} checks of the log vectors in ${dir}`);
