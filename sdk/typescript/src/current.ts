// Proving the present (docs/state-index.md, "Verifying the present"): is a version a relying
// party holds still the entry's latest logged version, as of a checkpoint the log signed (and,
// with witness keys, a quorum of witnesses cosigned)? checkStateAnswer is the pure check, the
// twin of Go's stateindex.CheckAnswer, with the same outcome words; verifyStateAnswer opens the
// answer's checkpoint first (the log's key, the witnesses' cosignatures and their time), as
// `svc verify --current` does; verifyCurrent (client-current.ts) fetches what they need.

import { decodeBase64, verifyCheckpoint, verifyCosignedCheckpoint } from "./checkpoint.js";
import { equalBytes, leafHash, rootFromInclusionProof, verifyConsistencyProof } from "./merkle.js";
import { verifyAbsence, verifyLatest, type StateKey } from "./stateindex.js";
import { keysOf, parseStateLeaf } from "./statekeys.js";

/** The outcome words, the same in Go (`svc verify --current`), TypeScript and Python. */
export type CurrentOutcome = "current" | "superseded" | "absent" | "stale_checkpoint" | "bad_proof" | "fork";

/** A version's log leaf, as a verdict names it. */
export interface VersionLeaf {
  logIndex: number;
  /** The leaf text. */
  leaf: string;
  /** The version id and its version_count, when the leaf is a version's (namespace, registry, record). */
  version?: string;
  versionCount?: number;
}

/** What a check of a state answer found: the outcome word and a sentence saying why. */
export interface CurrentVerdict {
  outcome: CurrentOutcome;
  message: string;
  /** The key's latest leaf, when the answer proved one. */
  latest?: VersionLeaf;
  /** The number of the key's leaves (its list's length), when the answer proved them. */
  count?: number;
  /** The size of the answer's checkpoint, when it was opened. */
  checkpointSize?: number;
  /** The time the answer's age is counted from, and whose clock that is. */
  at?: Date;
  clock?: "witnesses" | "log";
}

/** A checkpoint already opened (its signature verified by the caller). */
export interface OpenedCheckpoint {
  size: number;
  rootHash: Uint8Array;
}

/** A later checkpoint of the same log (verified by the caller) and the consistency proof from the answer's tree to it. */
export interface LaterCheckpoint extends OpenedCheckpoint {
  consistency: readonly Uint8Array[];
}

/** What checkStateAnswer checks an answer against (Go: stateindex.Check). */
export interface StateCheck {
  /** The state answer (GET /svc/log/state/{id}, its 200 or 404 body), as an object or JSON text. */
  answer: unknown;
  /** The answer's checkpoint, opened by the caller. */
  checkpoint: OpenedCheckpoint;
  /** The witnesses' cosignature time (the quorum's); absent when no witness is required: the state leaf's time (the log's clock) is trusted then. */
  cosignedAt?: Date;
  /** A later checkpoint: a tree the answer's is not a prefix of is a fork. */
  later?: LaterCheckpoint;
  /** The key asked about (any kind: an id, a name, a domain). */
  key: StateKey;
  /** The leaf text of the version the relying party holds; current means it is the key's latest leaf. */
  have?: string;
  /** The verifier's clock. */
  now: Date | number;
  /** The largest age accepted, in milliseconds (0 or absent: any). */
  maxAgeMs?: number;
}

const versionKinds = new Set(["namespace", "registry", "record"]);

class Bad extends Error {}

function bad(message: string): never {
  throw new Bad(message);
}

function keyName(key: StateKey): string {
  return `${key.kind}:${key.parts.join("/")}`;
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// goDuration formats milliseconds as Go's time.Duration.String does ("1m0s", "1.5s", "3h2m1.004s").
export function goDuration(ms: number): string {
  if (ms === 0) return "0s";
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1000) {
    out = `${rest}ms`;
  } else {
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    const s = Math.floor(rest / 1000);
    const frac = rest - s * 1000;
    const secs = frac === 0 ? `${s}` : `${s}.${String(frac).padStart(3, "0").replace(/0+$/, "")}`;
    out = h > 0 ? `${h}h${m}m${secs}s` : m > 0 ? `${m}m${secs}s` : `${secs}s`;
  }
  return neg ? `-${out}` : out;
}

function obj(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

// The answer's members, as Go's encoding/json reads them into stateindex.Answer: anything of
// another type makes the answer unreadable (bad_proof).
interface AnswerLeaf {
  logIndex: number;
  leaf: string;
}

interface Answer {
  key: { kind: string; parts: string[] };
  present: boolean;
  count: number;
  latest?: AnswerLeaf;
  latestInclusion: Uint8Array[];
  listRoot: Uint8Array;
  listProof: Uint8Array[];
  state: AnswerLeaf;
  stateInclusion: Uint8Array[];
  proof: Uint8Array;
  checkpoint: string;
}

function bytesOf(v: unknown, what: string): Uint8Array {
  if (v === undefined || v === null) return new Uint8Array(0);
  const b = typeof v === "string" ? decodeBase64(v) : undefined;
  if (b === undefined) bad(`the state answer's ${what} is not base64`);
  return b;
}

function hashList(v: unknown, what: string): Uint8Array[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) bad(`the state answer's ${what} is not a list`);
  return v.map((h, i) => bytesOf(h, `${what}[${i}]`));
}

