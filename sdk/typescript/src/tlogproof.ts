// C2SP tlog-proof@v1 and tlog-policy (docs/transparency-log.md, "Offline proofs and the
// policy"). A tlog-proof (GET /svc/log/proof/{version}) is a version's offline proof: its leaf
// text (as `extra`), its index, its RFC 6962 inclusion proof and a (cosigned) checkpoint. A
// tlog-policy (GET /svc/log/policy; better, the operator's) names the log's key, the witnesses
// and the quorum of cosignatures a checkpoint needs. The rules are the Go reader's
// (translog/tlogproof), held to the shared vectors translog/tlogproof/testdata/vectors.json.

import * as ed from "@noble/ed25519";
import { decodeBase64, keyHash, parseWitnessKey, verifyCheckpoint, type WitnessKey } from "./checkpoint.js";
import { equalBytes, leafHash, rootFromInclusionProof } from "./merkle.js";

/** The first line of a tlog-proof. */
export const TLOG_PROOF_HEADER = "c2sp.org/tlog-proof@v1";

const MAX_PROOF = 1 << 20;
const MAX_POLICY = 64 << 10;
const MAX_ITEMS = 256;
const NONE = "none";
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A parsed tlog-proof. */
export interface TlogProof {
  /** The extra data (for svc, the leaf text's bytes); undefined when the proof has none. */
  extra?: Uint8Array;
  index: number;
  hashes: Uint8Array[];
  /** The checkpoint note, verbatim. */
  checkpoint: string;
}

/** A parsed tlog-policy. */
export interface TlogPolicy {
  logs: { key: string; url?: string }[];
  witnesses: { name: string; key: string; url?: string }[];
  /** Groups, their threshold resolved (`any` is 1, `all` the number of members). */
  groups: { name: string; threshold: number; members: string[] }[];
  /** A witness's or group's name, or `none`. */
  quorum: string;
}

/** Where a proof is refused: its lines, its checkpoint, its inclusion proof, its leaf. */
export type TlogProofStage = "parse" | "checkpoint" | "inclusion" | "leaf";

/** What verifyCheckpointWithPolicy found. */
export type PolicyCheckpointResult =
  | {
      ok: true;
      origin: string;
      size: number;
      rootHash: Uint8Array;
      /** The verifier key of the policy's log that signed it. */
      logKey: string;
      /** The policy's names of the witnesses whose cosignatures verify, sorted. */
      witnesses: string[];
      /** When the quorum had cosigned (Unix seconds); null for the quorum `none`. */
      cosignedAt: number | null;
    }
  | { ok: false; stage: TlogProofStage; reason: string };

/** What verifyTlogProof found. */
export type TlogProofResult =
  | (Extract<PolicyCheckpointResult, { ok: true }> & { index: number; leaf: string })
  | { ok: false; stage: TlogProofStage; reason: string };

class Refused extends Error {
  constructor(
    readonly stage: TlogProofStage,
    readonly reason: string,
  ) {
    super(reason);
  }
}

function textOf(t: unknown, what: string): string {
  if (t instanceof Uint8Array) {
    try {
      return decoder.decode(t);
    } catch {
      throw new Refused("parse", `the ${what} is not UTF-8 text`);
    }
  }
  if (typeof t !== "string") {
    throw new Refused("parse", `the ${what} must be text`);
  }
  return t;
}

/** Reads a proof's text strictly; throws an Error with the reason when it is not one. */
export function parseTlogProof(text: string | Uint8Array): TlogProof {
  try {
    return parseProof(text);
  } catch (e) {
    throw new Error(e instanceof Error ? e.message : String(e));
  }
}

