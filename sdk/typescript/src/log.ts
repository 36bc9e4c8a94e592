// Offline verification of the transparency log's proofs (docs/transparency-log.md): inclusion
// proofs (RFC 6962 / RFC 9162 audit paths over SHA-256), as GET /svc/log/inclusion/{version}
// serves them, the leaf a lookup is logged as, and consistency proofs between two checkpoints
// (GET /svc/log/consistency). The signed checkpoints are in checkpoint.ts, the tree hashes in
// merkle.ts; this module exports them too.

import canonicalize from "canonicalize";
import { verifyLookup, type LookupKind } from "./verify.js";
import { decodeBase64, verifyCheckpoint } from "./checkpoint.js";
import { equalBytes, leafHash, verifyConsistencyProof, rootFromInclusionProof } from "./merkle.js";

export { verifyCheckpoint, verifyCosignedCheckpoint } from "./checkpoint.js";
export type { CheckpointResult, CosignedCheckpointResult } from "./checkpoint.js";
export { leafHash, nodeHash, rootFromInclusionProof, verifyConsistencyProof } from "./merkle.js";

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
export function lookupDataOf(lookup: unknown, kind: LookupKind): Record<string, unknown> {
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
