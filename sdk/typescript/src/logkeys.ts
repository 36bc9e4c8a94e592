// The key-change leaves of the transparency log (docs/transparency-log.md, kind "dedi-keys"): a
// DeDi publisher's key set as the service accepted it, logged whenever it differs from the last
// one logged. A monitor reads them from the log's entry bundles; an inclusion proof of one is
// checked with verifyInclusion (log.ts) like any other leaf.

import canonicalize from "canonicalize";
import { digestOf } from "./verify.js";

/** A public key of a DeDi manifest: its kid and the public members of its JWK. */
export interface DediKey {
  kid: string;
  kty: string;
  crv: string;
  x: string;
}

/** The members of a key-change leaf. */
export interface KeyChangeLeaf {
  kind: "dedi-keys";
  domain: string;
  /** By kid (the bytes of its UTF-8), then x. */
  keys: DediKey[];
  /** The manifest's updated_at, as toISOString() writes it. */
  updated_at: string;
  /** BLAKE2b-256 of the key set's canonical text (keySetDigest). */
  digest: string;
}

const utf8 = new TextEncoder();

function compareBytes(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i]! - y[i]!;
  }
  return x.length - y.length;
}

/** The keys in the leaf's order (by kid, then x), each with only its public members. */
export function sortDediKeys(keys: readonly DediKey[]): DediKey[] {
  return [...keys]
    .sort((a, b) => compareBytes(a.kid, b.kid) || compareBytes(a.x, b.x))
    .map((k) => ({ kid: k.kid, kty: k.kty, crv: k.crv, x: k.x }));
}

/** The digest of a key set: `0x` + hex of BLAKE2b-256 of RFC 8785 {domain, keys, updated_at}. */
export function keySetDigest(domain: string, keys: readonly DediKey[], updatedAt: string): string {
  return digestOf({ domain, keys: sortDediKeys(keys), updated_at: updatedAt });
}

/** The leaf text the service logs for a key set: RFC 8785 of {kind, domain, keys, updated_at, digest}. */
export function keyChangeLeaf(domain: string, keys: readonly DediKey[], updatedAt: string): string {
  const text = canonicalize({
    kind: "dedi-keys",
    domain,
    keys: sortDediKeys(keys),
    updated_at: updatedAt,
    digest: keySetDigest(domain, keys, updatedAt),
  });
  if (text === undefined) {
    throw new Error("the key set has no JSON form");
  }
  return text;
}

const isText = (v: unknown): v is string => typeof v === "string" && v !== "";

/**
 * Parses a key-change leaf: exactly its members, a domain, updated_at, at least one key (each
 * exactly kid, kty, crv and x, with a kid and an x), no kid twice, the digest that of its key
 * set, and the text byte for byte as keyChangeLeaf writes it.
 * @returns the leaf's members, or undefined when the text is not a key-change leaf.
 */
export function parseKeyChangeLeaf(text: string): KeyChangeLeaf | undefined {
  const l = keyChangeLeafForm(text);
  return l !== undefined && keySetDigest(l.domain, l.keys, l.updated_at) === l.digest ? l : undefined;
}

/**
 * The form of a key-change leaf, as the Go parser (translog/leaf.ParseKeys) and the state
 * index's map function check it: all that parseKeyChangeLeaf checks but the digest, which
 * must only be present (the text byte for byte as keyChangeLeaf writes it with that digest).
 */
export function keyChangeLeafForm(text: string): KeyChangeLeaf | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const m = v as Record<string, unknown>;
  const members = ["digest", "domain", "keys", "kind", "updated_at"];
  if (m["kind"] !== "dedi-keys" || Object.keys(m).length !== members.length || !members.every((k) => k in m)) return undefined;
  const { domain, keys, updated_at: updatedAt } = m;
  if (!isText(domain) || !isText(updatedAt) || !Array.isArray(keys) || keys.length === 0) return undefined;
  for (const k of keys as unknown[]) {
    if (typeof k !== "object" || k === null || Object.keys(k).length !== 4) return undefined;
    const key = k as Record<string, unknown>;
    if (!isText(key["kid"]) || !isText(key["x"]) || typeof key["kty"] !== "string" || typeof key["crv"] !== "string") return undefined;
  }
  const ks = keys as DediKey[];
  for (let i = 1; i < ks.length; i++) if (ks[i - 1]!.kid === ks[i]!.kid) return undefined;
  if (!isText(m["digest"]) || canonicalize({ kind: "dedi-keys", domain, keys: sortDediKeys(ks), updated_at: updatedAt, digest: m["digest"] }) !== text) return undefined;
  return m as unknown as KeyChangeLeaf;
}
