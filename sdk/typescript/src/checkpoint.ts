// Signed checkpoints of the transparency log (docs/transparency-log.md): C2SP tlog-checkpoint
// in a C2SP signed note, Ed25519, keys in the form of golang.org/x/mod/sumdb/note, and the C2SP
// tlog-cosignature lines of witnesses (GET /svc/log/cosigned-checkpoint).

import * as ed from "@noble/ed25519";
import { sha256, sha512 } from "@noble/hashes/sha2.js";

// @noble/ed25519 needs a SHA-512 for its synchronous methods (its README).
ed.hashes.sha512 = sha512;

/** What verifyCheckpoint found. */
export type CheckpointResult =
  | {
      ok: true;
      /** The origin line: the log's name. */
      origin: string;
      /** The tree size. */
      size: number;
      /** The root hash of the tree of that size (32 bytes). */
      rootHash: Uint8Array;
    }
  | { ok: false; reason: string };

const encoder = new TextEncoder();

interface VerifierKey {
  name: string;
  hash: number;
  publicKey: Uint8Array;
}

// splitKey splits a note key "<name>+<hash>+<base64 key>" into its three parts: the name and
// the hash end at the first two plus signs; the base64 key may hold more.
function splitKey(vkey: string): [name: string, hash: string, key: string] | undefined {
  const text = vkey.trim();
  const i = text.indexOf("+");
  const j = i < 0 ? -1 : text.indexOf("+", i + 1);
  return j < 0 ? undefined : [text.slice(0, i), text.slice(i + 1, j), text.slice(j + 1)];
}

// parseVerifierKey reads "<name>+<8 hex digits>+<base64(0x01 || 32-byte Ed25519 key)>" and
// checks that the hash is the key's (as note.NewVerifier does).
function parseVerifierKey(vkey: string): VerifierKey | string {
  const parts = splitKey(vkey);
  if (parts === undefined) {
    return "the verifier key is not <name>+<hash>+<key>";
  }
  const [name, hex, b64] = parts;
  if (!isKeyName(name)) {
    return "the verifier key has an invalid name";
  }
  if (!/^[0-9a-f]{8}$/.test(hex)) {
    return "the verifier key's hash is not 8 lowercase hex digits";
  }
  const key = decodeBase64(b64);
  if (key === undefined || key.length !== 33 || key[0] !== 1) {
    return "the verifier key is not an Ed25519 key (0x01 and 32 bytes, base64)";
  }
  const hash = parseInt(hex, 16);
  if (keyHash(name, key) !== hash) {
    return "the verifier key's hash does not match its name and key";
  }
  return { name, hash, publicKey: key.slice(1) };
}

// keyHash is the first 4 bytes, big-endian, of SHA-256(name || "\n" || 0x01 || public key).
export function keyHash(name: string, key: Uint8Array): number {
  const n = encoder.encode(name + "\n");
  const buf = new Uint8Array(n.length + key.length);
  buf.set(n);
  buf.set(key, n.length);
  const h = sha256(buf);
  return ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
}

// A key name is non-empty UTF-8 without spaces or plus signs (as in golang.org/x/mod/sumdb/note).
function isKeyName(name: string): boolean {
  return name !== "" && !/[\s+]/u.test(name) && !/[\uFFFD]/.test(name);
}

// decodeBase64 decodes standard, padded base64 strictly; undefined when it is not that.
export function decodeBase64(s: string): Uint8Array | undefined {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    return undefined;
  }
  const bin = atob(s);
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  // Refuse non-canonical encodings (stray bits in the last character).
  if (btoa(bin) !== s) {
    return undefined;
  }
  return bytes;
}

/**
 * Verifies a signed checkpoint: a C2SP signed note whose text is a C2SP tlog-checkpoint (origin
 * line, decimal tree size, base64 root hash, optional extension lines), with a signature by
 * the verifier key (in the form of golang.org/x/mod/sumdb/note:
 * `<name>+<hex key hash>+<base64(0x01 || Ed25519 public key)>`). Signatures by other keys
 * (cosignatures) are ignored; the key's name must be the checkpoint's origin.
 *
 * @returns `{ok: true, origin, size, rootHash}` or `{ok: false, reason}`; it never throws
 */
