// The verifier of the log's state index (docs/state-index.md, translog/stateindex): a sparse
// Merkle prefix tree over SHA-256 of each key's encoding, whose leaves commit to a key's list of
// log indices (its count and RFC 6962 root). A membership proof shows that a key's list is
// exactly these n indices, so the n-th is the latest; an absence proof that the key has no
// leaf. Every function here refuses what the Go verifier refuses, and never throws.

import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes, nodeHash as node6962, rootFromInclusionProof, verifyConsistencyProof } from "./merkle.js";

/** The kinds of index key, named as the vectors name them; the first byte of a key's encoding. */
export type StateKeyKind = "id" | "registry-name" | "record-name" | "publisher" | "domain";

/** An index key: its kind and its strings (1 for id, publisher and domain, 2 for registry-name, 3 for record-name). */
export interface StateKey {
  kind: StateKeyKind;
  parts: readonly string[];
}

const kinds: Record<StateKeyKind, { byte: number; parts: number }> = {
  id: { byte: 0x01, parts: 1 },
  "registry-name": { byte: 0x02, parts: 2 },
  "record-name": { byte: 0x03, parts: 3 },
  publisher: { byte: 0x04, parts: 1 },
  domain: { byte: 0x05, parts: 1 },
};

/** What a proof's path ends at: the key's own leaf (membership), an empty subtree, or another key's leaf (both absence). */
export const END_LEAF = 0x00;
export const END_EMPTY = 0x01;
export const END_OTHER = 0x02;

/** A decoded proof: its end, the siblings from depth 0 down (an empty one as 32 zero bytes), and for END_OTHER the other key's leaf. */
export interface StateProof {
  end: number;
  siblings: Uint8Array[];
  other?: { keyHash: Uint8Array; count: bigint; listRoot: Uint8Array };
}

/** A verifier's verdict: `{ok: true}`, or `{ok: false, reason}` saying why the proof does not verify. */
export type StateIndexResult = { ok: true } | { ok: false; reason: string };

/** The hash of an empty subtree, and the root of an index without keys: 32 zero bytes. */
export const EMPTY_HASH: Uint8Array = new Uint8Array(32);

const MAX_LIST = 2n ** 62n;
const utf8 = new TextEncoder();
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

class Refused extends Error {}

function refuse(reason: string): never {
  throw new Refused(reason);
}

function verdict(check: () => void): StateIndexResult {
  try {
    check();
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: e instanceof Refused ? e.message : `cannot verify the proof: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function isZero(h: Uint8Array): boolean {
  return h.every((x) => x === 0);
}

function keyName(key: StateKey): string {
  return `${key.kind}:${key.parts.join("/")}`;
}

/**
 * A key's encoding: its kind byte, then each of its strings as a big-endian uint16 length in
 * bytes and its UTF-8 bytes. Throws on an unknown kind, a wrong number of strings, or a string
 * that is empty, longer than 65535 bytes of UTF-8 or not well-formed (a lone surrogate).
 */
export function encodeStateKey(key: StateKey): Uint8Array {
  const k = Object.hasOwn(kinds, key.kind) ? kinds[key.kind] : undefined;
  if (k === undefined) throw new Error(`unknown key kind ${JSON.stringify(key.kind)}`);
  if (!Array.isArray(key.parts) || key.parts.length !== k.parts) throw new Error(`a ${key.kind} key has ${k.parts} parts`);
  const out: Uint8Array[] = [Uint8Array.of(k.byte)];
  for (const p of key.parts) {
    if (typeof p !== "string" || p === "" || loneSurrogate.test(p)) throw new Error(`a ${key.kind} key's part ${JSON.stringify(p)} is empty or not UTF-8`);
    const b = utf8.encode(p);
    if (b.length > 0xffff) throw new Error(`a ${key.kind} key's part is longer than 65535 bytes`);
    out.push(Uint8Array.of(b.length >> 8, b.length & 0xff), b);
  }
  return concat(...out);
}

