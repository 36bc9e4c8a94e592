// verifyDediFile(): the verification of a DeDi file ("Publishing DeDi Files"; the repository's
// docs/dedi-files.md), written independently of the Go verifier (package dedi, `svc dedi
// verify`) and ending with the same outcome words. Signatures are detached JWS (EdDSA, RFC
// 7797 unencoded payload) over the RFC 8785 canonical JSON of the document without `proof`.

import canonicalize from "canonicalize";
import * as ed from "@noble/ed25519";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

// @noble/ed25519 needs a SHA-512 for its synchronous methods (its README).
ed.hashes.sha512 = sha512;

/** The outcome of a verification: `authentic`, or the step that failed. */
export type DediOutcome =
  | "authentic"
  | "invalid"
  | "bad_signature"
  | "not_authenticated"
  | "digest_mismatch"
  | "stale"
  | "inactive"
  | "rollback"
  | "schema_unavailable"
  | "unavailable_authority";

export interface DediVerifyResult {
  outcome: DediOutcome;
  /** Why, when the outcome is not `authentic`. */
  reason?: string;
  /** The manifest could not be had and `accepted.manifest` stood in for it. */
  cached?: boolean;
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
  };
  /**
   * Step 7, records against the registry's schema. This SDK holds no JSON Schema validator:
   * give one (e.g. Ajv) that returns "" when `details` conform to `schema` and a reason when
   * not, or throws when a schema URL cannot be had (`schema_unavailable`). Without it the step
   * is skipped.
   */
  validateRecord?: (schema: unknown, details: Record<string, unknown>) => string;
}

type Obj = Record<string, unknown>;

class Failure extends Error {
  constructor(readonly outcome: DediOutcome, reason: string) {
    super(reason);
  }
}

const fail = (outcome: DediOutcome, reason: string): never => {
  throw new Failure(outcome, reason);
};

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
    checkListed(f, fileBytes, m);
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
    return cached ? { outcome: "authentic", cached } : { outcome: "authentic" };
  } catch (e) {
    if (e instanceof Failure) return cached ? { outcome: e.outcome, reason: e.message, cached } : { outcome: e.outcome, reason: e.message };
    return { outcome: "invalid", reason: e instanceof Error ? e.message : String(e) };
  }
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

function time(v: unknown): number {
  return Date.parse(String(v));
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
  if (u.hostname !== m["domain"]) fail("not_authenticated", `the manifest names domain ${m["domain"]} but was served by ${u.hostname}`);
  const proof = m["proof"] as Obj;
  const signer = (m["keys"] as Obj[]).find((k) => k["kid"] === proof["verification_method"]);
  if (signer === undefined) fail("not_authenticated", `the manifest is signed by ${JSON.stringify(proof["verification_method"])}, which is not among its keys`);
  verifySignature(m, { key: signer }, "not_authenticated");
  return m;
}