export function verifyCheckpoint(noteText: string, verifierKey: string): CheckpointResult {
  try {
    return checkpoint(noteText, verifierKey);
  } catch (e) {
    return { ok: false, reason: `cannot verify the checkpoint: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function checkpoint(noteText: string, verifierKey: string): CheckpointResult {
  const fail = (reason: string): CheckpointResult => ({ ok: false, reason });
  if (typeof noteText !== "string" || typeof verifierKey !== "string") {
    return fail("the checkpoint and the verifier key must be text");
  }
  const key = parseVerifierKey(verifierKey);
  if (typeof key === "string") {
    return fail(key);
  }
  // The text is everything up to the last blank line, with its final newline; the signature
  // lines follow it.
  const split = noteText.lastIndexOf("\n\n");
  if (split < 0) {
    return fail("the checkpoint is not a signed note (no blank line before the signatures)");
  }
  const text = noteText.slice(0, split + 1);
  if (/[\u0000-\u0009\u000b-\u001f\uFFFD]/.test(text) || badSurrogates(text)) {
    return fail("the checkpoint text holds control characters or invalid UTF-8");
  }
  const sigBlock = noteText.slice(split + 2);
  if (sigBlock === "" || !sigBlock.endsWith("\n")) {
    return fail("the checkpoint's signature lines are missing or do not end with a newline");
  }
  let signed = false;
  for (const line of sigBlock.slice(0, -1).split("\n")) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (m === null) {
      return fail(`malformed signature line ${JSON.stringify(line)}`);
    }
    const sig = decodeBase64(m[2]!);
    if (sig === undefined || sig.length < 5) {
      return fail(`malformed signature line ${JSON.stringify(line)}`);
    }
    const hash = ((sig[0]! << 24) | (sig[1]! << 16) | (sig[2]! << 8) | sig[3]!) >>> 0;
    if (m[1] !== key.name || hash !== key.hash) {
      continue; // another signer's (a witness's cosignature, say)
    }
    const sigBytes = sig.slice(4);
    if (sigBytes.length !== 64 || !ed.verify(sigBytes, encoder.encode(text), key.publicKey, { zip215: false })) {
      return fail(`the signature of ${key.name} does not verify`);
    }
    signed = true;
  }
  if (!signed) {
    return fail(`the checkpoint is not signed by ${key.name}+${key.hash.toString(16).padStart(8, "0")}`);
  }
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3) {
    return fail("the checkpoint text is not origin, size and root hash");
  }
  const [origin, sizeText, hashText] = lines as [string, string, string];
  if (origin === "") {
    return fail("the checkpoint has an empty origin");
  }
  if (origin !== key.name) {
    return fail(`the checkpoint's origin ${JSON.stringify(origin)} is not the key's name ${JSON.stringify(key.name)}`);
  }
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) {
    return fail(`the checkpoint's size ${JSON.stringify(sizeText)} is not a decimal integer`);
  }
  const rootHash = decodeBase64(hashText);
  if (rootHash === undefined || rootHash.length !== 32) {
    return fail("the checkpoint's root hash is not 32 bytes of base64");
  }
  return { ok: true, origin, size: Number(sizeText), rootHash };
}

function badSurrogates(s: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

/** What verifyCosignedCheckpoint found. */
export type CosignedCheckpointResult =
  | {
      ok: true;
      origin: string;
      size: number;
      rootHash: Uint8Array;
      /** The names of the given witnesses whose cosignatures verify. */
      witnesses: string[];
      /**
       * The witnesses' time: of the cosignatures of the given witnesses (each witness's newest),
       * sorted newest first, the quorum-th (as Go's translog.VerifyCosignedAt gives it).
       */
      cosignedAt: Date;
    }
  | { ok: false; reason: string };

export interface WitnessKey {
  name: string;
  /** The key hash of the cosignature/v1 key (type 0x04). */
  hash: number;
  publicKey: Uint8Array;
}

// parseWitnessKey reads a witness's verifier key: "<name>+<hash>+<base64(0x04 || key)>" (a
// cosignature/v1 key), or an Ed25519 note key (0x01), which signs cosignatures under the
// cosignature/v1 key of the same public key (as transparency-dev/formats does).
export function parseWitnessKey(vkey: string): WitnessKey | string {
  const text = vkey.trim();
  const parts = splitKey(text);
  if (parts === undefined) {
    return "a witness key is not <name>+<hash>+<key>";
  }
  const [name, hex] = parts;
  const key = decodeBase64(parts[2]);
  if (!isKeyName(name) || !/^[0-9a-f]{8}$/.test(hex)) {
    return `the witness key ${JSON.stringify(text)} has an invalid name or hash`;
  }
  if (key === undefined || key.length !== 33 || (key[0] !== 1 && key[0] !== 4)) {
    return `the witness key ${JSON.stringify(text)} is not an Ed25519 key (0x04 or 0x01 and 32 bytes, base64)`;
  }
  if (keyHash(name, key) !== parseInt(hex, 16)) {
    return `the witness key ${JSON.stringify(text)}: its hash does not match its name and key`;
  }
  const cosigKey = Uint8Array.of(4, ...key.slice(1));
  return { name, hash: keyHash(name, cosigKey), publicKey: key.slice(1) };
}

/**
 * Verifies a cosigned checkpoint (GET /svc/log/cosigned-checkpoint): the log's signature as
 * verifyCheckpoint checks it, and C2SP tlog-cosignature (cosignature/v1, Ed25519) lines of at
 * least `quorum` of the given witnesses (default: all of them). Each cosignature signs
 * `cosignature/v1\ntime <t>\n` and the checkpoint text. A line of a given witness that does not
 * verify fails the checkpoint; lines of other keys are ignored.
 *
 * @returns `{ok: true, origin, size, rootHash, witnesses}` or `{ok: false, reason}`; it never throws
 */
export function verifyCosignedCheckpoint(
  noteText: string,
  verifierKey: string,
  witnessKeys: readonly string[],
  quorum: number = witnessKeys.length,
): CosignedCheckpointResult {
  try {
    return cosigned(noteText, verifierKey, witnessKeys, quorum);
  } catch (e) {
    return { ok: false, reason: `cannot verify the cosigned checkpoint: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function cosigned(noteText: string, verifierKey: string, witnessKeys: readonly string[], quorum: number): CosignedCheckpointResult {
  const fail = (reason: string): CosignedCheckpointResult => ({ ok: false, reason });
  if (!Array.isArray(witnessKeys) || !Number.isInteger(quorum) || quorum < 1 || quorum > witnessKeys.length) {
    return fail(`the quorum ${quorum} is not between 1 and the ${witnessKeys.length} witness keys given`);
  }
  const cp = checkpoint(noteText, verifierKey);
  if (!cp.ok) {
    return cp;
  }
  const keys: WitnessKey[] = [];
  for (const k of witnessKeys) {
    const w = parseWitnessKey(k);
    if (typeof w === "string") {
      return fail(w);
    }
    keys.push(w);
  }
  const split = noteText.lastIndexOf("\n\n");
  const text = encoder.encode(noteText.slice(0, split + 1));
  const witnessed = new Map<string, bigint>();
  for (const line of noteText.slice(split + 2, -1).split("\n")) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line)!; // checkpoint() checked every line's form
    const sig = decodeBase64(m[2]!)!;
    const hash = ((sig[0]! << 24) | (sig[1]! << 16) | (sig[2]! << 8) | sig[3]!) >>> 0;
    const w = keys.find((k) => k.name === m[1] && k.hash === hash);
    if (w === undefined) {
      continue; // the log's signature, or another witness's
    }
    if (sig.length !== 4 + 8 + 64) {
      return fail(`the cosignature of ${w.name} is not a timestamp and an Ed25519 signature`);
    }
    let t = 0n;
    for (const b of sig.slice(4, 12)) {
      t = (t << 8n) | BigInt(b);
    }
    const head = encoder.encode(`cosignature/v1\ntime ${t}\n`);
    const msg = new Uint8Array(head.length + text.length);
    msg.set(head);
    msg.set(text, head.length);
    if (!ed.verify(sig.slice(12), msg, w.publicKey, { zip215: false })) {
      return fail(`the cosignature of ${w.name} does not verify`);
    }
    const seen = witnessed.get(w.name);
    if (seen === undefined || t > seen) {
      witnessed.set(w.name, t);
    }
  }
  if (witnessed.size < quorum) {
    return fail(`${witnessed.size} of the given witnesses cosigned the checkpoint, ${quorum} needed`);
  }
  const times = [...witnessed.values()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  const cosignedAt = new Date(Number(times[quorum - 1]!) * 1000);
  return { ok: true, origin: cp.origin, size: cp.size, rootHash: cp.rootHash, witnesses: [...witnessed.keys()].sort(), cosignedAt };
}