function answerLeaf(v: unknown, what: string): AnswerLeaf {
  if (!obj(v)) bad(`the state answer's ${what} is not an object`);
  const i = v["log_index"] ?? 0;
  const leaf = v["leaf"] ?? "";
  if (!Number.isSafeInteger(i) || typeof leaf !== "string") bad(`the state answer's ${what} is not a log index and a leaf text`);
  return { logIndex: i as number, leaf };
}

/** Reads a state answer's JSON (an object or its text) as Go reads it; throws Bad when it is not one. */
function readAnswer(raw: unknown): Answer {
  let v = raw;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch (e) {
      bad(`the state answer is not a state answer's JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (!obj(v)) bad("the state answer is not a state answer's JSON");
  const k = v["key"] ?? {};
  if (!obj(k)) bad("the state answer's key is not an object");
  const kind = k["kind"] ?? "";
  const parts = k["parts"] ?? [];
  if (typeof kind !== "string" || !Array.isArray(parts) || !parts.every((p) => typeof p === "string")) bad("the state answer's key is not a kind and its strings");
  const count = v["count"] ?? 0;
  if (!Number.isSafeInteger(count) || (count as number) < 0) bad("the state answer's count is not a count");
  const present = v["present"] ?? false;
  if (typeof present !== "boolean") bad("the state answer's present is not true or false");
  const checkpoint = v["checkpoint"] ?? "";
  if (typeof checkpoint !== "string") bad("the state answer's checkpoint is not text");
  const latest = v["latest"] === undefined || v["latest"] === null ? undefined : answerLeaf(v["latest"], "latest");
  return {
    key: { kind, parts: parts as string[] },
    present,
    count: count as number,
    ...(latest === undefined ? {} : { latest }),
    latestInclusion: hashList(v["latest_inclusion"], "latest_inclusion"),
    listRoot: bytesOf(v["list_root"], "list_root"),
    listProof: hashList(v["list_proof"], "list_proof"),
    state: answerLeaf(v["state"] ?? {}, "state"),
    stateInclusion: hashList(v["state_inclusion"], "state_inclusion"),
    proof: bytesOf(v["proof"], "proof"),
    checkpoint,
  };
}

/** The checkpoint text of a state answer (an object or JSON text), or undefined when it has none. */
export function stateAnswerCheckpoint(answer: unknown): string | undefined {
  try {
    const c = readAnswer(answer).checkpoint;
    return c === "" ? undefined : c;
  } catch {
    return undefined;
  }
}

// included checks the inclusion proof of a leaf in the checkpoint's tree (tlog.CheckRecord).
function included(hashes: Uint8Array[], cp: OpenedCheckpoint, l: AnswerLeaf): string | undefined {
  for (const h of hashes) {
    if (h.length !== 32) return `a hash of ${h.length} bytes`;
  }
  if (l.logIndex < 0 || l.logIndex >= cp.size) return `index ${l.logIndex} is not in a tree of size ${cp.size}`;
  const root = rootFromInclusionProof(l.logIndex, cp.size, leafHash(l.leaf), hashes);
  if (root === undefined || !equalBytes(root, cp.rootHash)) return "the audit path does not lead to the checkpoint's root hash";
  return undefined;
}

// versionLeaf reads a version's leaf (namespace, registry, record; Go: leaf.Parse), or undefined.
function versionLeaf(text: string): { version: string; versionCount: number } | undefined {
  const keys = keysOf(text); // a canonical leaf of its kind, or undefined
  if (keys === undefined) return undefined;
  const m = JSON.parse(text) as Record<string, unknown>;
  if (!versionKinds.has(m["kind"] as string)) return undefined;
  return { version: m["version"] as string, versionCount: m["version_count"] as number };
}

/**
 * Checks a state answer (Go: stateindex.CheckAnswer): its checkpoint ends in its state leaf (the
 * leaf of index size - 1, committing the index of every leaf before it), both leaves are in the
 * checkpoint's tree, the index proof holds at the state leaf's root, and a later checkpoint,
 * when given, extends its tree. It then says whether `have` is the key's latest leaf
 * (`current`), an older one (`superseded`, naming the latest), whether the key is `absent`, and
 * whether the answer is older than `maxAgeMs` (`stale_checkpoint`, by the witnesses' time, or
 * the log's when none is given). It is pure: the caller opens the checkpoint and fetches.
 * It never throws.
 */
export function checkStateAnswer(c: StateCheck): CurrentVerdict {
  try {
    return check(c);
  } catch (e) {
    return { outcome: "bad_proof", message: e instanceof Bad ? e.message : `cannot check the state answer: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function check(c: StateCheck): CurrentVerdict {
  const a = readAnswer(c.answer);
  const cp = c.checkpoint;
  const key = c.key;
  // The key.
  if (a.key.kind !== key.kind || a.key.parts.length !== key.parts.length || a.key.parts.some((p, i) => p !== key.parts[i])) {
    bad(`the answer is about the key ${a.key.kind} [${a.key.parts.join(" ")}], not ${keyName(key)}`);
  }
  // The state leaf: the checkpoint's last leaf, in its tree.
  if (a.state.logIndex !== cp.size - 1) bad(`the state leaf (index ${a.state.logIndex}) is not the last leaf of the checkpoint of size ${cp.size}`);
  const st = parseStateLeaf(a.state.leaf);
  if (st === undefined) bad(`the state leaf: ${JSON.stringify(a.state.leaf)} is not a canonical state leaf`);
  if (st.size !== a.state.logIndex) bad(`the state leaf at index ${a.state.logIndex} commits the index of ${st.size} leaves, not of the ${a.state.logIndex} before it`);
  const stIn = included(a.stateInclusion, cp, a.state);
  if (stIn !== undefined) bad(`the state leaf is not in the checkpoint's tree: ${stIn}`);
  const root = decodeBase64(st.root)!;
  // The index proof.
  const v: CurrentVerdict = { outcome: "current", message: "", checkpointSize: cp.size };
  if (a.present) {
    const l = a.latest;
    if (l === undefined || a.count === 0 || a.listRoot.length !== 32) bad("a present key's answer without its latest leaf, count or list root");
    if (l.logIndex < 0 || l.logIndex >= st.size) bad(`the latest leaf's index ${l.logIndex} is not among the ${st.size} leaves the state commits`);
    const lIn = included(a.latestInclusion, cp, l);
    if (lIn !== undefined) bad(`the latest leaf is not in the checkpoint's tree: ${lIn}`);
    const keys = keysOf(l.leaf);
    if (keys === undefined || !keys.some((k) => k.kind === key.kind && k.parts.length === key.parts.length && k.parts.every((p, i) => p === key.parts[i]))) {
      bad(`the latest leaf is not a leaf of ${keyName(key)}`);
    }
    for (const h of a.listProof) {
      if (h.length !== 32) bad(`a list proof hash of ${h.length} bytes`);
    }
    const r = verifyLatest(root, key, a.count, a.listRoot, l.logIndex, a.listProof, a.proof);
    if (!r.ok) bad(r.reason);
    v.latest = { logIndex: l.logIndex, leaf: l.leaf, ...versionLeaf(l.leaf) };
    v.count = a.count;
  } else {
    if (a.latest !== undefined || a.count !== 0) bad("an absent key's answer names a latest leaf");
    const r = verifyAbsence(root, key, a.proof);
    if (!r.ok) bad(r.reason);
    v.outcome = "absent";
    v.count = 0;
  }
  // A later checkpoint must extend this one.
  const later = c.later;
  if (later !== undefined && later.size >= cp.size) {
    const forked =
      later.size === cp.size ? !equalBytes(later.rootHash, cp.rootHash) : !verifyConsistencyProof(cp.size, later.size, cp.rootHash, later.rootHash, later.consistency);
    if (forked) {
      return {
        outcome: "fork",
        message: `the answer's tree of size ${cp.size} (root ${hex(cp.rootHash)}) is not a prefix of the log's checkpoint of size ${later.size} (root ${hex(later.rootHash)}): the log shows two histories`,
        checkpointSize: cp.size,
      };
    }
  }
  // Its age.
  let at = new Date(st.time);
  let clock = "the log's own clock (the state leaf's time; no witness was required)";
  v.clock = "log";
  if (c.cosignedAt !== undefined) {
    at = c.cosignedAt;
    clock = "the witnesses' clock (their cosignature time)";
    v.clock = "witnesses";
  }
  v.at = at;
  const now = typeof c.now === "number" ? c.now : c.now.getTime();
  const age = Math.trunc(now - at.getTime());
  const maxAge = c.maxAgeMs ?? 0;
  if (maxAge > 0 && age > maxAge) {
    return { ...v, outcome: "stale_checkpoint", message: `the checkpoint of size ${cp.size} is ${goDuration(age)} old by ${clock}, more than the ${goDuration(maxAge)} allowed` };
  }
  const asOf = `as of the checkpoint of size ${cp.size} (the index of the first ${st.size} leaves), ${goDuration(age)} old by ${clock}`;
  if (v.outcome === "absent") {
    v.message = `${keyName(key)} has no leaf in the log ${asOf}`;
    return v;
  }
  const latest = v.latest!;
  if (c.have === undefined || c.have === latest.leaf) {
    v.message = `the version held is the latest of ${keyName(key)} (leaf ${latest.logIndex}, ${a.count} leaves) ${asOf}`;
    return v;
  }
  const have = versionLeaf(c.have);
  if (have !== undefined && latest.versionCount !== undefined && have.versionCount > latest.versionCount) {
    return {
      ...v,
      outcome: "stale_checkpoint",
      message: `the version held (version_count ${have.versionCount}) is newer than the latest the checkpoint of size ${cp.size} knows (version_count ${latest.versionCount}): the answer predates it`,
    };
  }
  const name = latest.version !== undefined ? `version ${latest.version} (version_count ${latest.versionCount})` : "its latest leaf";
  v.outcome = "superseded";
  v.message = `a newer version of ${keyName(key)} exists: ${name}, at log index ${latest.logIndex} (${a.count} leaves) ${asOf}`;
  return v;
}

/** What verifyStateAnswer needs besides the answer: the trust the relying party brings. */
export interface VerifyCurrentOptions {
  /** The log's verifier key (from the operator, not from the service). */
  logKey: string;
  /** The witnesses' verifier keys: the answer's checkpoint must carry cosignatures of `quorum` of them (default: all). */
  witnessKeys?: readonly string[];
  quorum?: number;
  /** The largest age accepted, in milliseconds (0 or absent: any). */
  maxAgeMs?: number;
  /** The verifier's clock (default: now). */
  now?: Date | number;
}

/**
 * Opens a state answer's checkpoint with the log's key (and, with witness keys, checks a
 * quorum's cosignatures and takes their time: of the quorum's cosignatures sorted newest first,
 * the quorum-th), then checks the answer with checkStateAnswer, as `svc verify --current` does.
 * `later`, when given, is the log's latest checkpoint text and the consistency proof (hashes,
 * base64, or the body of GET /svc/log/consistency) from the answer's tree to it: the fork check.
 * It never throws.
 */
export function verifyStateAnswer(
  answer: unknown,
  key: StateKey,
  have: string | undefined,
  options: VerifyCurrentOptions,
  later?: { checkpoint: string; consistency?: unknown },
): CurrentVerdict {
  try {
    const text = stateAnswerCheckpoint(answer);
    if (text === undefined) return { outcome: "bad_proof", message: "the state answer carries no checkpoint" };
    const witnesses = options.witnessKeys ?? [];
    let cp: OpenedCheckpoint;
    let cosignedAt: Date | undefined;
    if (witnesses.length > 0) {
      const r = verifyCosignedCheckpoint(text, options.logKey, witnesses, options.quorum ?? witnesses.length);
      if (!r.ok) return { outcome: "bad_proof", message: `the answer's checkpoint: ${r.reason}` };
      cp = r;
      cosignedAt = r.cosignedAt;
    } else {
      const r = verifyCheckpoint(text, options.logKey);
      if (!r.ok) return { outcome: "bad_proof", message: `the answer's checkpoint: ${r.reason}` };
      cp = r;
    }
    const check: StateCheck = { answer, checkpoint: cp, key, now: options.now ?? Date.now() };
    if (cosignedAt !== undefined) check.cosignedAt = cosignedAt;
    if (have !== undefined) check.have = have;
    if (options.maxAgeMs !== undefined) check.maxAgeMs = options.maxAgeMs;
    if (later !== undefined) {
      const l = verifyCheckpoint(later.checkpoint, options.logKey);
      if (!l.ok) return { outcome: "bad_proof", message: `the log's latest checkpoint: ${l.reason}` };
      let p: unknown = later.consistency ?? [];
      if (typeof p === "string") p = JSON.parse(p) as unknown;
      const hashes = Array.isArray(p) ? p : obj(p) && Array.isArray(p["hashes"]) ? (p["hashes"] as unknown[]) : undefined;
      if (hashes === undefined) return { outcome: "bad_proof", message: "the consistency proof has no hashes" };
      const consistency: Uint8Array[] = [];
      for (const h of hashes) {
        const b = typeof h === "string" ? decodeBase64(h) : h instanceof Uint8Array ? h : undefined;
        if (b === undefined || b.length !== 32) return { outcome: "bad_proof", message: "the consistency proof: a hash is not 32 bytes" };
        consistency.push(b);
      }
      check.later = { size: l.size, rootHash: l.rootHash, consistency };
    }
    return checkStateAnswer(check);
  } catch (e) {
    return { outcome: "bad_proof", message: `cannot check the state answer: ${e instanceof Error ? e.message : String(e)}` };
  }
}