function checkListed(f: Obj, fileBytes: Uint8Array | undefined, m: Obj): void {
  const pub = f["publisher"] as Obj;
  const key = pub["key"] as Obj;
  if (pub["domain"] !== m["domain"]) fail("not_authenticated", `the file's publisher domain ${pub["domain"]} is not the manifest's domain ${m["domain"]}`);
  if (f["namespace"] !== m["domain"]) fail("not_authenticated", `the file's namespace ${JSON.stringify(f["namespace"])} is not the manifest's domain ${m["domain"]}`);
  const sameKey = (k: Obj) => k["kid"] === key["kid"] && bytesToHex(b64url(String(k["x"]))) === bytesToHex(b64url(String(key["x"])));
  if (!(m["keys"] as Obj[]).some(sameKey)) fail("not_authenticated", `the file's key ${JSON.stringify(key["kid"])} is not among the manifest's keys`);
  const name = (f["registry"] as Obj)["name"];
  const entry = (m["files"] as Obj[]).find((e) => (typeof e["url"] === "string" ? e["registry"] : (e["registry"] as Obj)["name"]) === name);
  if (entry === undefined) return fail("not_authenticated", `the manifest does not list registry ${JSON.stringify(name)}`);
  if (typeof entry["url"] === "string") {
    if (fileBytes === undefined) return fail("digest_mismatch", "the manifest lists the file by digest: give the file's bytes");
    const digest = "sha-256:" + bytesToHex(sha256(fileBytes));
    if (digest !== entry["digest"]) fail("digest_mismatch", `the file's digest is ${digest}, the manifest lists ${entry["digest"]}`);
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

/** Verifies doc's detached JWS with holder.key; a failure is `outcome`. */
function verifySignature(doc: Obj, holder: Obj, outcome: DediOutcome): void {
  const key = holder["key"] as Obj;
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

// ---- shape: the JSON Schemas of docs/dedi-files.md, checked by hand ----

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const HTTPS = /^https:\/\/[^\s]+$/;

function shape(ok: boolean, where: string, what: string): void {
  if (!ok) fail("invalid", `at ${where}: ${what}`);
}

function only(o: Obj, where: string, allowed: string[]): void {
  for (const k of Object.keys(o)) shape(allowed.includes(k), where, `member ${JSON.stringify(k)} is not allowed`);
}

function str(o: Obj, k: string, where: string, re?: RegExp, min = 0, max = Infinity): void {
  const v = o[k];
  const n = typeof v === "string" ? [...v].length : -1;
  shape(typeof v === "string" && n >= min && n <= max && (re === undefined || re.test(v)), `${where}/${k}`, "wrong type or form");
}

function checkKey(k: unknown, where: string): void {
  shape(isObj(k), where, "not an object");
  const o = k as Obj;
  str(o, "kid", where, undefined, 1, 256);
  shape(o["kty"] === "OKP" && o["crv"] === "Ed25519", where, "not an Ed25519 JWK");
  str(o, "x", where, /^[A-Za-z0-9_-]{43}$/);
  shape(!("d" in o), where, "a private key");
}

function checkProof(p: unknown, where: string): void {
  shape(isObj(p), where, "not an object");
  const o = p as Obj;
  only(o, where, ["verification_method", "canonicalization", "jws"]);
  str(o, "verification_method", where, undefined, 1, 256);
  shape(o["canonicalization"] === "JCS", `${where}/canonicalization`, 'not "JCS"');
  str(o, "jws", where, /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
}

function checkTime(o: Obj, k: string, where: string): void {
  str(o, k, where, TIMESTAMP);
  shape(!Number.isNaN(time(o[k])), `${where}/${k}`, "not a time");
}

function checkFile(v: unknown, where = ""): Obj {
  shape(isObj(v), where || "the top level", "not an object");
  const f = v as Obj;
  only(f, where, ["dedi_version", "type", "source_url", "next_update", "publisher", "namespace", "registry", "records", "proof"]);
  for (const k of ["dedi_version", "type", "source_url", "next_update", "publisher", "namespace", "registry", "records", "proof"]) {
    shape(k in f, where || "the top level", `missing ${k}`);
  }
  shape(f["dedi_version"] === "0.1", `${where}/dedi_version`, 'not "0.1"');
  shape(f["type"] === "dedi-file", `${where}/type`, 'not "dedi-file"');
  str(f, "source_url", where, HTTPS, 0, 2048);
  checkTime(f, "next_update", where);
  shape(isObj(f["publisher"]), `${where}/publisher`, "not an object");
  const pub = f["publisher"] as Obj;
  only(pub, `${where}/publisher`, ["domain", "key"]);
  str(pub, "domain", `${where}/publisher`, DOMAIN, 0, 253);
  checkKey(pub["key"], `${where}/publisher/key`);
  str(f, "namespace", where, undefined, 1, 253);
  shape(isObj(f["registry"]), `${where}/registry`, "not an object");
  const reg = f["registry"] as Obj;
  only(reg, `${where}/registry`, ["name", "schema", "state", "updated_at", "description", "meta"]);
  str(reg, "name", `${where}/registry`, undefined, 1, 1024);
  shape(isObj(reg["schema"]) || (typeof reg["schema"] === "string" && HTTPS.test(reg["schema"])), `${where}/registry/schema`, "neither an https URL nor an object");
  shape(reg["state"] === "live" || reg["state"] === "inactive", `${where}/registry/state`, "not live or inactive");
  checkTime(reg, "updated_at", `${where}/registry`);
  if ("description" in reg) str(reg, "description", `${where}/registry`);
  if ("meta" in reg) shape(isObj(reg["meta"]), `${where}/registry/meta`, "not an object");
  shape(Array.isArray(f["records"]), `${where}/records`, "not an array");
  const names = new Set<string>();
  (f["records"] as unknown[]).forEach((r, i) => {
    const at = `${where}/records/${i}`;
    shape(isObj(r), at, "not an object");
    const o = r as Obj;
    only(o, at, ["record_name", "details", "description", "meta"]);
    str(o, "record_name", at, undefined, 1, 1024);
    shape(isObj(o["details"]), `${at}/details`, "not an object");
    if ("description" in o) str(o, "description", at);
    if ("meta" in o) shape(isObj(o["meta"]), `${at}/meta`, "not an object");
    const name = o["record_name"] as string;
    if (names.has(name)) fail("invalid", `record name ${JSON.stringify(name)} appears more than once (at ${at})`);
    names.add(name);
  });
  checkProof(f["proof"], `${where}/proof`);
  if ((f["proof"] as Obj)["verification_method"] !== (pub["key"] as Obj)["kid"]) {
    fail("invalid", "proof.verification_method does not name publisher.key");
  }
  return f;
}

function checkManifest(v: unknown): Obj {
  shape(isObj(v), "the top level", "not an object");
  const m = v as Obj;
  only(m, "", ["dedi_version", "type", "domain", "name", "description", "keys", "updated_at", "next_update", "files", "proof"]);
  for (const k of ["dedi_version", "domain", "keys", "updated_at", "next_update", "files", "proof"]) shape(k in m, "the top level", `missing ${k}`);
  shape(m["dedi_version"] === "0.1", "/dedi_version", 'not "0.1"');
  if ("type" in m) shape(m["type"] === "dedi-manifest", "/type", 'not "dedi-manifest"');
  str(m, "domain", "", DOMAIN, 0, 253);
  if ("name" in m) str(m, "name", "");
  if ("description" in m) str(m, "description", "");
  shape(Array.isArray(m["keys"]) && m["keys"].length >= 1 && m["keys"].length <= 64, "/keys", "not 1 to 64 keys");
  const kids = new Set<unknown>();
  (m["keys"] as unknown[]).forEach((k, i) => {
    checkKey(k, `/keys/${i}`);
    shape(!kids.has((k as Obj)["kid"]), `/keys/${i}`, "a kid listed twice");
    kids.add((k as Obj)["kid"]);
  });
  checkTime(m, "updated_at", "");
  checkTime(m, "next_update", "");
  shape(Array.isArray(m["files"]) && m["files"].length <= 10000, "/files", "not an array of at most 10000 entries");
  const registries = new Set<unknown>();
  (m["files"] as unknown[]).forEach((e, i) => {
    const at = `/files/${i}`;
    shape(isObj(e), at, "not an object");
    const o = e as Obj;
    let name: unknown;
    if ("url" in o) {
      only(o, at, ["registry", "url", "digest", "schema", "state"]);
      str(o, "registry", at, undefined, 1, 1024);
      str(o, "url", at, HTTPS, 0, 2048);
      str(o, "digest", at, /^sha-256:[0-9a-f]{64}$/);
      name = o["registry"];
    } else {
      checkFile(o, at);
      name = (o["registry"] as Obj)["name"];
    }
    shape(!registries.has(name), at, `registry ${JSON.stringify(name)} is listed more than once`);
    registries.add(name);
  });
  checkProof(m["proof"], "/proof");
  return m;
}
