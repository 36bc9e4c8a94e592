// The digest of a lookup: the kind's digest fields read out of its data (in the order the Go
// verifier reads them), genesis in either form, and BLAKE2b-256 over their RFC 8785 canonical
// JSON (Go: proof/fields.go).

import canonicalize from "canonicalize";
import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { LookupKind } from "./verify.js";
import { checkJSON, goQuote, isObject, own, type JSONObject } from "./jsontext.js";

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

/**
 * The namespace lookup form of genesis: `0x` + lowercase hex of the UTF-8 bytes of the
 * timestamp string.
 */
export function genesisHex(timestamp: string): string {
  return "0x" + bytesToHex(new TextEncoder().encode(timestamp));
}

// digestFields builds the digest input of a kind: an object with exactly its digest fields,
// read in the order the Go verifier reads them (so the first problem reported is the same). A
// namespace's state is one only when it is not live (a tombstone's deleted): absent, "" and
// live leave it out, so that live versions digest as they did before namespaces had a state.
export function digestFields(kind: LookupKind, r: FieldReader): JSONObject {
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
export class FieldReader {
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