function parseProof(raw: unknown): TlogProof {
  const text = textOf(raw, "proof");
  const fail = (reason: string) => new Refused("parse", reason);
  if (encoder.encode(text).length > MAX_PROOF) {
    throw fail(`the proof is more than ${MAX_PROOF} bytes`);
  }
  let rest = text;
  const line = (): string | undefined => {
    const i = rest.indexOf("\n");
    if (i < 0) {
      return undefined;
    }
    const out = rest.slice(0, i);
    rest = rest.slice(i + 1);
    return out;
  };
  if (line() !== TLOG_PROOF_HEADER) {
    throw fail(`the first line is not ${JSON.stringify(TLOG_PROOF_HEADER)}`);
  }
  let l = line();
  if (l === undefined) {
    throw fail("the proof ends after its first line");
  }
  let extra: Uint8Array | undefined;
  if (l.startsWith("extra ")) {
    extra = decodeBase64(l.slice(6));
    if (extra === undefined || extra.length === 0) {
      throw fail("the extra line is not non-empty standard base64");
    }
    l = line();
    if (l === undefined) {
      throw fail("the proof ends after its extra line");
    }
  }
  if (!l.startsWith("index ")) {
    throw fail("the line after the header (and extra) is not the index line");
  }
  const idx = l.slice(6);
  if (!/^(0|[1-9][0-9]*)$/.test(idx) || BigInt(idx) > 2n ** 63n - 1n) {
    throw fail(`the index ${JSON.stringify(idx)} is not a decimal without leading zeros`);
  }
  if (!Number.isSafeInteger(Number(idx))) {
    throw fail(`the index ${idx} is beyond 2^53 - 1, which this reader cannot hold`);
  }
  const hashes: Uint8Array[] = [];
  for (;;) {
    l = line();
    if (l === undefined) {
      throw fail("the proof ends before the empty line and the checkpoint");
    }
    if (l === "") {
      break;
    }
    if (hashes.length === 63) {
      throw fail("more than 63 inclusion proof hashes");
    }
    const h = decodeBase64(l);
    if (h === undefined || h.length !== 32) {
      throw fail(`inclusion proof line ${hashes.length + 1} is not a base64 SHA-256 hash`);
    }
    hashes.push(h);
  }
  if (rest === "" || !rest.endsWith("\n") || !rest.includes("\n\n") || rest.startsWith("\n")) {
    throw fail("the checkpoint is missing or not a signed note");
  }
  return { ...(extra === undefined ? {} : { extra }), index: Number(idx), hashes, checkpoint: rest };
}

/**
 * Reads a policy's text as C2SP tlog-policy specifies it (with the Go reader's rules: log keys
 * are Ed25519 note keys, witness keys cosignature/v1 or Ed25519 note keys). Throws an Error with
 * the reason when it is not one.
 */
export function parseTlogPolicy(text: string | Uint8Array): TlogPolicy {
  try {
    return parsePolicy(text);
  } catch (e) {
    throw new Error(e instanceof Error ? e.message : String(e));
  }
}

// vkey checks a verifier key strictly (the hash its own) and returns its type and public key.
function vkey(k: string): [number, Uint8Array] {
  const i = k.indexOf("+");
  const j = i < 0 ? -1 : k.indexOf("+", i + 1);
  const name = k.slice(0, i);
  if (j < 0 || name === "" || /[\s+\uFFFD]/u.test(name)) {
    throw new Error(`the key ${JSON.stringify(k)} is not <name>+<hash>+<key>`);
  }
  const hex = k.slice(i + 1, j);
  const key = decodeBase64(k.slice(j + 1));
  if (!/^[0-9a-f]{8}$/.test(hex) || key === undefined || key.length !== 33 || (key[0] !== 1 && key[0] !== 4)) {
    throw new Error(`the key ${JSON.stringify(k)} is not an Ed25519 verifier key`);
  }
  if (keyHash(name, key) !== parseInt(hex, 16)) {
    throw new Error(`the key ${JSON.stringify(k)}: its hash is not the hash of its name and key`);
  }
  return [key[0]!, key.slice(1)];
}

