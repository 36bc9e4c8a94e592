// The Trust Registry Query Protocol v2.0 (docs/trqp.md): trqp() asks the service's
// POST /authorization or POST /recognition, checks the answer's shape against TRQP's schemas
// (trqpshape.ts), and checks its evidence: the version that decided recomputes to its digest
// (verifyLookup), its leaf is in the log under the log's key (verifyInclusion), and the state
// proof shows that what decided is current, or that the name asked is not listed (checkState:
// by default the SDK's verifyStateAnswer, current.ts).

import { verifyLookup, type LookupKind } from "./verify.js";
import { logLeaf, verifyInclusion } from "./log.js";
import type { StateKey } from "./stateindex.js";
import { checkTrqpDocument, type TrqpKind } from "./trqpshape.js";
import { verifyStateAnswer } from "./current.js";

/** A TRQP query (its request body). `context` holds strings only: `time` (RFC 3339, `Z`), `locator`, others. */
export interface TrqpQuery {
  entity_id: string;
  authority_id: string;
  action: string;
  resource: string;
  context?: Record<string, string>;
}

/** A state check's outcome, as `svc verify --current` words it. */
export interface StateVerdict {
  outcome: "current" | "superseded" | "absent" | "stale_checkpoint" | "bad_proof" | "fork" | string;
  message: string;
}

/**
 * Checks a state answer (the body the answer's `svc_state_url` served, with status 200 or 404)
 * about `key`: its checkpoint signed by the log's key, the state leaf and the latest leaf in its
 * tree, the index proof at the state leaf's root, and whether `have` (the leaf text of the
 * version the evidence names; undefined for a name's absence) is the key's latest leaf. It is
 * the TypeScript twin of Go's stateindex.CheckAnswer.
 */
export type TrqpStateCheck = (input: { answer: unknown; key: StateKey; have: string | undefined; logKey: string }) => StateVerdict | Promise<StateVerdict>;

/** The default state check: the SDK's verifyStateAnswer under the log's key (no age bound). */
export const defaultStateCheck: TrqpStateCheck = ({ answer, key, have, logKey }) => verifyStateAnswer(answer, key, have, { logKey });

