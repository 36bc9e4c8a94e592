// Offline verification of lookup responses: the digest of an entry recomputed from the data of
// its lookup, exactly as the service computes it (Go: proof/fields.go, proof/lookup.go) and as
// `svc verify` checks a saved lookup (cmd/svc/verify.go). The reasons of failure are worded as
// the Go verifier words them.

import canonicalize from "canonicalize";
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** The three kinds of entries of the directory. */
export type LookupKind = "namespace" | "registry" | "record";

/** The first proof-type year a verifier accepts. */
export const FIRST_PROOF_YEAR = 2025;

/** The nesting depth of objects and arrays that the service's strict JSON reader admits. */
export const MAX_DEPTH = 256;

/** What verifyLookup found. */
export type VerifyResult =
  | {
      ok: true;
      kind: LookupKind;
      /** namespace_id, registry_id or record_id of the entry. */
      id: string;
      version: string;
      /** The digest, recomputed, equal to proof.digest. */
      digest: string;
    }
  | {
      ok: false;
      kind: LookupKind;
      /** The first check that failed, worded as `svc verify` words it. */
      reason: string;
    };

export interface VerifyOptions {
  /**
   * The time of the check: proof types from 2025 up to its UTC year are accepted. Defaults to
   * the current time.
   */
  now?: Date;
}

type JSONObject = { [key: string]: unknown };

const typePrefixes: Record<LookupKind, string> = {
  namespace: "SvcNamespaceProof",
  registry: "SvcRegistryProof",
  record: "SvcRecordProof",
};

const idFields: Record<LookupKind, string> = {
  namespace: "namespace_id",
  registry: "registry_id",
  record: "record_id",
};

const digestForm = /^0x[0-9a-f]{64}$/;

/**
 * Recomputes the digest of a lookup response and checks its proof, offline, trusting nothing
 * but the response itself. It runs the checks of `svc verify`, in the same order:
 *
 * - `proof` is an object; `proof.type` is `Svc<Kind>Proof<YYYY>` for this kind, with a year from
 *   2025 up to the current UTC year;
 * - `proof.digest` is `0x` + 64 lowercase hex digits and equals `data.digest` when present;
 * - `proof.namespace_did`, `proof.registry_identifier` and `proof.record_identifier` match
 *   the data's identifiers (as the kind has them);
 * - the digest recomputed from the kind's digest fields (RFC 8785 canonical JSON, BLAKE2b-256,
 *   `0x` + lowercase hex; `genesis` in either its timestamp or its hex form) equals
 *   `proof.digest`.
 *
 * It does not ask the directory whether it stored that digest (the verify-*-lookup operations
 * of the service do).
 *
 * @param kind the kind of entry looked up
 * @param lookupResponse the response body of a lookup (`{message, data}`), the body of a
 *   verify-*-lookup request (`{<kind>_lookup_response: {message, data}}`), the `data` alone, or
 *   any of these as JSON text
 * @returns `{ok: true, ...}` or `{ok: false, reason}`; it never throws
 */
