// Offline verification of the transparency log (docs/transparency-log.md): signed checkpoints
// (C2SP tlog-checkpoint in a C2SP signed note, Ed25519, keys in the form of
// golang.org/x/mod/sumdb/note), inclusion proofs (RFC 6962 / RFC 9162 audit paths over
// SHA-256), as GET /svc/log/inclusion/{version} serves them, and consistency proofs between
// two checkpoints (GET /svc/log/consistency).

import * as ed from "@noble/ed25519";
import canonicalize from "canonicalize";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { verifyLookup, type LookupKind } from "./verify.js";

// @noble/ed25519 needs a SHA-512 for its synchronous methods (its README).
ed.hashes.sha512 = sha512;

/** What verifyCheckpoint found. */
export type CheckpointResult =
  | {
      ok: true;
      /** The origin line: the log's name. */
      origin: string;
      /** The tree size. */
      size: number;
      /** The root hash of the tree of that size (32 bytes). */
      rootHash: Uint8Array;
    }
  | { ok: false; reason: string };

/** The body of GET /svc/log/inclusion/{version}. */
export interface InclusionProof {
  log_index: number;
  tree_size: number;
  /** The leaf text. */
  leaf: string;
  /** The RFC 6962 audit path, base64, from the leaf up. */
  hashes: string[];
  /** The signed checkpoint the path leads to. */
  checkpoint: string;
}

/** A lookup whose leaf the proof must be: the kind and the lookup response (any form verifyLookup takes). */
export interface ExpectedLeaf {
  kind: LookupKind;
  lookup: unknown;
}

/** What verifyInclusion found. */
export type InclusionResult =
  | {
      ok: true;
      origin: string;
      logIndex: number;
      treeSize: number;
      rootHash: Uint8Array;
      leaf: string;
    }
  | { ok: false; reason: string };

const encoder = new TextEncoder();

interface VerifierKey {
  name: string;
  hash: number;
  publicKey: Uint8Array;
}

// splitKey splits a note key "<name>+<hash>+<base64 key>" into its three parts: the name and
// the hash end at the first two plus signs; the base64 key may hold more.
function splitKey(vkey: string): [name: string, hash: string, key: string] | undefined {
  const text = vkey.trim();
  const i = text.indexOf("+");
  const j = i < 0 ? -1 : text.indexOf("+", i + 1);
  return j < 0 ? undefined : [text.slice(0, i), text.slice(i + 1, j), text.slice(j + 1)];
}

// decodeHashes decodes a proof's base64 hashes (32 bytes each), or says which one is not.
function decodeHashes(hashes: readonly unknown[]): Uint8Array[] | string {
  const path: Uint8Array[] = [];
  for (const [i, h] of hashes.entries()) {
    const b = typeof h === "string" ? decodeBase64(h) : undefined;
    if (b === undefined || b.length !== 32) {
      return `hashes[${i}] is not 32 bytes of base64`;
    }
    path.push(b);
  }
  return path;
}

// parseVerifierKey reads "<name>+<8 hex digits>+<base64(0x01 || 32-byte Ed25519 key)>" and
// checks that the hash is the key's (as note.NewVerifier does).
function parseVerifierKey(vkey: string): VerifierKey | string {
  const parts = splitKey(vkey);
  if (parts === undefined) {
    return "the verifier key is not <name>+<hash>+<key>";
  }
  const [name, hex, b64] = parts;
  if (!isKeyName(name)) {
    return "the verifier key has an invalid name";
  }
  if (!/^[0-9a-f]{8}$/.test(hex)) {
    return "the verifier key's hash is not 8 lowercase hex digits";
  }
  const key = decodeBase64(b64);
  if (key === undefined || key.length !== 33 || key[0] !== 1) {
    return "the verifier key is not an Ed25519 key (0x01 and 32 bytes, base64)";
  }
  const hash = parseInt(hex, 16);
  if (keyHash(name, key) !== hash) {
    return "the verifier key's hash does not match its name and key";
  }
  return { name, hash, publicKey: key.slice(1) };
}

