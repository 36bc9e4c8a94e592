// verifyDediFile(): the verification of a DeDi file ("Publishing DeDi Files"; the repository's
// docs/dedi-files.md), written independently of the Go verifier (package dedi, `svc dedi
// verify`) and ending with the same outcome words. Signatures are detached JWS (EdDSA, RFC
// 7797 unencoded payload) over the RFC 8785 canonical JSON of the document without `proof`.
// The shape checks are in dedishape.ts, the outcomes in dedioutcome.ts.

import canonicalize from "canonicalize";
import * as ed from "@noble/ed25519";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { Failure, fail, type DediOutcome, type Obj } from "./dedioutcome.js";
import { checkDigests, checkFile, checkManifest, isEd25519, time } from "./dedishape.js";

export type { DediOutcome } from "./dedioutcome.js";

// @noble/ed25519 needs a SHA-512 for its synchronous methods (its README).
ed.hashes.sha512 = sha512;

export interface DediVerifyResult {
  outcome: DediOutcome;
  /** Why, when the outcome is not `authentic`. */
  reason?: string;
  /** The manifest could not be had and `accepted.manifest` stood in for it. */
  cached?: boolean;
  /**
   * Where the digest the file's bytes met came from: `digests` (the digests document, which
   * takes precedence), `manifest` (its `files[].digest`) or `none` (no digest anywhere: the file
   * rests on its signature and domain binding). Absent for an inline file. On a `digest_mismatch`
   * whose digest came from the digests document, fetch that document again and verify once more
   * before refusing the file (the publisher may have updated between the two fetches).
   */
  digestFrom?: "digests" | "manifest" | "none";
}

export interface DediVerifyOptions {
  /** The time freshness is judged at; default the current time. */
  now?: Date;
  /**
   * The URL the manifest was fetched from; default `https://{its domain}/.well-known/dedi.index.json`
   * (the caller vouches that it came from there).
   */
  manifestUrl?: string;
  /** What was accepted before: a manifest or file older than this is a rollback. */
  accepted?: {
    /** The last accepted manifest (text, bytes or parsed); also stands in, while fresh, for a `null` manifest. */
    manifest?: string | Uint8Array | Record<string, unknown>;
    /** registry.updated_at of the last accepted copy of this file. */
    fileUpdatedAt?: string | Date;
    /** The last accepted digests document: an older one is `digests_rollback`; it stands in, while fresh, for a `null` `digests`. */
    digests?: string | Uint8Array | Record<string, unknown>;
  };
  /**
   * The digests document the manifest names in its `digests` member (text, bytes or parsed), as
   * received; null or absent when it could not be fetched (then `accepted.digests` stands in while
   * fresh, else a referenced file is `digests_unavailable`). Ignored when the manifest names none.
   */
  digests?: string | Uint8Array | Record<string, unknown> | null;
  /**
   * Step 7, records against the registry's schema. This SDK holds no JSON Schema validator:
   * give one (e.g. Ajv) that returns "" when `details` conform to `schema` and a reason when
   * not, or throws when a schema URL cannot be had (`schema_unavailable`). Without it the step
   * is skipped.
   */
  validateRecord?: (schema: unknown, details: Record<string, unknown>) => string;
}


/** The protected header of every DeDi signature, base64url. */
export const DEDI_PROTECTED_HEADER = "eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19";
const WELL_KNOWN = "/.well-known/dedi.index.json";
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Verifies a DeDi file against its publisher's manifest, in the steps of docs/dedi-files.md:
 * shape (`invalid`), signature by the embedded key (`bad_signature`), the manifest's
 * authenticity and its listing of the file's key, domain, namespace and registry
 * (`not_authenticated`) and digest (`digest_mismatch`), freshness of both (`stale`), registry
 * state (`inactive`), rollback against `options.accepted` (`rollback`) and, when
 * `options.validateRecord` is given, the records against the registry's schema.
 *
 * @param file the file as received: JSON text or bytes (needed for the digest), or the parsed
 *   object of a file the manifest embeds inline
 * @param manifest the manifest as received, or null when it could not be fetched (then
 *   `options.accepted.manifest` stands in while fresh, else `unavailable_authority`)
 * @returns the outcome; it never throws
 */
