// The Merkle tree hashes of the transparency log (RFC 6962 / RFC 9162 over SHA-256): leaf and
// interior node hashes, the root an inclusion proof's audit path leads to, and the check of a
// consistency proof between two tree sizes.

import { sha256 } from "@noble/hashes/sha2.js";

const encoder = new TextEncoder();

/** The RFC 6962 leaf hash: SHA-256(0x00 || leaf). */
export function leafHash(leaf: Uint8Array | string): Uint8Array {
  const b = typeof leaf === "string" ? encoder.encode(leaf) : leaf;
  const buf = new Uint8Array(1 + b.length);
  buf[0] = 0;
  buf.set(b, 1);
  return sha256(buf);
}

/** The RFC 6962 interior node hash: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + left.length + right.length);
  buf[0] = 1;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return sha256(buf);
}

/**
 * The root that an RFC 6962 audit path leads to from a leaf hash at index in a tree of size
 * (RFC 9162, section 2.1.3.2), or undefined when the path cannot be one of that tree (index
 * beyond the tree, too few or too many hashes).
 */
export function rootFromInclusionProof(index: number, size: number, hash: Uint8Array, path: readonly Uint8Array[]): Uint8Array | undefined {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    return undefined;
  }
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = hash;
  for (const p of path) {
    if (sn === 0n) {
      return undefined;
    }
    if ((fn & 1n) === 1n || fn === sn) {
      r = nodeHash(p, r);
      while ((fn & 1n) === 0n && fn !== 0n) {
        fn >>= 1n;
        sn >>= 1n;
      }
    } else {
      r = nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n ? r : undefined;
}

/**
 * Whether an RFC 6962 consistency proof (RFC 9162, section 2.1.4.2) shows that the tree of
 * size `oldSize` and root `oldRoot` is a prefix of the tree of size `newSize` and root
 * `newRoot`. Equal sizes need an empty proof and equal roots; an empty old tree is a prefix of
 * every tree (with an empty proof).
 */
export function verifyConsistencyProof(oldSize: number, newSize: number, oldRoot: Uint8Array, newRoot: Uint8Array, proof: readonly Uint8Array[]): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 0 || oldSize > newSize) {
    return false;
  }
  if (oldSize === newSize) {
    return proof.length === 0 && equalBytes(oldRoot, newRoot);
  }
  if (oldSize === 0) {
    return proof.length === 0;
  }
  if (proof.length === 0) {
    return false;
  }
  let fn = BigInt(oldSize - 1);
  let sn = BigInt(newSize - 1);
  // An old tree that is a complete subtree is a node of the new one: its root starts the path.
  const path = (fn & (fn + 1n)) === 0n ? [oldRoot, ...proof] : [...proof];
  while ((fn & 1n) === 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0n) {
      return false;
    }
    if ((fn & 1n) === 1n || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && equalBytes(fr, oldRoot) && equalBytes(sr, newRoot);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
