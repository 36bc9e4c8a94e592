// Offline verification of lookup responses: the checks of a lookup's proof and the digest of
// an entry recomputed from the data of its lookup, exactly as the service computes it (Go:
// proof/fields.go, proof/lookup.go) and as `svc verify` checks a saved lookup
// (cmd/svc/verify.go). The reasons of failure are worded as the Go verifier words them. The
// digest fields are in digest.ts, the JSON text checks in jsontext.ts; this module exports
// recomputeDigest, digestOf, genesisHex and MAX_DEPTH too.

import { checkJSON, goQuote, isObject, own, utf8Length, type JSONObject } from "./jsontext.js";
import { digestFields, digestOf, FieldReader } from "./digest.js";

export { recomputeDigest, digestOf, genesisHex } from "./digest.js";
export { MAX_DEPTH } from "./jsontext.js";

/** The three kinds of entries of the directory. */
export type LookupKind = "namespace" | "registry" | "record";

/** The first proof-type year a verifier accepts. */
export const FIRST_PROOF_YEAR = 2025;

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

/** The proof type name of a kind of entry made in a UTC year, e.g. SvcRecordProof2026. */
export function proofType(kind: LookupKind, year: number): string {
  if (!Number.isInteger(year) || year < 0 || year > 9999) {
    throw new RangeError(`proofType: year ${year} is not 0..9999`);
  }
  return typePrefixes[kind] + String(year).padStart(4, "0");
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

// str reads a member as text, "" when it is missing or not a string (as the Go verifier does
// when it compares identifiers).
function str(m: JSONObject, key: string): string {
  const v = own(m, key);
  return typeof v === "string" ? v : "";
}
