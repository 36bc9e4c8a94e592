// The digest of a JSON value as an independent JavaScript verifier computes it:
// RFC 8785 canonical text (the `canonicalize` package), UTF-8 encoded, hashed with
// BLAKE2b with a 32-byte output (`@noble/hashes`), written "0x" + lowercase hex.
import canonicalize from 'canonicalize';
import { blake2b } from '@noble/hashes/blake2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

// canonicalText returns the RFC 8785 form of value (a value as JSON.parse gives it).
export function canonicalText(value) {
  return canonicalize(value);
}

// digestOfText hashes an already canonical text.
export function digestOfText(text) {
  return '0x' + bytesToHex(blake2b(utf8ToBytes(text), { dkLen: 32 }));
}

// digest returns the digest of value.
export function digest(value) {
  return digestOfText(canonicalText(value));
}