/** A key's hash, SHA-256 of its encoding: its path in the tree. Throws as encodeStateKey. */
export function stateKeyHash(key: StateKey): Uint8Array {
  return sha256(encodeStateKey(key));
}

/** The hash of a key's leaf: SHA-256(0x02 || keyHash || uint64be(count) || listRoot). */
export function indexLeafHash(keyHash: Uint8Array, count: bigint | number, listRoot: Uint8Array): Uint8Array {
  return sha256(concat(Uint8Array.of(0x02), keyHash, u64(BigInt(count)), listRoot));
}

/** The hash of an inner node of the index: SHA-256(0x03 || left || right), an empty child as EMPTY_HASH. */
export function indexNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(concat(Uint8Array.of(0x03), left, right));
}

// index reads a log index: a safe non-negative integer or a bigint below 2^64.
function index(x: unknown): bigint {
  if (typeof x === "bigint" && x >= 0n && x < 2n ** 64n) return x;
  if (typeof x === "number" && Number.isSafeInteger(x) && x >= 0) return BigInt(x);
  refuse(`${String(x)} is not a log index`);
}

function elementHash(x: bigint): Uint8Array {
  return sha256(concat(Uint8Array.of(0x00), u64(x)));
}

/** The RFC 6962 root of a list of log indices (element i the 8 bytes of the index, big-endian); EMPTY_HASH for none. Throws on a value that is not a log index. */
export function listRoot(list: readonly (number | bigint)[]): Uint8Array {
  const mth = (hs: Uint8Array[]): Uint8Array => {
    if (hs.length === 1) return hs[0]!;
    let k = 1;
    while (k * 2 < hs.length) k *= 2;
    return node6962(mth(hs.slice(0, k)), mth(hs.slice(k)));
  };
  return list.length === 0 ? EMPTY_HASH : mth(list.map((x) => elementHash(index(x))));
}

/**
 * Decodes a proof's bytes (docs/state-index.md, "Proofs"), refusing every encoding the writer
 * would not make: fewer than 3 bytes, an unknown end, a depth beyond 256, a bitmap bit past the
 * depth, a missing sibling, a sibling of 32 zero bytes written out, a missing other leaf, a
 * byte after the proof. Returns the proof, or `{reason}`.
 */
export function decodeStateProof(b: Uint8Array): StateProof | { reason: string } {
  try {
    return decode(b);
  } catch (e) {
    return { reason: e instanceof Error ? e.message : String(e) };
  }
}

function decode(b: Uint8Array): StateProof {
  if (!(b instanceof Uint8Array) || b.length < 3) refuse(`a proof of ${b?.length} bytes (at least 3)`);
  const end = b[0]!;
  if (end > END_OTHER) refuse(`unknown proof end 0x${end.toString(16).padStart(2, "0")}`);
  const depth = (b[1]! << 8) | b[2]!;
  if (depth > 256) refuse(`a path of depth ${depth} (at most 256)`);
  const bm = Math.ceil(depth / 8);
  if (b.length < 3 + bm) refuse("the proof ends in its bitmap");
  const bitmap = b.subarray(3, 3 + bm);
  if (depth % 8 !== 0 && (bitmap[bm - 1]! & (0xff >> depth % 8)) !== 0) refuse(`bitmap bits past the depth ${depth} are set`);
  let at = 3 + bm;
  const siblings: Uint8Array[] = [];
  for (let i = 0; i < depth; i++) {
    if ((bitmap[i >> 3]! & (0x80 >> i % 8)) === 0) {
      siblings.push(EMPTY_HASH);
      continue;
    }
    if (b.length - at < 32) refuse(`the proof ends in sibling ${i}`);
    const s = b.slice(at, at + 32);
    at += 32;
    if (isZero(s)) refuse(`sibling ${i} is written out as 32 zero bytes (an empty sibling is a clear bitmap bit)`);
    siblings.push(s);
  }
  const p: StateProof = { end, siblings };
  if (end === END_OTHER) {
    if (b.length - at < 72) refuse("the proof ends in the other key's leaf");
    p.other = { keyHash: b.slice(at, at + 32), count: new DataView(b.buffer, b.byteOffset + at + 32, 8).getBigUint64(0), listRoot: b.slice(at + 40, at + 72) };
    at += 72;
  }
  if (at !== b.length) refuse(`${b.length - at} bytes after the proof`);
  return p;
}

