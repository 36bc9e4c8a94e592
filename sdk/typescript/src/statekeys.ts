// The state index's map function (docs/state-index.md, "Keys"): the keys a log leaf names, and
// the leaf of kind `domain` (a namespace gained or lost a verified domain), which the index
// keys by its domain. Each parser accepts only the canonical text of its kind, as the Go
// parsers of translog/leaf do.

import canonicalize from "canonicalize";
import { keyChangeLeafForm } from "./logkeys.js";
import type { StateKey } from "./stateindex.js";
import { encodeStateKey } from "./stateindex.js";

/** The members of a domain leaf. */
export interface DomainLeaf {
  kind: "domain";
  /** Normalized: lowercase ASCII letters, digits and '-', at least two labels, no trailing dot. */
  domain: string;
  namespace_id: string;
  method: "self_dns" | "self_http" | "request_other_namespace";
  change: "gained" | "lost";
  /** UTC with milliseconds, as toISOString() writes it. */
  time: string;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// object parses a leaf text into an object whose members are exactly `members` (in any
// order), each a string but those in `numbers`; undefined when it is not.
function object(text: string, members: readonly string[], numbers: readonly string[] = []): Record<string, unknown> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const m = v as Record<string, unknown>;
  if (Object.keys(m).length !== members.length || !members.every((k) => Object.hasOwn(m, k))) return undefined;
  for (const k of members) {
    const x = m[k];
    if (numbers.includes(k) ? !Number.isSafeInteger(x) : typeof x !== "string" || loneSurrogate.test(x)) return undefined;
  }
  return m;
}

/** The members of a state leaf: the log's commitment to its index root over the leaves before it. */
export interface StateLeaf {
  kind: "state";
  /** 32 bytes, standard padded base64. */
  root: string;
  /** The number of leaves the root is the index of (the state leaf's own log index). */
  size: number;
  /** The log's clock, Unix milliseconds. */
  time: number;
}

// 32 bytes in standard padded base64: 43 characters, the last with its two low bits clear, and '='.
const rootForm = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/**
 * Reads a state leaf: exactly kind "state", root (32 bytes in standard padded base64), size and
 * time (integers from 0 to 2^53 - 1), the text byte for byte in its canonical form.
 * @returns its members, or undefined when the text is not a canonical state leaf.
 */
export function parseStateLeaf(text: string): StateLeaf | undefined {
  const m = object(text, ["kind", "root", "size", "time"], ["size", "time"]);
  if (m === undefined || m["kind"] !== "state" || !rootForm.test(m["root"] as string)) return undefined;
  if ((m["size"] as number) < 0 || (m["time"] as number) < 0 || canonicalize(m) !== text) return undefined;
  return m as unknown as StateLeaf;
}

/** Whether d is a normalized domain: labels of 1 to 63 of [a-z0-9-], not starting or ending with '-', at least two, at most 253 characters. */
export function isNormalDomain(d: string): boolean {
  if (typeof d !== "string" || d.length === 0 || d.length > 253) return false;
  const labels = d.split(".");
  return labels.length >= 2 && labels.every((l) => /^[a-z0-9-]{1,63}$/.test(l) && !l.startsWith("-") && !l.endsWith("-"));
}

function isDomainTime(t: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(t)) return false;
  const d = new Date(t);
  return !Number.isNaN(d.getTime()) && d.toISOString() === t;
}

/**
 * The text of a domain leaf: RFC 8785 canonical JSON of {kind "domain", change, domain, method,
 * namespace_id, time}. Throws when a field is not one a domain leaf may hold.
 */
export function domainLeaf(fields: Omit<DomainLeaf, "kind">): string {
  const l = { kind: "domain", change: fields.change, domain: fields.domain, method: fields.method, namespace_id: fields.namespace_id, time: fields.time };
  const why = checkDomain(l);
  if (why !== undefined) throw new Error(`not a domain leaf: ${why}`);
  return canonicalize(l)!;
}