// keyHash is the first 4 bytes, big-endian, of SHA-256(name || "\n" || 0x01 || public key).
function keyHash(name: string, key: Uint8Array): number {
  const n = encoder.encode(name + "\n");
  const buf = new Uint8Array(n.length + key.length);
  buf.set(n);
  buf.set(key, n.length);
  const h = sha256(buf);
  return ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
}

// A key name is non-empty UTF-8 without spaces or plus signs (as in golang.org/x/mod/sumdb/note).
function isKeyName(name: string): boolean {
  return name !== "" && !/[\s+]/u.test(name) && !/[\uFFFD]/.test(name);
}

// decodeBase64 decodes standard, padded base64 strictly; undefined when it is not that.
function decodeBase64(s: string): Uint8Array | undefined {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    return undefined;
  }
  const bin = atob(s);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  // Refuse non-canonical encodings (stray bits in the last character).
  if (btoa(bin) !== s) {
    return undefined;
  }
  return bytes;
}

/**
 * Verifies a signed checkpoint: a C2SP signed note whose text is a C2SP tlog-checkpoint (origin
 * line, decimal tree size, base64 root hash, optional extension lines), with a signature by
 * the verifier key (in the form of golang.org/x/mod/sumdb/note:
 * `<name>+<hex key hash>+<base64(0x01 || Ed25519 public key)>`). Signatures by other keys
 * (cosignatures) are ignored; the key's name must be the checkpoint's origin.
 *
 * @returns `{ok: true, origin, size, rootHash}` or `{ok: false, reason}`; it never throws
 */