function bit(h: Uint8Array, i: number): number {
  return (h[i >> 3]! >> (7 - (i % 8))) & 1;
}

// fold folds a path from its end hash up to the root; a canonical path never ends beside an
// empty subtree (a subtree of one key is that key's leaf).
function fold(p: StateProof, kh: Uint8Array, end: Uint8Array): Uint8Array {
  const d = p.siblings.length;
  if (d > 0 && isZero(p.siblings[d - 1]!)) refuse(`the deepest sibling (depth ${d - 1}) is empty: a subtree of one key is that key's leaf`);
  let h = end;
  for (let i = d - 1; i >= 0; i--) {
    h = bit(kh, i) === 0 ? indexNodeHash(h, p.siblings[i]!) : indexNodeHash(p.siblings[i]!, h);
  }
  return h;
}

function prepare(root: Uint8Array, key: StateKey, proof: Uint8Array): { kh: Uint8Array; p: StateProof } {
  if (!(root instanceof Uint8Array) || root.length !== 32) refuse("the root is not 32 bytes");
  let kh: Uint8Array;
  try {
    kh = stateKeyHash(key);
  } catch (e) {
    refuse(e instanceof Error ? e.message : String(e));
  }
  return { kh, p: decode(proof) };
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/**
 * Verifies that in the index of `root`, `key`'s list is exactly `list` (strictly increasing log
 * indices, at least one), so its last element is the key's latest leaf. `proof` is the encoded
 * membership proof.
 */
export function verifyMembership(root: Uint8Array, key: StateKey, list: readonly (number | bigint)[], proof: Uint8Array): StateIndexResult {
  return verdict(() => {
    const { kh, p } = prepare(root, key, proof);
    if (!Array.isArray(list) || list.length === 0) refuse("the list is empty (a key without leaves has no list; prove its absence)");
    const xs = list.map(index);
    for (let i = 1; i < xs.length; i++) {
      if (xs[i]! <= xs[i - 1]!) refuse(`the list is not strictly increasing: element ${i} (${xs[i]}) after ${xs[i - 1]}`);
    }
    if (p.end !== END_LEAF) refuse(`the proof of ${keyName(key)} is an absence proof, not a membership proof`);
    const got = fold(p, kh, indexLeafHash(kh, BigInt(xs.length), listRoot(xs)));
    if (!equalBytes(got, root)) refuse(`the path of ${keyName(key)} with a list of ${xs.length} (latest ${xs[xs.length - 1]}) leads to root ${hex(got)}, not ${hex(root)}`);
  });
}

/** Verifies that in the index of `root`, `key` has no leaf. `proof` is the encoded absence proof. */
export function verifyAbsence(root: Uint8Array, key: StateKey, proof: Uint8Array): StateIndexResult {
  return verdict(() => {
    const { kh, p } = prepare(root, key, proof);
    let end: Uint8Array;
    if (p.end === END_LEAF) refuse(`the proof of ${keyName(key)} is a membership proof, not an absence proof`);
    if (p.end === END_EMPTY) {
      end = EMPTY_HASH;
    } else {
      const o = p.other!;
      if (equalBytes(o.keyHash, kh)) refuse(`the absence proof of ${keyName(key)} ends at that key's own leaf`);
      for (let i = 0; i < p.siblings.length; i++) {
        if (bit(o.keyHash, i) !== bit(kh, i)) refuse(`the other key's leaf is not on the path of ${keyName(key)}`);
      }
      if (o.count === 0n) refuse("the other key's leaf has an empty list");
      end = indexLeafHash(o.keyHash, o.count, o.listRoot);
    }
    const got = fold(p, kh, end);
    if (!equalBytes(got, root)) refuse(`the absence proof of ${keyName(key)} leads to root ${hex(got)}, not ${hex(root)}`);
  });
}

// count reads a list's length: 1 to 2^62 (as the Go verifier), and here also a safe integer
// for the RFC 6962 proofs of merkle.ts.
function listLength(n: number | bigint, what: string): number {
  const c = typeof n === "bigint" ? n : typeof n === "number" && Number.isSafeInteger(n) ? BigInt(n) : -1n;
  if (c < 1n || c > MAX_LIST || c > BigInt(Number.MAX_SAFE_INTEGER)) refuse(`${what} of ${String(n)} elements`);
  return Number(c);
}

function hashes(proof: readonly Uint8Array[]): Uint8Array[] {
  if (!Array.isArray(proof) || !proof.every((h) => h instanceof Uint8Array && h.length === 32)) refuse("a proof hash is not 32 bytes");
  return [...proof];
}

/**
 * Verifies that the list of `oldCount` elements whose RFC 6962 root is `oldRoot` is a prefix of
 * the list of `newCount` elements whose root is `newRoot`, by the RFC 6962 consistency proof
 * `proof`: what a client that knew a key's list at n needs to accept its list at m. A list that
 * shrank, an empty old list, or two roots for one count are refused.
 */
export function verifyExtension(oldCount: number | bigint, oldRoot: Uint8Array, newCount: number | bigint, newRoot: Uint8Array, proof: readonly Uint8Array[]): StateIndexResult {
  return verdict(() => {
    if (BigInt(oldCount) === 0n) refuse("the old list is empty: a key that had no leaf has no list to extend");
    if (BigInt(newCount) < BigInt(oldCount)) refuse(`the list shrank from ${oldCount} to ${newCount} elements`);
    const m = listLength(oldCount, "an old list");
    const n = listLength(newCount, "a new list");
    if (oldRoot?.length !== 32 || newRoot?.length !== 32) refuse("a list root is not 32 bytes");
    const p = hashes(proof);
    if (m === n && (p.length !== 0 || !equalBytes(oldRoot, newRoot))) refuse(`two different lists of ${m} elements`);
    if (!verifyConsistencyProof(m, n, oldRoot, newRoot, p)) refuse(`the list of ${m} is not a prefix of the list of ${n}`);
  });
}

/**
 * Verifies the compact membership proof: in the index of `root`, `key`'s list has `count`
 * elements, its RFC 6962 root is `listRootHash`, and its last element is `latest`, shown by
 * `listProof` (the RFC 6962 inclusion proof of element count - 1 in the list's tree) and
 * `proof` (the key's encoded membership proof).
 */
export function verifyLatest(
  root: Uint8Array,
  key: StateKey,
  count: number | bigint,
  listRootHash: Uint8Array,
  latest: number | bigint,
  listProof: readonly Uint8Array[],
  proof: Uint8Array,
): StateIndexResult {
  return verdict(() => {
    const n = listLength(count, "a list");
    const x = index(latest);
    if (listRootHash?.length !== 32) refuse("the list root is not 32 bytes");
    const got = rootFromInclusionProof(n - 1, n, elementHash(x), hashes(listProof));
    if (got === undefined || !equalBytes(got, listRootHash)) refuse(`log index ${x} is not element ${n} of the list of ${keyName(key)}`);
    const { kh, p } = prepare(root, key, proof);
    if (p.end !== END_LEAF) refuse(`the proof of ${keyName(key)} is an absence proof, not a membership proof`);
    const r = fold(p, kh, indexLeafHash(kh, BigInt(n), listRootHash));
    if (!equalBytes(r, root)) refuse(`the path of ${keyName(key)} with a list of ${n} (latest ${x}) leads to root ${hex(r)}, not ${hex(root)}`);
  });
}