function checkDomain(m: Record<string, unknown>): string | undefined {
  if (m["kind"] !== "domain") return "its kind is not domain";
  if (!isNormalDomain(m["domain"] as string)) return "its domain is not normalized";
  if (typeof m["namespace_id"] !== "string" || m["namespace_id"] === "" || loneSurrogate.test(m["namespace_id"])) return "its namespace_id is empty";
  if (!["self_dns", "self_http", "request_other_namespace"].includes(m["method"] as string)) return "its method is unknown";
  if (m["change"] !== "gained" && m["change"] !== "lost") return "its change is not gained or lost";
  if (typeof m["time"] !== "string" || !isDomainTime(m["time"])) return "its time is not UTC with milliseconds";
  return undefined;
}

/**
 * Parses a domain leaf: exactly its members, each as a domain leaf may hold it, and the text
 * byte for byte as domainLeaf writes it.
 * @returns the leaf's members, or undefined when the text is not a domain leaf.
 */
export function parseDomainLeaf(text: string): DomainLeaf | undefined {
  const m = object(text, ["change", "domain", "kind", "method", "namespace_id", "time"]);
  if (m === undefined || checkDomain(m) !== undefined || canonicalize(m) !== text) return undefined;
  return m as unknown as DomainLeaf;
}

// versionLeafId returns the id a version's leaf is of (its namespace_id, registry_id or
// record_id), or undefined when the text is not the canonical leaf of a public version.
function versionLeafId(text: string, kind: string): string | undefined {
  const members = ["digest", "kind", "namespace_id", "version", "version_count"];
  if (kind !== "namespace") members.push("registry_id");
  if (kind === "record") members.push("record_id");
  const m = object(text, members, ["version_count"]);
  if (m === undefined || (m["version_count"] as number) < 1 || canonicalize(m) !== text) return undefined;
  return m[kind === "namespace" ? "namespace_id" : kind === "registry" ? "registry_id" : "record_id"] as string;
}

/**
 * The map function: the keys the index files a log leaf under, by its kind. A version's leaf
 * (namespace, registry, record) names its entry's id; a key change (dedi-keys) its publisher's
 * domain; a domain leaf its domain; a state leaf none. No leaf names a registry-name or record-name key yet.
 * @returns the keys, or undefined when the text is not a canonical leaf of one of these kinds
 *   (or names a key that has no encoding).
 */
export function keysOf(leafText: string): StateKey[] | undefined {
  const kind = kindOf(leafText);
  let key: StateKey | undefined;
  if (kind === "namespace" || kind === "registry" || kind === "record") {
    const id = versionLeafId(leafText, kind);
    key = id === undefined ? undefined : { kind: "id", parts: [id] };
  } else if (kind === "dedi-keys") {
    const l = keyChangeLeafForm(leafText); // its digest is the monitor's to check, not the map's
    key = l === undefined ? undefined : { kind: "publisher", parts: [l.domain] };
  } else if (kind === "domain") {
    const l = parseDomainLeaf(leafText);
    key = l === undefined ? undefined : { kind: "domain", parts: [l.domain] };
  } else if (kind === "state") {
    // The log's commitment to the index itself: it names no key.
    return parseStateLeaf(leafText) === undefined ? undefined : [];
  }
  if (key === undefined) return undefined;
  try {
    encodeStateKey(key);
  } catch {
    return undefined;
  }
  return [key];
}

// kindOf returns the kind of a leaf text, or undefined when it is not a JSON object or holds a
// string that is not UTF-8 (a lone surrogate, which Go's decoder would replace: no canonical
// leaf holds one).
function kindOf(text: string): unknown {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const wellFormed = (x: unknown): boolean =>
    typeof x === "string" ? !loneSurrogate.test(x) : typeof x !== "object" || x === null || Object.entries(x).every(([k, y]) => wellFormed(k) && wellFormed(y));
  return typeof v === "object" && v !== null && wellFormed(v) ? (v as Record<string, unknown>)["kind"] : undefined;
}
