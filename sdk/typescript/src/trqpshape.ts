// The shape of TRQP v2.0 documents, checked by hand from the rules of TRQP's four JSON Schemas
// (trqp/schemas in the repository: the SDK depends on no JSON Schema library). The shared
// vectors trqp/testdata/answers.json hold this check to what a JSON Schema validator over the
// schemas themselves says (the Go SDK's client.CheckTRQPDocument).

/** The two TRQP queries. */
export type TrqpKind = "authorization" | "recognition";

/** A TRQP document's check: valid, or the first rule it breaks. */
export type TrqpShapeResult = { ok: true } | { ok: false; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const dateTime = /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$/;

/**
 * Whether s is an RFC 3339 date-time (JSON Schema's `date-time` format): a real calendar date,
 * hours to 23, minutes to 59, seconds to 60 (a leap second only at 23:59 UTC), an optional
 * fraction, and `Z` or a numeric offset of at most 23:59.
 */
export function isDateTime(s: string): boolean {
  const m = dateTime.exec(s);
  if (m === null) return false;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo < 1 || mo > 12 || d < 1 || d > (days[mo - 1] as number)) return false;
  if (h > 23 || mi > 59 || sec > 60) return false;
  let utc = h * 60 + mi;
  if (m[7] !== undefined) {
    const zh = Number(m[8]);
    const zm = Number(m[9]);
    if (zh > 23 || zm > 59) return false;
    utc = (((utc - (m[7] === "+" ? 1 : -1) * (zh * 60 + zm)) % 1440) + 1440) % 1440;
  }
  return sec < 60 || utc === 23 * 60 + 59;
}

/**
 * Checks a TRQP document against the rules of its schema: a request (`POST /authorization` or
 * `/recognition` body) or a response (its 200 answer). The rules:
 *
 * - the document is an object; `entity_id`, `authority_id`, `action` and `resource` are
 *   required strings (any string, the empty one too); other members are allowed;
 * - a response requires `time_evaluated` and `authorized` (or `recognized`), a boolean;
 *   `message` is a string; `time_requested` and `time_evaluated` are RFC 3339 date-times;
 * - `context`, when present, is an object whose members are all strings; in a request its
 *   `time` is also a date-time.
 *
 * @returns `{ok: true}` or `{ok: false, reason}`; it never throws
 */
export function checkTrqpDocument(kind: TrqpKind, side: "request" | "response", doc: unknown): TrqpShapeResult {
  const fail = (reason: string): TrqpShapeResult => ({ ok: false, reason: `the ${kind} ${side}: ${reason}` });
  if (kind !== "authorization" && kind !== "recognition") return { ok: false, reason: `no TRQP query is called ${String(kind)}` };
  if (side !== "request" && side !== "response") return { ok: false, reason: `a TRQP document is a request or a response, not ${String(side)}` };
  if (!isObject(doc)) return fail("is not an object");
  const flag = kind === "authorization" ? "authorized" : "recognized";
  const required = ["entity_id", "action", "resource", "authority_id"];
  if (side === "response") required.push("time_evaluated", flag);
  for (const k of required) {
    if (!Object.hasOwn(doc, k)) return fail(`${k} is missing`);
  }
  const strings = ["entity_id", "authority_id", "action", "resource"];
  if (side === "response") strings.push("message", "time_requested", "time_evaluated");
  for (const k of strings) {
    if (Object.hasOwn(doc, k) && typeof doc[k] !== "string") return fail(`${k} is not a string`);
  }
  if (side === "response") {
    for (const k of ["time_requested", "time_evaluated"]) {
      if (Object.hasOwn(doc, k) && !isDateTime(doc[k] as string)) return fail(`${k} is not an RFC 3339 date-time`);
    }
    if (typeof doc[flag] !== "boolean") return fail(`${flag} is not a boolean`);
  }
  if (Object.hasOwn(doc, "context")) {
    const c = doc["context"];
    if (!isObject(c)) return fail("context is not an object");
    for (const [k, v] of Object.entries(c)) {
      if (typeof v !== "string") return fail(`context.${k} is not a string`);
    }
    if (side === "request" && Object.hasOwn(c, "time") && !isDateTime(c["time"] as string)) {
      return fail("context.time is not an RFC 3339 date-time");
    }
  }
  return { ok: true };
}