export interface TrqpOptions {
  /** The service's root, such as "https://directory.example.com". */
  baseUrl: string;
  /** The transparency log's verifier key, obtained out of band (never from the service). */
  logKey: string;
  /** The state answers' check (default: defaultStateCheck; pass your own for witnesses or an age bound). */
  checkState?: TrqpStateCheck;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** What the evidence of an answer showed. */
export interface TrqpEvidence {
  /** The kind of the version that decided. */
  entry: "record" | "registry";
  version: string;
  digest: string;
  /** The data of that version's lookup, its digest recomputed. */
  lookup: Record<string, unknown>;
  /** The index of its leaf in the log, in the tree of a checkpoint signed by the log's key. */
  logIndex: number;
  /** The state proof's verdict: current, superseded (accepted for a query about a past time only) or absent. */
  state: StateVerdict;
}

/** A checked answer, or why it is not one. */
export type TrqpResult =
  | {
      ok: true;
      /** authorized or recognized */
      yes: boolean;
      message: string;
      /** The answer as served. */
      answer: Record<string, unknown>;
      /** Undefined for a false answer without evidence (about a time before the registry existed). */
      evidence?: TrqpEvidence;
    }
  | {
      ok: false;
      reason: string;
      /** The HTTP status of an error answer, and its Problem Details document (RFC 7807). */
      status?: number;
      problem?: Record<string, unknown>;
      /** The version that decided is not in the log yet: ask again after the log's next checkpoint. */
      notYetLogged?: boolean;
    };

type Fail = Extract<TrqpResult, { ok: false }>;

class Refused extends Error {
  constructor(readonly result: Fail) {
    super(result.reason);
  }
}

function refuse(reason: string, extra: Partial<Fail> = {}): never {
  throw new Refused({ ok: false, reason, ...extra });
}

/**
 * Asks a TRQP query and checks the answer and its evidence. It never throws: a failed check, an
 * error answer (`status`, `problem`) and a network failure are `{ok: false, reason}`.
 */
export async function trqp(kind: TrqpKind, query: TrqpQuery, options: TrqpOptions): Promise<TrqpResult> {
  try {
    return await ask(kind, query, options);
  } catch (e) {
    if (e instanceof Refused) return e.result;
    return { ok: false, reason: `cannot ask the ${kind} query: ${e instanceof Error ? e.message : String(e)}` };
  }
}

async function ask(kind: TrqpKind, query: TrqpQuery, o: TrqpOptions): Promise<TrqpResult> {
  const q = checkTrqpDocument(kind, "request", query);
  if (!q.ok) refuse(`the query: ${q.reason}`);
  const res = await get(o, `/${kind}`, JSON.stringify(query));
  if (res.status !== 200) {
    const problem = res.type.startsWith("application/problem+json") && isObject(res.body) ? res.body : undefined;
    const detail = problem !== undefined ? `${String(problem["title"])}: ${String(problem["detail"])}` : res.text;
    refuse(`the ${kind} query answered ${res.status}: ${detail}`, problem === undefined ? { status: res.status } : { status: res.status, problem });
  }
  const shape = checkTrqpDocument(kind, "response", res.body);
  if (!shape.ok) refuse(`the answer does not validate against TRQP's schema: ${shape.reason}`);
  const a = res.body as Record<string, unknown>;
  for (const k of ["entity_id", "authority_id", "action", "resource"] as const) {
    if (a[k] !== query[k]) refuse(`the answer is about ${k} ${JSON.stringify(a[k])}, not the query's ${JSON.stringify(query[k])}`);
  }
  const yes = a[kind === "authorization" ? "authorized" : "recognized"] as boolean;
  const message = typeof a["message"] === "string" ? a["message"] : "";
  const context = (a["context"] ?? {}) as Record<string, string>;
  if (context["svc_version"] === undefined) {
    if (yes) refuse("a true answer without evidence (no svc_version in its context)");
    return { ok: true, yes, message, answer: a };
  }
  const evidence = await checkEvidence(o, query, message, context);
  return { ok: true, yes, message, answer: a, evidence };
}

async function checkEvidence(o: TrqpOptions, query: TrqpQuery, message: string, c: Record<string, string>): Promise<TrqpEvidence> {
  const entry = c["svc_entry"];
  if (entry !== "record" && entry !== "registry") refuse(`svc_entry ${JSON.stringify(entry)} is neither record nor registry`);
  const kind = entry as LookupKind & TrqpEvidence["entry"];
  const version = c["svc_version"] ?? "";
  const digest = c["svc_digest"] ?? "";
  // 1. The version: its lookup recomputes to the digest the answer names.
  const lookupUrl = c["svc_lookup_url"] ?? "";
  if (!lookupUrl.startsWith("/svc/lookup/")) refuse(`svc_lookup_url ${JSON.stringify(lookupUrl)} is not a lookup`);
  const lookup = await get(o, lookupUrl);
  if (lookup.status !== 200) refuse(`the lookup of the version that decided answered ${lookup.status}: ${lookup.text}`);
  const v = verifyLookup(kind, lookup.body);
  if (!v.ok) refuse(`the lookup of the version that decided does not verify: ${v.reason}`);
  if (v.ok && (v.version !== version || v.digest !== digest)) {
    refuse(`svc_lookup_url answers version ${v.version} with digest ${v.digest}, not the evidence's ${version} with ${digest}`);
  }
  const data = (lookup.body as { data: Record<string, unknown> }).data;
  const disagrees = decisionDisagrees(kind, message, data);
  if (disagrees !== undefined) refuse(disagrees);
  // 2. Its leaf is in the log's tree, signed by the log's key, at the index the answer names.
  if (c["svc_log_index"] === undefined) {
    refuse("the version that decided is not in the transparency log yet: ask again after the log's next checkpoint", { notYetLogged: true });
  }
  const logIndex = Number(c["svc_log_index"]);
  if (!/^[0-9]+$/.test(c["svc_log_index"] ?? "") || !Number.isSafeInteger(logIndex)) refuse(`svc_log_index ${c["svc_log_index"]} is not an index`);
  if (segments(c["svc_proof_url"], "/svc/log/inclusion/")?.join("/") !== version) {
    refuse(`svc_proof_url ${JSON.stringify(c["svc_proof_url"])} is not the inclusion proof of ${version}`);
  }
  const inclusion = await get(o, c["svc_proof_url"] as string);
  if (inclusion.status !== 200) refuse(`the inclusion proof answered ${inclusion.status}: ${inclusion.text}`);
  const inc = verifyInclusion(inclusion.body, o.logKey, { kind, lookup: lookup.body });
  if (!inc.ok) refuse(`the inclusion proof: ${inc.reason}`);
  if (inc.ok && inc.logIndex !== logIndex) refuse(`the inclusion proof is of log index ${inc.logIndex}, the answer names ${logIndex}`);
  // 3. The state proof: what decided is current, or the name asked is absent.
  const id = data[`${kind}_id`] as string;
  const parts = segments(c["svc_state_url"], "/svc/log/state/");
  let key: StateKey;
  let have: string | undefined;
  if (parts?.length === 1 && parts[0] === id) {
    key = { kind: "id", parts: [id] };
    have = logLeaf(kind, data);
  } else if (
    kind === "registry" &&
    message === "not listed" &&
    parts?.length === 3 &&
    parts[0] === data["namespace_id"] &&
    parts[1] === data["registry_name"] &&
    parts[2] === query.entity_id
  ) {
    key = { kind: "record-name", parts: parts as [string, string, string] };
  } else {
    return refuse(`svc_state_url ${JSON.stringify(c["svc_state_url"])} is not the state proof of ${kind} ${id}, nor of the absence of ${JSON.stringify(query.entity_id)}`);
  }
  const st = await get(o, c["svc_state_url"] as string);
  if (st.status !== 200 && st.status !== 404) refuse(`the state proof answered ${st.status}: ${st.text}`);
  const state = await (o.checkState ?? defaultStateCheck)({ answer: st.body, key, have, logKey: o.logKey });
  const absence = have === undefined;
  const fine =
    (absence && state.outcome === "absent") ||
    (!absence && state.outcome === "current") ||
    (!absence && state.outcome === "superseded" && query.context?.["time"] !== undefined);
  if (!fine) refuse(`the state proof of ${key.kind} ${key.parts.join("/")}: ${state.outcome}: ${state.message}`);
  return { entry: kind, version, digest, lookup: data, logIndex, state };
}

/**
 * Says how the version that decided disagrees with the answer's message (docs/trqp.md,
 * Polarity), or undefined: a message naming a state must be that version's state.
 */
function decisionDisagrees(entry: string, message: string, data: Record<string, unknown>): string | undefined {
  const state = data["state"];
  let want: string | undefined;
  if (entry === "record" && (message === "listed and live" || message === "listed as revoked")) want = "live";
  else if (entry === "record" && (message === "the record is expired" || message === "the listing is expired")) {
    if (data["valid_till"] === undefined || data["valid_till"] === null) return `the answer says "${message}", but the record version has no valid_till`;
  } else if (entry === "record" && message.startsWith("the record is ")) want = message.slice("the record is ".length);
  else if (entry === "record" && message.startsWith("the listing is ")) want = message.slice("the listing is ".length);
  else if (entry === "registry" && message.startsWith("the registry is ")) want = message.slice("the registry is ".length);
  else if (entry === "registry" && message === "not listed") want = "live";
  if (want !== undefined && state !== want) return `the answer says "${message}", but the ${entry} version that decided is ${String(state)}`;
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The decoded path segments of url after prefix, or undefined when it is not under it. */
function segments(url: string | undefined, prefix: string): string[] | undefined {
  if (url === undefined || !url.startsWith(prefix) || url.includes("?") || url.includes("#")) return undefined;
  try {
    return url.slice(prefix.length).split("/").map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/** GETs (or, with a body, POSTs) a path of the service and reads its JSON answer. */
async function get(o: TrqpOptions, path: string, body?: string): Promise<{ status: number; type: string; text: string; body: unknown }> {
  if (!path.startsWith("/") || path.startsWith("//")) refuse(`${JSON.stringify(path)} is not a path of the service`);
  const f = o.fetch ?? fetch;
  const init: RequestInit = { headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.method = "POST";
    init.body = body;
    init.headers = { Accept: "application/json", "Content-Type": "application/json" };
  }
  if (o.signal !== undefined) init.signal = o.signal;
  const res = await f(o.baseUrl.replace(/\/+$/, "") + path, init);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, type: res.headers.get("content-type") ?? "", text, body: parsed };
}