function parsePolicy(raw: unknown): TlogPolicy {
  const text = textOf(raw, "policy");
  if (encoder.encode(text).length > MAX_POLICY) {
    throw new Refused("parse", `the policy is more than ${MAX_POLICY} bytes`);
  }
  const ctl = /[\u0000-\u0008\u000b-\u001f\u007f]/.exec(text);
  if (ctl !== null) {
    throw new Refused("parse", `the policy holds the control character 0x${ctl[0].charCodeAt(0).toString(16).padStart(2, "0")}`);
  }
  if (!text.endsWith("\n")) {
    throw new Refused("parse", "the policy's last line does not end with a newline");
  }
  const p: TlogPolicy = { logs: [], witnesses: [], groups: [], quorum: "" };
  const defined = new Set<string>();
  const member = new Set<string>();
  const logKeys = new Set<string>();
  const witKeys = new Set<string>();
  let quorumSeen = false;
  const lines = text.slice(0, -1).split("\n");
  for (const [i, line] of lines.entries()) {
    const fail = (reason: string) => new Refused("parse", `policy line ${i + 1}: ${reason}`);
    const f = line.split(/[ \t]+/).filter((x) => x !== "");
    if (f.length === 0 || f[0]!.startsWith("#")) {
      continue;
    }
    if (quorumSeen && f[0] === "quorum") {
      throw fail("a second quorum line");
    }
    const key = (k: string): [number, string] => {
      try {
        const [t, pub] = vkey(k);
        return [t, Array.from(pub, (b) => b.toString(16).padStart(2, "0")).join("")];
      } catch (e) {
        throw fail((e as Error).message);
      }
    };
    const newName = (name: string) => {
      if (name === NONE) {
        throw fail(`"none" is a predefined name`);
      }
      if (defined.has(name)) {
        throw fail(`the name ${JSON.stringify(name)} is defined a second time`);
      }
    };
    switch (f[0]) {
      case "log": {
        if (f.length !== 2 && f.length !== 3) {
          throw fail("want log <vkey> [<url>]");
        }
        const [t, pub] = key(f[1]!);
        if (t !== 1) {
          throw fail("the log key is not an Ed25519 note key (type 0x01)");
        }
        if (logKeys.has(pub)) {
          throw fail("a second log with the public key of an earlier one");
        }
        if (p.logs.length === MAX_ITEMS) {
          throw fail(`more than ${MAX_ITEMS} logs`);
        }
        logKeys.add(pub);
        p.logs.push(f.length === 3 ? { key: f[1]!, url: f[2]! } : { key: f[1]! });
        break;
      }
      case "witness": {
        if (f.length !== 3 && f.length !== 4) {
          throw fail("want witness <name> <vkey> [<url>]");
        }
        newName(f[1]!);
        const [, pub] = key(f[2]!);
        if (witKeys.has(pub)) {
          throw fail("a second witness with the public key of an earlier one");
        }
        if (p.witnesses.length === MAX_ITEMS) {
          throw fail(`more than ${MAX_ITEMS} witnesses`);
        }
        witKeys.add(pub);
        defined.add(f[1]!);
        p.witnesses.push(f.length === 4 ? { name: f[1]!, key: f[2]!, url: f[3]! } : { name: f[1]!, key: f[2]! });
        break;
      }
      case "group": {
        if (f.length < 4) {
          throw fail("want group <name> all|any|<k> <name>...");
        }
        newName(f[1]!);
        const members = f.slice(3);
        for (const m of members) {
          if (m === NONE) {
            throw fail(`"none" cannot be a group member`);
          }
          if (!defined.has(m)) {
            throw fail(`the member ${JSON.stringify(m)} is not a witness or group defined before`);
          }
          if (member.has(m)) {
            throw fail(`${JSON.stringify(m)} is listed as a group member a second time`);
          }
          member.add(m);
        }
        let k: number;
        if (f[2] === "all") {
          k = members.length;
        } else if (f[2] === "any") {
          k = 1;
        } else if (/^[0-9]+$/.test(f[2]!) && Number(f[2]) >= 1 && Number(f[2]) <= members.length) {
          k = Number(f[2]);
        } else {
          throw fail(`the threshold ${JSON.stringify(f[2])} is not all, any or a decimal between 1 and the ${members.length} members`);
        }
        if (p.groups.length === MAX_ITEMS) {
          throw fail(`more than ${MAX_ITEMS} groups`);
        }
        defined.add(f[1]!);
        p.groups.push({ name: f[1]!, threshold: k, members });
        break;
      }
      case "quorum":
        if (f.length !== 2) {
          throw fail("want quorum <name>");
        }
        if (f[1] !== NONE && !defined.has(f[1]!)) {
          throw fail(`the quorum ${JSON.stringify(f[1])} is not a witness or group defined before`);
        }
        p.quorum = f[1]!;
        quorumSeen = true;
        break;
      default:
        throw fail(`unknown line ${JSON.stringify(f[0])} (want log, witness, group or quorum)`);
    }
  }
  if (!quorumSeen) {
    throw new Refused("parse", "the policy has no quorum line");
  }
  return p;
}