export function verifyDediFile(file: string | Uint8Array | Obj, manifest: string | Uint8Array | Obj | null, options: DediVerifyOptions = {}): DediVerifyResult {
  let cached = false;
  const from: { digestFrom?: "digests" | "manifest" | "none" } = {};
  try {
    const now = options.now ?? new Date();
    const fileBytes = typeof file === "object" && !(file instanceof Uint8Array) ? undefined : bytesOf(file, MAX_FILE_BYTES, "file");
    const f = checkFile(fileBytes === undefined ? file : parse(fileBytes, "file"));
    verifySignature(f, f["publisher"] as Obj, "bad_signature");
    let m: Obj;
    if (manifest === null) {
      const acc = options.accepted?.manifest;
      if (acc === undefined) return fail("unavailable_authority", "the manifest cannot be fetched and none was accepted before");
      m = checkManifest(acc instanceof Uint8Array || typeof acc === "string" ? parse(bytesOf(acc, MAX_MANIFEST_BYTES, "manifest"), "manifest") : acc);
      cached = true;
      if (now.getTime() > time(m["next_update"])) {
        return fail("unavailable_authority", `the manifest cannot be fetched and the accepted copy expired at ${m["next_update"]}`);
      }
    } else {
      m = authenticManifest(manifest, options.manifestUrl);
    }
    checkListed(f, fileBytes, m, () => digestsOf(m, options, now), from);
    for (const [what, d] of [["manifest", m], ["file", f]] as const) {
      if (now.getTime() > time(d["next_update"])) fail("stale", `the ${what} expired at ${d["next_update"]}`);
    }
    const reg = f["registry"] as Obj;
    if (reg["state"] !== "live") fail("inactive", `registry ${JSON.stringify(reg["name"])} is ${reg["state"]}`);
    const acc = options.accepted;
    if (!cached && acc?.manifest !== undefined) {
      const prev = checkManifest(acc.manifest instanceof Uint8Array || typeof acc.manifest === "string" ? parse(bytesOf(acc.manifest, MAX_MANIFEST_BYTES, "manifest"), "manifest") : acc.manifest);
      if (time(m["updated_at"]) < time(prev["updated_at"])) fail("rollback", `the manifest's updated_at ${m["updated_at"]} is older than the accepted ${prev["updated_at"]}`);
    }
    if (acc?.fileUpdatedAt !== undefined) {
      const prev = acc.fileUpdatedAt instanceof Date ? acc.fileUpdatedAt.getTime() : time(acc.fileUpdatedAt);
      if (time(reg["updated_at"]) < prev) fail("rollback", `the file's updated_at ${reg["updated_at"]} is older than the accepted one`);
    }
    if (options.validateRecord !== undefined) checkRecords(f, options.validateRecord);
    return { outcome: "authentic", ...(cached ? { cached } : {}), ...from };
  } catch (e) {
    if (e instanceof Failure) return { outcome: e.outcome, reason: e.message, ...(cached ? { cached } : {}), ...from };
    return { outcome: "invalid", reason: e instanceof Error ? e.message : String(e) };
  }
}