export function verifyCheckpoint(noteText: string, verifierKey: string): CheckpointResult {
  try {
    return checkpoint(noteText, verifierKey);
  } catch (e) {
    return { ok: false, reason: `cannot verify the checkpoint: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function checkpoint(noteText: string, verifierKey: string): CheckpointResult {
  const fail = (reason: string): CheckpointResult => ({ ok: false, reason });
  if (typeof noteText !== "string" || typeof verifierKey !== "string") {
    return fail("the checkpoint and the verifier key must be text");
  }
  const key = parseVerifierKey(verifierKey);
  if (typeof key === "string") {
    return fail(key);
  }
  // The text is everything up to the last blank line, with its final newline; the signature
  // lines follow it.
  const split = noteText.lastIndexOf("\n\n");
  if (split < 0) {
    return fail("the checkpoint is not a signed note (no blank line before the signatures)");
  }
  const text = noteText.slice(0, split + 1);
  if (/[\u0000-\u0009\u000b-\u001f\uFFFD]/.test(text) || badSurrogates(text)) {
    return fail("the checkpoint text holds control characters or invalid UTF-8");
  }
  const sigBlock = noteText.slice(split + 2);
  if (sigBlock === "" || !sigBlock.endsWith("\n")) {
    return fail("the checkpoint's signature lines are missing or do not end with a newline");
  }
  let signed = false;
  for (const line of sigBlock.slice(0, -1).split("\n")) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (m === null) {
      return fail(`malformed signature line ${JSON.stringify(line)}`);
    }
    const sig = decodeBase64(m[2]!);
    if (sig === undefined || sig.length < 5) {
      return fail(`malformed signature line ${JSON.stringify(line)}`);
    }
    const hash = ((sig[0]! << 24) | (sig[1]! << 16) | (sig[2]! << 8) | sig[3]!) >>> 0;
    if (m[1] !== key.name || hash !== key.hash) {
      continue; // another signer's (a witness's cosignature, say)
    }
    const sigBytes = sig.slice(4);
    if (sigBytes.length !== 64 || !ed.verify(sigBytes, encoder.encode(text), key.publicKey, { zip215: false })) {
      return fail(`the signature of ${key.name} does not verify`);
    }
    signed = true;
  }
  if (!signed) {
    return fail(`the checkpoint is not signed by ${key.name}+${key.hash.toString(16).padStart(8, "0")}`);
  }
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) {
    return fail("the checkpoint text is not origin, size and root hash");
  }
  const [origin, sizeText, hashText] = lines as [string, string, string];
  if (origin === "") {
    return fail("the checkpoint has an empty origin");
  }
  if (origin !== key.name) {
    return fail(`the checkpoint's origin ${JSON.stringify(origin)} is not the key's name ${JSON.stringify(key.name)}`);
  }
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) {
    return fail(`the checkpoint's size ${JSON.stringify(sizeText)} is not a decimal integer`);
  }
  const rootHash = decodeBase64(hashText);
  if (rootHash === undefined || rootHash.length !== 32) {
    return fail("the checkpoint's root hash is not 32 bytes of base64");
  }
  return { ok: true, origin, size: Number(sizeText), rootHash };
}

function badSurrogates(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** The RFC 6962 leaf hash: SHA-256(0x00 || leaf). */
export function leafHash(leaf: Uint8Array | string): Uint8Array {
  const b = typeof leaf === "string" ? encoder.encode(leaf) : leaf;
  const buf = new Uint8Array(1 + b.length);
  buf[0] = 0;
  buf.set(b, 1);
  return sha256(buf);
}

/** The RFC 6962 interior node hash: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + left.length + right.length);
  buf[0] = 1;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return sha256(buf);
}

/**
 * The root that an RFC 6962 audit path leads to from a leaf hash at index in a tree of size
 * (RFC 9162, section 2.1.3.2), or undefined when the path cannot be one of that tree (index
 * beyond the tree, too few or too many hashes).
 */
export function rootFromInclusionProof(index: number, size: number, hash: Uint8Array, path: readonly Uint8Array[]): Uint8Array | undefined {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    return undefined;
  }
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = hash;
  for (const p of path) {
    if (sn === 0n) {
      return undefined;
    }
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

/**
 * Whether an RFC 6962 consistency proof (RFC 9162, section 2.1.4.2) shows that the tree of
 * size `oldSize` and root `oldRoot` is a prefix of the tree of size `newSize` and root
 * `newRoot`. Equal sizes need an empty proof and equal roots; an empty old tree is a prefix of
 * every tree (with an empty proof).
 */
export function verifyConsistencyProof(oldSize: number, newSize: number, oldRoot: Uint8Array, newRoot: Uint8Array, proof: readonly Uint8Array[]): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 0 || oldSize > newSize) {
    return false;
  }
  if (oldSize === newSize) {
    return proof.length === 0 && equalBytes(oldRoot, newRoot);
  }
  if (oldSize === 0) {
    return proof.length === 0;
  }
  if (proof.length === 0) {
    return false;
  }
  let fn = BigInt(oldSize - 1);
  let sn = BigInt(newSize - 1);
  // An old tree that is a complete subtree is a node of the new one: its root starts the path.
  const path = (fn & (fn + 1n)) === 0n ? [oldRoot, ...proof] : [...proof];
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0n) {
      return false;
    }
    if ((fn & 1n) === 1n || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && equalBytes(fr, oldRoot) && equalBytes(sr, newRoot);
}

/** What verifyConsistency found. */
export type ConsistencyResult =
  | { ok: true; origin: string; oldSize: number; newSize: number; newRootHash: Uint8Array }
  | { ok: false; reason: string };

/**
 * Verifies that a log did not fork between two checkpoints a reader saw: both are signed by the
 * verifier key for one origin (verifyCheckpoint), the old one is not larger, and the
 * consistency proof (the body of GET /svc/log/consistency?from=OLD&to=NEW, as an object or
 * JSON text, or its `hashes` array) shows the old tree is a prefix of the new one. A monitor
 * keeps the newest checkpoint that passed and checks each new one against it.
 *
 * @returns `{ok: true, origin, oldSize, newSize, newRootHash}` or `{ok: false, reason}`; it
 *   never throws
 */
export function verifyConsistency(oldCheckpoint: string, newCheckpoint: string, proof: unknown, verifierKey: string): ConsistencyResult {
  const fail = (reason: string): ConsistencyResult => ({ ok: false, reason });
  try {
    const older = verifyCheckpoint(oldCheckpoint, verifierKey);
    if (!older.ok) {
      return fail(`old checkpoint: ${older.reason}`);
    }
    const newer = verifyCheckpoint(newCheckpoint, verifierKey);
    if (!newer.ok) {
      return fail(`new checkpoint: ${newer.reason}`);
    }
    if (older.origin !== newer.origin) {
      return fail(`the checkpoints are of two logs: ${older.origin} and ${newer.origin}`);
    }
    if (older.size > newer.size) {
      return fail(`the log shrank from ${older.size} to ${newer.size}`);
    }
    let p = proof;
    if (typeof p === "string") {
      p = JSON.parse(p) as unknown;
    }
    const hashes = Array.isArray(p) ? p : typeof p === "object" && p !== null ? (p as Record<string, unknown>)["hashes"] : undefined;
    if (!Array.isArray(hashes)) {
      return fail("the proof has no hashes array");
    }
    const path = decodeHashes(hashes);
    if (typeof path === "string") {
      return fail(path);
    }
    if (!verifyConsistencyProof(older.size, newer.size, older.rootHash, newer.rootHash, path)) {
      return fail(`the proof does not show the tree of ${older.size} as a prefix of the tree of ${newer.size}: the log forked or the proof is wrong`);
    }
    return { ok: true, origin: newer.origin, oldSize: older.size, newSize: newer.size, newRootHash: newer.rootHash };
  } catch (e) {
    return fail(`cannot verify the consistency proof: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The leaf text of a looked-up version: RFC 8785 canonical JSON of {kind, namespace_id,
 * registry_id (registry and record), record_id (record), version, version_count, digest}, as
 * the service logs it. `data` is the `data` of a lookup response.
 */
export function logLeaf(kind: LookupKind, data: Record<string, unknown>): string {
  const leaf: Record<string, unknown> = { kind, namespace_id: data["namespace_id"] };
  if (kind !== "namespace") {
    leaf["registry_id"] = data["registry_id"];
  }
  if (kind === "record") {
    leaf["record_id"] = data["record_id"];
  }
  const proof = data["proof"];
  leaf["version"] = data["version"];
  leaf["version_count"] = data["version_count"];
  leaf["digest"] = typeof proof === "object" && proof !== null ? (proof as Record<string, unknown>)["digest"] : undefined;
  for (const [k, v] of Object.entries(leaf)) {
    if (k === "version_count" ? !Number.isSafeInteger(v) : typeof v !== "string") {
      throw new Error(`the lookup has no ${k === "digest" ? "proof.digest" : k}`);
    }
  }
  const text = canonicalize(leaf);
  if (text === undefined) {
    throw new Error("the leaf has no JSON form");
  }
  return text;
}

/**
 * Verifies an inclusion proof (the body of GET /svc/log/inclusion/{version}, as an object or
 * JSON text): the checkpoint is signed by the verifier key (verifyCheckpoint), its size is the
 * proof's tree_size, and the audit path of SHA-256(0x00 || leaf) at log_index leads to its
 * root hash. With `expected`, the lookup must verify (verifyLookup) and its leaf (logLeaf)
 * must be the proof's leaf.
 *
 * @returns `{ok: true, origin, logIndex, treeSize, rootHash, leaf}` or `{ok: false, reason}`;
 *   it never throws
 */
export function verifyInclusion(proof: unknown, verifierKey: string, expected?: ExpectedLeaf): InclusionResult {
  try {
    return inclusion(proof, verifierKey, expected);
  } catch (e) {
    return { ok: false, reason: `cannot verify the inclusion proof: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function inclusion(proof: unknown, verifierKey: string, expected: ExpectedLeaf | undefined): InclusionResult {
  const fail = (reason: string): InclusionResult => ({ ok: false, reason });
  let p = proof;
  if (typeof p === "string") {
    try {
      p = JSON.parse(p);
    } catch (e) {
      return fail(`invalid JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (typeof p !== "object" || p === null || Array.isArray(p)) {
    return fail("the inclusion proof is not an object");
  }
  const m = p as Record<string, unknown>;
  const { log_index: index, tree_size: size, leaf, hashes, checkpoint: cp } = m;
  if (!Number.isSafeInteger(index) || (index as number) < 0) {
    return fail("log_index is missing or not a non-negative integer");
  }
  if (!Number.isSafeInteger(size) || (size as number) < 1) {
    return fail("tree_size is missing or not a positive integer");
  }
  if (typeof leaf !== "string") {
    return fail("leaf is missing or not text");
  }
  if (!Array.isArray(hashes)) {
    return fail("hashes is missing or not an array");
  }
  if (typeof cp !== "string") {
    return fail("checkpoint is missing or not text");
  }
  const path = decodeHashes(hashes);
  if (typeof path === "string") {
    return fail(path);
  }
  const tree = verifyCheckpoint(cp, verifierKey);
  if (!tree.ok) {
    return fail(`checkpoint: ${tree.reason}`);
  }
  if (tree.size !== size) {
    return fail(`tree_size ${size} is not the checkpoint's size ${tree.size}`);
  }
  if ((index as number) >= tree.size) {
    return fail(`log_index ${index} is beyond the tree of size ${tree.size}`);
  }
  const root = rootFromInclusionProof(index as number, tree.size, leafHash(leaf), path);
  if (root === undefined) {
    return fail(`${path.length} hashes are not an audit path of index ${index} in a tree of size ${tree.size}`);
  }
  if (!equalBytes(root, tree.rootHash)) {
    return fail("the audit path does not lead to the checkpoint's root hash");
  }
  if (expected !== undefined) {
    const v = verifyLookup(expected.kind, expected.lookup);
    if (!v.ok) {
      return fail(`the lookup does not verify: ${v.reason}`);
    }
    const data = lookupDataOf(expected.lookup, expected.kind);
    const want = logLeaf(expected.kind, data);
    if (want !== leaf) {
      return fail(`the proof's leaf ${leaf} is not the lookup's leaf ${want}`);
    }
  }
  return { ok: true, origin: tree.origin, logIndex: index as number, treeSize: tree.size, rootHash: tree.rootHash, leaf };
}

// lookupDataOf finds the data of a lookup in the forms verifyLookup takes (it verified already).
function lookupDataOf(lookup: unknown, kind: LookupKind): Record<string, unknown> {
  let v = typeof lookup === "string" ? (JSON.parse(lookup) as unknown) : lookup;
  const obj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  if (!obj(v)) {
    throw new Error("the lookup is not an object");
  }
  const inner = Object.hasOwn(v, `${kind}_lookup_response`) ? v[`${kind}_lookup_response`] : undefined;
  if (obj(inner)) {
    v = inner;
  }
  const m = v as Record<string, unknown>;
  const d = Object.hasOwn(m, "data") ? m["data"] : undefined;
  return obj(d) ? d : m;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** What verifyCosignedCheckpoint found. */
export type CosignedCheckpointResult =
  | {
      ok: true;
      origin: string;
      size: number;
      rootHash: Uint8Array;
      /** The names of the given witnesses whose cosignatures verify. */
      witnesses: string[];
    }
  | { ok: false; reason: string };

interface WitnessKey {
  name: string;
  /** The key hash of the cosignature/v1 key (type 0x04). */
  hash: number;
  publicKey: Uint8Array;
}

// parseWitnessKey reads a witness's verifier key: "<name>+<hash>+<base64(0x04 || key)>" (a
// cosignature/v1 key), or an Ed25519 note key (0x01), which signs cosignatures under the
// cosignature/v1 key of the same public key (as transparency-dev/formats does).
function parseWitnessKey(vkey: string): WitnessKey | string {
  const text = vkey.trim();
  const parts = splitKey(text);
  if (parts === undefined) {
    return "a witness key is not <name>+<hash>+<key>";
  }
  const [name, hex] = parts;
  const key = decodeBase64(parts[2]);
  if (!isKeyName(name) || !/^[0-9a-f]{8}$/.test(hex)) {
    return `the witness key ${JSON.stringify(text)} has an invalid name or hash`;
  }
  if (key === undefined || key.length !== 33 || (key[0] !== 1 && key[0] !== 4)) {
    return `the witness key ${JSON.stringify(text)} is not an Ed25519 key (0x04 or 0x01 and 32 bytes, base64)`;
  }
  if (keyHash(name, key) !== parseInt(hex, 16)) {
    return `the witness key ${JSON.stringify(text)}: its hash does not match its name and key`;
  }
  const cosigKey = Uint8Array.of(4, ...key.slice(1));
  return { name, hash: keyHash(name, cosigKey), publicKey: key.slice(1) };
}

/**
 * Verifies a cosigned checkpoint (GET /svc/log/cosigned-checkpoint): the log's signature as
 * verifyCheckpoint checks it, and C2SP tlog-cosignature (cosignature/v1, Ed25519) lines of at
 * least `quorum` of the given witnesses (default: all of them). Each cosignature signs
 * `cosignature/v1\ntime <t>\n` and the checkpoint text. A line of a given witness that does not
 * verify fails the checkpoint; lines of other keys are ignored.
 *
 * @returns `{ok: true, origin, size, rootHash, witnesses}` or `{ok: false, reason}`; it never throws
 */
export function verifyCosignedCheckpoint(
  noteText: string,
  verifierKey: string,
  witnessKeys: readonly string[],
  quorum: number = witnessKeys.length,
): CosignedCheckpointResult {
  try {
    return cosigned(noteText, verifierKey, witnessKeys, quorum);
  } catch (e) {
    return { ok: false, reason: `cannot verify the cosigned checkpoint: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function cosigned(noteText: string, verifierKey: string, witnessKeys: readonly string[], quorum: number): CosignedCheckpointResult {
  const fail = (reason: string): CosignedCheckpointResult => ({ ok: false, reason });
  if (!Array.isArray(witnessKeys) || !Number.isInteger(quorum) || quorum < 1 || quorum > witnessKeys.length) {
    return fail(`the quorum ${quorum} is not between 1 and the ${witnessKeys.length} witness keys given`);
  }
  const cp = checkpoint(noteText, verifierKey);
  if (!cp.ok) {
    return cp;
  }
  const keys: WitnessKey[] = [];
  for (const k of witnessKeys) {
    const w = parseWitnessKey(k);
    if (typeof w === "string") {
      return fail(w);
    }
    keys.push(w);
  }
  const split = noteText.lastIndexOf("\n\n");
  const text = encoder.encode(noteText.slice(0, split + 1));
  const witnessed = new Set<string>();
  for (const line of noteText.slice(split + 2, -1).split("\n")) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line)!; // checkpoint() checked every line's form
    const sig = decodeBase64(m[2]!)!;
    const hash = ((sig[0]! << 24) | (sig[1]! << 16) | (sig[2]! << 8) | sig[3]!) >>> 0;
    const w = keys.find((k) => k.name === m[1] && k.hash === hash);
    if (w === undefined) {
      continue; // the log's signature, or another witness's
    }
    if (sig.length !== 4 + 8 + 64) {
      return fail(`the cosignature of ${w.name} is not a timestamp and an Ed25519 signature`);
    }
    let t = 0n;
    for (const b of sig.slice(4, 12)) {
      t = (t << 8n) | BigInt(b);
    }
    const head = encoder.encode(`cosignature/v1\ntime ${t}\n`);
    const msg = new Uint8Array(head.length + text.length);
    msg.set(head);
    msg.set(text, head.length);
    if (!ed.verify(sig.slice(12), msg, w.publicKey, { zip215: false })) {
      return fail(`the cosignature of ${w.name} does not verify`);
    }
    witnessed.add(w.name);
  }
  if (witnessed.size < quorum) {
    return fail(`${witnessed.size} of the given witnesses cosigned the checkpoint, ${quorum} needed`);
  }
  return { ok: true, origin: cp.origin, size: cp.size, rootHash: cp.rootHash, witnesses: [...witnessed].sort() };
}