/**
 * Verifies a checkpoint under a policy: signed by one of its logs (the one whose key's name is
 * the origin) and cosigned (cosignature/v1) to its quorum. A policy witness's cosignature that
 * does not verify refuses it; lines of other keys are ignored. It never throws.
 */
export function verifyCheckpointWithPolicy(note: string | Uint8Array, policy: TlogPolicy | string | Uint8Array): PolicyCheckpointResult {
  try {
    const pol = typeof policy === "string" || policy instanceof Uint8Array ? parsePolicy(policy) : policy;
    return checkpointWithPolicy(textOf(note, "checkpoint"), pol);
  } catch (e) {
    if (e instanceof Refused) {
      return { ok: false, stage: e.stage, reason: e.reason };
    }
    return { ok: false, stage: "checkpoint", reason: `cannot verify the checkpoint: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function checkpointWithPolicy(note: string, policy: TlogPolicy): Extract<PolicyCheckpointResult, { ok: true }> {
  const origin = note.split("\n", 1)[0]!;
  let reason = "";
  for (const l of policy.logs) {
    if (l.key.split("+", 1)[0] !== origin) {
      continue;
    }
    const cp = verifyCheckpoint(note, l.key);
    if (!cp.ok) {
      reason = cp.reason;
      continue;
    }
    const base = { ok: true as const, origin: cp.origin, size: cp.size, rootHash: cp.rootHash, logKey: l.key };
    if (policy.quorum === NONE) {
      return { ...base, witnesses: [], cosignedAt: null };
    }
    const times = cosignatureTimes(note, policy);
    const at = witnessed(policy, policy.quorum, times);
    if (at === null) {
      throw new Refused("checkpoint", `the cosignatures of ${times.size} witnesses do not meet the policy's quorum ${JSON.stringify(policy.quorum)}`);
    }
    return { ...base, witnesses: [...times.keys()].sort(), cosignedAt: at };
  }
  throw new Refused("checkpoint", reason || `the checkpoint's origin ${JSON.stringify(origin)} is not a log of the policy`);
}