export function verifyLookup(kind: LookupKind, lookupResponse: unknown, options: VerifyOptions = {}): VerifyResult {
  if (!Object.hasOwn(typePrefixes, kind)) {
    throw new TypeError(`verifyLookup: kind must be "namespace", "registry" or "record", not ${JSON.stringify(kind)}`);
  }
  const fail = (reason: string): VerifyResult => ({ ok: false, kind, reason });
  try {
    return verify(kind, lookupResponse, options, fail);
  } catch (e) {
    // Only a value that no JSON text gives can get here (a getter that throws, a proxy).
    return fail(`cannot verify: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function verify(kind: LookupKind, lookupResponse: unknown, options: VerifyOptions, fail: (reason: string) => VerifyResult): VerifyResult {
  let value = lookupResponse;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch (e) {
      return fail(`invalid JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const problem = checkJSON(value);
  if (problem !== "") {
    return fail(problem);
  }
  const data = lookupData(value, kind);
  if (data === undefined) {
    return fail("the input holds no lookup data (want {\"message\":…, \"data\":{…}})");
  }
  const maxYear = (options.now ?? new Date()).getUTCFullYear();
  const reason = checkLookup(kind, data, maxYear);
  if (reason !== "") {
    return fail(reason);
  }
  const proof = data["proof"] as JSONObject;
  return { ok: true, kind, id: str(data, idFields[kind]), version: str(data, "version"), digest: str(proof, "digest") };
}

/**
 * Recomputes the digest of lookup data (the `data` of a lookup response) from the kind's
 * digest fields, without checking the proof. It throws an Error naming the first field that is
 * missing or of the wrong type.
 */
export function recomputeDigest(kind: LookupKind, data: Record<string, unknown>): string {
  const problem = checkJSON(data);
  if (problem !== "") {
    throw new Error(problem);
  }
  const r = new FieldReader(data);
  const fields = digestFields(kind, r);
  if (r.err !== "") {
    throw new Error(r.err);
  }
  return digestOf(fields);
}

/** `0x` + lowercase hex of BLAKE2b-256 over the RFC 8785 canonical JSON text of value. */
export function digestOf(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) {
    throw new Error("the value has no JSON form");
  }
  return "0x" + bytesToHex(blake2b(new TextEncoder().encode(text), { dkLen: 32 }));
}

/** The proof type name of a kind of entry made in a UTC year, e.g. SvcRecordProof2026. */
export function proofType(kind: LookupKind, year: number): string {
  if (!Number.isInteger(year) || year < 0 || year > 9999) {
    throw new RangeError(`proofType: year ${year} is not 0..9999`);
  }
  return typePrefixes[kind] + String(year).padStart(4, "0");
}

/**
 * The namespace lookup form of genesis: `0x` + lowercase hex of the UTF-8 bytes of the
 * timestamp string.
 */
export function genesisHex(timestamp: string): string {
  return "0x" + bytesToHex(new TextEncoder().encode(timestamp));
}

// lookupData finds the data of a lookup as `svc verify` does: {message, data}, the verify
// request form {<kind>_lookup_response: {message, data}}, or the data itself.
function lookupData(v: unknown, kind: LookupKind): JSONObject | undefined {
  if (!isObject(v)) {
    return undefined;
  }
  let m = v;
  const inner = own(m, `${kind}_lookup_response`);
  if (isObject(inner)) {
    m = inner;
  }
  const d = own(m, "data");
  if (isObject(d)) {
    return d;
  }
  if (Object.hasOwn(m, "proof")) {
    return m;
  }
  return undefined;
}

// checkLookup mirrors proof.CheckLookup: it returns the first failure, or "".
function checkLookup(kind: LookupKind, data: JSONObject, maxYear: number): string {
  const p = own(data, "proof");
  if (!isObject(p)) {
    return "data.proof is missing or not an object";
  }
  const ptype = str(p, "type");
  const parsed = parseProofType(ptype);
  if (typeof parsed === "string") {
    return `proof.type: ${parsed}`;
  }
  if (parsed.kind !== kind) {
    return `proof.type ${ptype} is a ${parsed.kind} proof, not a ${kind} proof`;
  }
  if (parsed.year < FIRST_PROOF_YEAR || parsed.year > maxYear) {
    return `proof.type ${ptype} has a year outside ${FIRST_PROOF_YEAR}..${maxYear}`;
  }
  const claimed = str(p, "digest");
  if (!digestForm.test(claimed)) {
    return "proof.digest is missing or not 0x + 64 hex digits";
  }
  if (Object.hasOwn(data, "digest") && data["digest"] !== claimed) {
    return "data.digest differs from proof.digest";
  }
  if (str(p, "namespace_did") !== str(data, "namespace_id")) {
    return "proof.namespace_did differs from data.namespace_id";
  }
  if (kind !== "namespace" && str(p, "registry_identifier") !== str(data, "registry_id")) {
    return "proof.registry_identifier differs from data.registry_id";
  }
  if (kind === "record" && str(p, "record_identifier") !== str(data, "record_id")) {
    return "proof.record_identifier differs from data.record_id";
  }
  const r = new FieldReader(data);
  const fields = digestFields(kind, r);
  if (r.err !== "") {
    return r.err;
  }
  const computed = digestOf(fields);
  if (computed !== claimed) {
    return `recomputed digest ${computed} differs from proof.digest ${claimed}`;
  }
  return "";
}

// digestFields builds the digest input of a kind: an object with exactly its digest fields,
// read in the order the Go verifier reads them (so the first problem reported is the same). A
// namespace's state is one only when it is not live (a tombstone's deleted): absent, "" and
// live leave it out, so that live versions digest as they did before namespaces had a state.
function digestFields(kind: LookupKind, r: FieldReader): JSONObject {
  switch (kind) {
    case "namespace": {
      const fields: JSONObject = {
        namespace_id: r.str("namespace_id"),
        description: r.str("description"),
        genesis: r.genesis(),
        created_by: r.str("created_by"),
        version: r.str("version"),
        version_count: r.integer("version_count"),
      };
      const state = r.optionalStr("state");
      if (state !== "" && state !== "live") {
        fields["state"] = state;
      }
      return fields;
    }
    case "registry":
      return {
        namespace_id: r.str("namespace_id"),
        registry_name: r.str("registry_name"),
        description: r.str("description"),
        schema: r.object("schema"),
        tag: r.str("tag"),
        version: r.str("version"),
        version_count: r.integer("version_count"),
        state: r.str("state"),
        genesis: r.genesis(),
        created_by: r.str("created_by"),
        meta: r.object("meta"),
        ttl: r.integer("ttl"),
      };
    case "record":
      return {
        namespace_id: r.str("namespace_id"),
        registry_id: r.str("registry_id"),
        registry_name: r.str("registry_name"),
        record_name: r.str("record_name"),
        description: r.str("description"),
        details: r.object("details"),
        version: r.str("version"),
        version_count: r.integer("version_count"),
        state: r.str("state"),
        genesis: r.genesis(),
        created_by: r.str("created_by"),
        meta: r.object("meta"),
        ttl: r.integer("ttl"),
      };
  }
}

// FieldReader reads digest fields out of lookup data, remembering the first problem.
class FieldReader {
  err = "";
  constructor(private readonly data: JSONObject) {}

  private note(reason: string): void {
    if (this.err === "") {
      this.err = reason;
    }
  }

  str(name: string): string {
    const v = own(this.data, name);
    if (typeof v !== "string") {
      this.note(`data.${name} is missing or not a string`);
      return "";
    }
    return v;
  }

  /** A text field lookup data may leave out ("" then): a namespace's state. */
  optionalStr(name: string): string {
    if (!Object.hasOwn(this.data, name)) {
      return "";
    }
    const v = this.data[name];
    if (typeof v !== "string") {
      this.note(`data.${name} is not a string`);
      return "";
    }
    return v;
  }

  integer(name: string): number {
    const v = own(this.data, name);
    if (typeof v !== "number" || !Number.isInteger(v) || Math.abs(v) > 2 ** 53) {
      this.note(`data.${name} is missing or not an integer`);
      return 0;
    }
    return v === 0 ? 0 : v; // -0 is written 0, as an integer holds no sign of zero
  }

  object(name: string): JSONObject {
    const v = own(this.data, name);
    if (!isObject(v)) {
      this.note(`data.${name} is missing or not an object`);
      return {};
    }
    return v;
  }

  genesis(): string {
    const g = genesisFromEither(this.str("genesis"));
    if (typeof g !== "string") {
      this.note(`data.genesis: ${g.error}`);
      return "";
    }
    return g;
  }
}

// genesisFromEither accepts genesis in either form and returns the timestamp string that goes
// into a digest (Go: proof.GenesisFromEither). Text starting with "0x" is the hex form: a
// non-empty, even number of hex digits (either case) that decode to valid UTF-8.
function genesisFromEither(s: string): string | { error: string } {
  if (!s.startsWith("0x")) {
    return s;
  }
  const digits = s.slice(2);
  if (digits.length === 0 || digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) {
    return { error: `genesis ${goQuote(s)} is neither a timestamp nor its hex form` };
  }
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { error: `genesis ${goQuote(s)} does not decode to UTF-8 text` };
  }
}