/** A digests document given as text, bytes or parsed, shape-checked (`digests_invalid`). */
function digestsDoc(v: string | Uint8Array | Obj): Obj {
  if (v instanceof Uint8Array || typeof v === "string") {
    const b = typeof v === "string" ? new TextEncoder().encode(v) : v;
    if (b.length > MAX_MANIFEST_BYTES) fail("digests_invalid", `the digests document is larger than ${MAX_MANIFEST_BYTES} bytes`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(b));
    } catch (e) {
      return fail("digests_invalid", `the digests document is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    return checkDigests(parsed);
  }
  return checkDigests(v);
}

/**
 * The digests document of the manifest m, checked: its domain is the manifest's, it is signed by
 * a key the manifest lists (`digests_not_authenticated`, `unsupported_key`), fresh
 * (`digests_stale`) and not older than the accepted one (`digests_rollback`); when it is not
 * given, the accepted one while fresh (`digests_unavailable` after). Undefined when m names none.
 */
function digestsOf(m: Obj, options: DediVerifyOptions, now: Date): Obj | undefined {
  if (typeof m["digests"] !== "string") return undefined;
  const acc = options.accepted?.digests;
  const accepted = acc === undefined ? undefined : digestsDoc(acc);
  let d: Obj;
  const given = options.digests;
  if (given === undefined || given === null) {
    if (accepted === undefined) return fail("digests_unavailable", `the manifest names the digests document ${m["digests"]}, which cannot be had, and none was accepted before`);
    if (now.getTime() > time(accepted["next_update"])) return fail("digests_unavailable", `the digests document ${m["digests"]} cannot be had and the accepted copy expired at ${accepted["next_update"]}`);
    d = accepted;
  } else {
    d = digestsDoc(given);
  }
  if (String(d["domain"]).toLowerCase() !== String(m["domain"]).toLowerCase()) {
    fail("digests_not_authenticated", `the digests document names domain ${d["domain"]}, the manifest ${m["domain"]}`);
  }
  const vm = (d["proof"] as Obj)["verification_method"];
  const signer = (m["keys"] as Obj[]).find((k) => k["kid"] === vm);
  if (signer === undefined) fail("digests_not_authenticated", `the digests document is signed by ${JSON.stringify(vm)}, which is not among the manifest's keys`);
  verifySignature(d, { key: signer }, "digests_not_authenticated");
  if (d === accepted) return d;
  if (now.getTime() > time(d["next_update"])) fail("digests_stale", `the digests document expired at ${d["next_update"]}`);
  if (accepted !== undefined && time(d["updated_at"]) < time(accepted["updated_at"])) {
    fail("digests_rollback", `the digests document's updated_at ${d["updated_at"]} is older than the accepted ${accepted["updated_at"]}`);
  }
  return d;
}

function bytesOf(v: string | Uint8Array, max: number, what: string): Uint8Array {
  const b = typeof v === "string" ? new TextEncoder().encode(v) : v;
  if (b.length > max) fail("invalid", `the ${what} is larger than ${max} bytes`);
  return b;
}

function parse(b: Uint8Array, what: string): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(b);
  } catch {
    return fail("invalid", `the ${what} is not UTF-8`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    return fail("invalid", `the ${what} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function authenticManifest(manifest: string | Uint8Array | Obj, manifestUrl: string | undefined): Obj {
  let m: Obj;
  try {
    m = checkManifest(manifest instanceof Uint8Array || typeof manifest === "string" ? parse(bytesOf(manifest, MAX_MANIFEST_BYTES, "manifest"), "manifest") : manifest);
  } catch (e) {
    return fail("not_authenticated", `the manifest is not valid: ${e instanceof Error ? e.message : String(e)}`);
  }
  const href = manifestUrl ?? `https://${m["domain"]}${WELL_KNOWN}`;
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return fail("not_authenticated", `the manifest URL ${href} is not a URL`);
  }
  if (u.protocol !== "https:" || u.pathname !== WELL_KNOWN || u.search !== "" || u.port !== "" || u.username !== "" || u.password !== "") {
    fail("not_authenticated", `the manifest did not come from a well-known URL (https://{domain}${WELL_KNOWN}): ${href}`);
  }
  if (u.hostname.toLowerCase() !== String(m["domain"]).toLowerCase()) fail("not_authenticated", `the manifest names domain ${m["domain"]} but was served by ${u.hostname}`);
  const proof = m["proof"] as Obj;
  const signer = (m["keys"] as Obj[]).find((k) => k["kid"] === proof["verification_method"]);
  if (signer === undefined) fail("not_authenticated", `the manifest is signed by ${JSON.stringify(proof["verification_method"])}, which is not among its keys`);
  verifySignature(m, { key: signer }, "not_authenticated");
  return m;
}

function checkListed(f: Obj, fileBytes: Uint8Array | undefined, m: Obj, digests: () => Obj | undefined, from: { digestFrom?: "digests" | "manifest" | "none" }): void {
  const pub = f["publisher"] as Obj;
  const key = pub["key"] as Obj;
  const domain = String(m["domain"]).toLowerCase();
  if (String(pub["domain"]).toLowerCase() !== domain) fail("not_authenticated", `the file's publisher domain ${pub["domain"]} is not the manifest's domain ${m["domain"]}`);
  if (String(f["namespace"]).toLowerCase() !== domain) fail("not_authenticated", `the file's namespace ${JSON.stringify(f["namespace"])} is not the manifest's domain ${m["domain"]}`);
  const sameKey = (k: Obj) => k["kid"] === key["kid"] && isEd25519(k) && bytesToHex(b64url(String(k["x"]))) === bytesToHex(b64url(String(key["x"])));
  if (!(m["keys"] as Obj[]).some(sameKey)) fail("not_authenticated", `the file's key ${JSON.stringify(key["kid"])} is not among the manifest's keys`);
  const name = (f["registry"] as Obj)["name"];
  const entry = (m["files"] as Obj[]).find((e) => (typeof e["url"] === "string" ? e["registry"] : (e["registry"] as Obj)["name"]) === name);
  if (entry === undefined) return fail("not_authenticated", `the manifest does not list registry ${JSON.stringify(name)}`);
  if (typeof entry["url"] === "string") {
    // The digests document's entry takes precedence over the manifest's own; none anywhere
    // leaves the file resting on its signature and domain binding.
    const d = digests();
    let commitment: unknown = entry["digest"];
    let where = "manifest";
    const listed = d === undefined ? undefined : (d["digests"] as Obj)[String(name)];
    if (listed !== undefined) [commitment, where] = [listed, "digests document"];
    from.digestFrom = listed !== undefined ? "digests" : commitment !== undefined ? "manifest" : "none";
    if (commitment === undefined) return;
    if (fileBytes === undefined) return fail("digest_mismatch", `the ${where} lists the file by digest: give the file's bytes`);
    const [alg, value] = String(commitment).split(/:(.*)/s) as [string, string];
    if (alg !== "sha-256") return fail("digest_mismatch", `the ${where} commits to the file by a ${alg} digest; this verifier checks sha-256 digests only`);
    const digest = "sha-256:" + bytesToHex(sha256(fileBytes));
    if (digest !== "sha-256:" + value.toLowerCase()) fail("digest_mismatch", `the file's digest is ${digest}, the ${where} lists ${commitment}`);
  } else if (canonicalize(entry) !== canonicalize(f)) {
    fail("digest_mismatch", `the file is not the manifest's inline copy of registry ${JSON.stringify(name)}`);
  }
}

function checkRecords(f: Obj, validate: (schema: unknown, details: Obj) => string): void {
  const schema = (f["registry"] as Obj)["schema"];
  (f["records"] as Obj[]).forEach((r, i) => {
    let problem: string;
    try {
      problem = validate(schema, r["details"] as Obj);
    } catch (e) {
      return fail("schema_unavailable", `the registry's schema: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (problem !== "") fail("invalid", `record ${JSON.stringify(r["record_name"])} (/records/${i}): ${problem}`);
  });
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Decodes unpadded base64url; it throws on other text. */
function b64url(s: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new Failure("bad_signature", `${JSON.stringify(s.slice(0, 40))} is not base64url`);
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let n = 0;
  for (const c of s) {
    acc = (acc << 6) | B64URL.indexOf(c);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/** Verifies doc's detached JWS with holder.key; a failure is `outcome` (`unsupported_key` for a key that is not Ed25519). */
function verifySignature(doc: Obj, holder: Obj, outcome: DediOutcome): void {
  const key = holder["key"] as Obj;
  if (!isEd25519(key)) fail("unsupported_key", `key ${JSON.stringify(key["kid"])} is of type ${key["kty"]}${key["crv"] ? "/" + key["crv"] : ""}: this verifier checks Ed25519 signatures only`);
  const jws = String((doc["proof"] as Obj)["jws"]);
  const parts = jws.split(".");
  if (parts.length !== 3 || parts[1] !== "") fail(outcome, "the jws is not a detached JWS (header..signature)");
  const [header, , sigText] = parts as [string, string, string];
  if (header !== DEDI_PROTECTED_HEADER) {
    let h: unknown;
    try {
      h = JSON.parse(new TextDecoder().decode(b64url(header)));
    } catch {
      fail(outcome, "the jws header is not base64url JSON");
    }
    const o = h as Obj;
    const crit = o?.["crit"];
    if (typeof o !== "object" || o === null || Object.keys(o).length !== 3 || o["alg"] !== "EdDSA" || o["b64"] !== false ||
      !Array.isArray(crit) || crit.length !== 1 || crit[0] !== "b64") {
      fail(outcome, 'the jws header is not {"alg":"EdDSA","b64":false,"crit":["b64"]}');
    }
  }
  const body: Obj = {};
  for (const [k, v] of Object.entries(doc)) if (k !== "proof") body[k] = v;
  const canon = canonicalize(body);
  if (canon === undefined) return fail(outcome, "the document cannot be canonicalized");
  const input = new TextEncoder().encode(`${header}.${canon}`);
  let ok = false;
  try {
    const sig = b64url(sigText);
    const pub = b64url(String(key["x"]));
    ok = sig.length === 64 && pub.length === 32 && ed.verify(sig, input, pub);
  } catch {
    ok = false;
  }
  if (!ok) fail(outcome, `the signature does not verify with key ${JSON.stringify(key["kid"])}`);
}