// cosignatureTimes verifies the cosignature lines of the policy's witnesses (the note's form was
// checked by verifyCheckpoint) and returns each witness's newest time, by its policy name.
function cosignatureTimes(note: string, policy: TlogPolicy): Map<string, number> {
  const keys: { name: string; key: WitnessKey }[] = [];
  for (const w of policy.witnesses) {
    const k = parseWitnessKey(w.key);
    if (typeof k === "string") {
      throw new Refused("checkpoint", k);
    }
    keys.push({ name: w.name, key: k });
  }
  const split = note.lastIndexOf("\n\n");
  const text = encoder.encode(note.slice(0, split + 1));
  const times = new Map<string, number>();
  for (const line of note.slice(split + 2, -1).split("\n")) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    const sig = m === null ? undefined : decodeBase64(m[2]!);
    if (m === null || sig === undefined || sig.length < 4) {
      continue;
    }
    const hash = ((sig[0]! << 24) | (sig[1]! << 16) | (sig[2]! << 8) | sig[3]!) >>> 0;
    const w = keys.find((k) => k.key.name === m[1] && k.key.hash === hash);
    if (w === undefined) {
      continue; // the log's signature, or a key outside the policy
    }
    if (sig.length !== 4 + 8 + 64) {
      throw new Refused("checkpoint", `the cosignature of ${w.name} is not a timestamp and an Ed25519 signature`);
    }
    let t = 0n;
    for (const b of sig.slice(4, 12)) {
      t = (t << 8n) | BigInt(b);
    }
    const head = encoder.encode(`cosignature/v1\ntime ${t}\n`);
    const msg = new Uint8Array(head.length + text.length);
    msg.set(head);
    msg.set(text, head.length);
    if (!ed.verify(sig.slice(12), msg, w.key.publicKey, { zip215: false })) {
      throw new Refused("checkpoint", `the cosignature of ${w.name} does not verify`);
    }
    times.set(w.name, Math.max(Number(t), times.get(w.name) ?? 0));
  }
  return times;
}

// witnessed is when the witness or group name had witnessed the checkpoint (null: it has not):
// a group's time is, of its members that witnessed, sorted newest first, the threshold-th's.
function witnessed(policy: TlogPolicy, name: string, times: Map<string, number>): number | null {
  const t = times.get(name);
  if (t !== undefined) {
    return t;
  }
  const g = policy.groups.find((g) => g.name === name);
  if (g === undefined) {
    return null;
  }
  const ts = g.members.map((m) => witnessed(policy, m, times)).filter((t): t is number => t !== null);
  ts.sort((a, b) => b - a);
  return ts.length >= g.threshold ? ts[g.threshold - 1]! : null;
}

/**
 * Verifies a tlog-proof under a policy: its checkpoint (verifyCheckpointWithPolicy), then that
 * its hashes lead from the leaf at its index to the checkpoint's root. The leaf is `leaf` when
 * given (the leaf text of the version held, `logLeaf` of a lookup; a proof whose extra is
 * another text is refused), else the proof's extra. It never throws.
 */
export function verifyTlogProof(proof: string | Uint8Array, policy: TlogPolicy | string | Uint8Array, leaf?: string | Uint8Array): TlogProofResult {
  try {
    const pol = typeof policy === "string" || policy instanceof Uint8Array ? parsePolicy(policy) : policy;
    const p = parseProof(proof);
    const c = checkpointWithPolicy(p.checkpoint, pol);
    const want = leaf === undefined ? undefined : typeof leaf === "string" ? encoder.encode(leaf) : leaf;
    if (want !== undefined && p.extra !== undefined && !equalBytes(want, p.extra)) {
      throw new Refused("leaf", "the proof's extra data is not the leaf expected");
    }
    const text = want ?? p.extra;
    if (text === undefined) {
      throw new Refused("leaf", "the proof carries no extra data (the leaf text), and no leaf was given");
    }
    if (p.index >= c.size) {
      throw new Refused("inclusion", `the index ${p.index} is not in the checkpoint's tree of size ${c.size}`);
    }
    const root = rootFromInclusionProof(p.index, c.size, leafHash(text), p.hashes);
    if (root === undefined || !equalBytes(root, c.rootHash)) {
      throw new Refused("inclusion", `the inclusion proof of index ${p.index} does not lead to the root of the tree of size ${c.size}`);
    }
    let leafText: string;
    try {
      leafText = decoder.decode(text);
    } catch {
      throw new Refused("leaf", "the leaf is not UTF-8 text");
    }
    return { ...c, index: p.index, leaf: leafText };
  } catch (e) {
    if (e instanceof Refused) {
      return { ok: false, stage: e.stage, reason: e.reason };
    }
    return { ok: false, stage: "parse", reason: `cannot verify the proof: ${e instanceof Error ? e.message : String(e)}` };
  }
}
