// The shape of DeDi files, manifests and digests documents: the JSON Schemas of
// docs/dedi-files.md, checked by hand (a failure is `invalid`, or `digests_invalid` for a
// digests document), and their timestamps.

import { fail, type DediOutcome, type Obj } from "./dedioutcome.js";

export function time(v: unknown): number {
  return Date.parse(String(v));
}


const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
/** An absolute URI (a source_url, a file's or a schema's URL): information, or fetched only over https. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;
/** A 0.x version of the format: read by the rules of 0.1. */
const VERSION = /^0\.[0-9]+(?:\.[0-9]+)*$/;
const DIGEST = /^[a-z0-9-]+:\S+$/;
/** The members of a private JWK (RFC 7518): refused in a public key. */
const PRIVATE = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

let failWith: DediOutcome = "invalid";

function shape(ok: boolean, where: string, what: string): void {
  if (!ok) fail(failWith, `at ${where}: ${what}`);
}

function only(o: Obj, where: string, allowed: string[]): void {
  for (const k of Object.keys(o)) shape(allowed.includes(k), where, `member ${JSON.stringify(k)} is not allowed`);
}

function str(o: Obj, k: string, where: string, re?: RegExp, min = 0, max = Infinity): void {
  const v = o[k];
  const n = typeof v === "string" ? [...v].length : -1;
  shape(typeof v === "string" && n >= min && n <= max && (re === undefined || re.test(v)), `${where}/${k}`, "wrong type or form");
}

/** An Ed25519 JWK, the one type this SDK checks signatures with. */
export const isEd25519 = (k: Obj): boolean => k["kty"] === "OKP" && k["crv"] === "Ed25519";

/** A public JWK of any type; an Ed25519 one is checked whole. */
function checkKey(k: unknown, where: string): void {
  shape(isObj(k), where, "not an object");
  const o = k as Obj;
  str(o, "kid", where, undefined, 1, 256);
  str(o, "kty", where, undefined, 1);
  if (isEd25519(o)) str(o, "x", where, /^[A-Za-z0-9_-]{43}$/);
  shape(!PRIVATE.some((m) => m in o), where, "a private key");
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

export function checkFile(v: unknown, where = ""): Obj {
  shape(isObj(v), where || "the top level", "not an object");
  const f = v as Obj;
  only(f, where, ["dedi_version", "type", "source_url", "next_update", "publisher", "namespace", "registry", "records", "proof"]);
  for (const k of ["dedi_version", "type", "source_url", "next_update", "publisher", "namespace", "registry", "records", "proof"]) {
    shape(k in f, where || "the top level", `missing ${k}`);
  }
  str(f, "dedi_version", where, VERSION);
  shape(f["type"] === "dedi-file", `${where}/type`, 'not "dedi-file"');
  str(f, "source_url", where, URI, 0, 2048);
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
  shape(isObj(reg["schema"]) || (typeof reg["schema"] === "string" && URI.test(reg["schema"]) && reg["schema"].length <= 2048), `${where}/registry/schema`, "neither a URL nor an object");
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

export function checkManifest(v: unknown): Obj {
  failWith = "invalid";
  shape(isObj(v), "the top level", "not an object");
  const m = v as Obj;
  only(m, "", ["dedi_version", "type", "domain", "name", "description", "keys", "updated_at", "next_update", "digests", "files", "proof"]);
  for (const k of ["dedi_version", "domain", "keys", "updated_at", "next_update", "files", "proof"]) shape(k in m, "the top level", `missing ${k}`);
  str(m, "dedi_version", "", VERSION);
  if ("digests" in m) str(m, "digests", "", URI, 0, 2048);
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
      str(o, "url", at, URI, 0, 2048);
      if ("digest" in o) str(o, "digest", at, DIGEST, 0, 1024);
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

/** Checks a digests document's shape; a failure is `digests_invalid`. */
export function checkDigests(v: unknown): Obj {
  failWith = "digests_invalid";
  try {
    shape(isObj(v), "the top level", "not an object");
    const d = v as Obj;
    const members = ["dedi_version", "type", "domain", "updated_at", "next_update", "digests", "proof"];
    only(d, "", members);
    for (const k of members) shape(k in d, "the top level", `missing ${k}`);
    str(d, "dedi_version", "", VERSION);
    shape(d["type"] === "dedi-digests", "/type", 'not "dedi-digests"');
    str(d, "domain", "", DOMAIN, 0, 253);
    checkTime(d, "updated_at", "");
    checkTime(d, "next_update", "");
    shape(isObj(d["digests"]) && Object.keys(d["digests"] as Obj).length <= 10000, "/digests", "not an object of at most 10000 members");
    for (const [name, dg] of Object.entries(d["digests"] as Obj)) {
      shape([...name].length >= 1 && [...name].length <= 1024, "/digests", `registry name ${JSON.stringify(name.slice(0, 40))}`);
      shape(typeof dg === "string" && dg.length <= 1024 && DIGEST.test(dg), `/digests/${name}`, "not a digest");
    }
    checkProof(d["proof"], "/proof");
    return d;
  } finally {
    failWith = "invalid";
  }
}