// parseProofType returns the kind and year of a proof type name, or the reason it is not one
// (Go: proof.ParseProofType).
function parseProofType(s: string): { kind: LookupKind; year: number } | string {
  for (const kind of ["namespace", "registry", "record"] as const) {
    const prefix = typePrefixes[kind];
    if (!s.startsWith(prefix)) {
      continue;
    }
    const rest = s.slice(prefix.length);
    if (utf8Length(rest) !== 4) {
      break;
    }
    if (!/^[0-9]{4}$/.test(rest)) {
      return `proof type ${goQuote(s)}: the year must be four digits`;
    }
    return { kind, year: Number(rest) };
  }
  return `proof type ${goQuote(s)} is not Svc{Namespace,Registry,Record}Proof<YYYY>`;
}

// checkJSON refuses what the service's strict JSON reader refuses in a lookup and what has no
// JSON form: nesting deeper than MAX_DEPTH, NUL characters and lone surrogates in strings and
// keys, numbers that are not finite, and values that are not JSON (undefined, functions,
// class instances, cycles). It returns the reason with the JSON pointer of the place, or "".
function checkJSON(root: unknown): string {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: root, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    const at = (reason: string) => `invalid JSON at ${path === "" ? "the top level" : path}: ${reason}`;
    switch (typeof v) {
      case "string": {
        const bad = badText(v, "a string");
        if (bad !== "") {
          return at(bad);
        }
        continue;
      }
      case "number":
        if (!Number.isFinite(v)) {
          return at(`${v} is not a JSON number`);
        }
        continue;
      case "boolean":
        continue;
      case "object":
        break;
      default:
        return at(`a value of type ${typeof v} is not JSON`);
    }
    if (v === null) {
      continue;
    }
    if (depth + 1 > MAX_DEPTH) {
      return at(`nesting deeper than ${MAX_DEPTH} levels`);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i], path: `${path}/${i}`, depth: depth + 1 });
      }
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      return at("an instance of a class is not a JSON value");
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      const bad = badText(k, "an object key");
      if (bad !== "") {
        return at(bad);
      }
      stack.push({ v: (v as JSONObject)[k], path: `${path}/${escapePointerToken(k)}`, depth: depth + 1 });
    }
  }
  return "";
}

// badText returns why text cannot be in a lookup, worded as the service's strict JSON reader
// words it, or "".
function badText(s: string, what: "a string" | "an object key"): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) {
      return `NUL character (\\u0000) in ${what}`;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (next < 0xdc00 || next > 0xdfff) {
        return `unpaired UTF-16 surrogate \\u${c.toString(16).padStart(4, "0")} in ${what}`;
      }
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return `unpaired UTF-16 surrogate \\u${c.toString(16).padStart(4, "0")} in ${what}`;
    }
  }
  return "";
}

function escapePointerToken(k: string): string {
  return k.replaceAll("~", "~0").replaceAll("/", "~1");
}

function isObject(v: unknown): v is JSONObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// own reads an own member of an object: inherited members (toString, constructor...) are not
// members of JSON data.
function own(m: JSONObject, key: string): unknown {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}

// str reads a member as text, "" when it is missing or not a string (as the Go verifier does
// when it compares identifiers).
function str(m: JSONObject, key: string): string {
  const v = own(m, key);
  return typeof v === "string" ? v : "";
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

// goQuote writes s as Go's %q (strconv.Quote) does: in double quotes, '"' and '\\' escaped,
// \a \b \f \n \r \t \v, other control characters as \x.., characters that are not printable
// (not a letter, mark, number, punctuation or symbol) as \u.... or \U........, the rest as is.
function goQuote(s: string): string {
  const named: Record<string, string> = { "\u0007": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u000b": "\\v" };
  const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") {
      out += "\\" + ch;
    } else if (named[ch] !== undefined) {
      out += named[ch];
    } else if (c < 0x20 || c === 0x7f) {
      out += "\\x" + c.toString(16).padStart(2, "0");
    } else if (printable.test(ch)) {
      out += ch;
    } else if (c < 0x10000) {
      out += "\\u" + c.toString(16).padStart(4, "0");
    } else {
      out += "\\U" + c.toString(16).padStart(8, "0");
    }
  }
  return out + '"';
}
