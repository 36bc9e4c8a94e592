// Package proof computes the digests that make every entry of the directory recomputable by
// anyone: the entry's digest fields (see NamespaceFields, RegistryFields, RecordFields),
// serialized as RFC 8785 canonical JSON in JSON.stringify's forms, hashed with BLAKE2b-256 and
// written "0x" + lowercase hex. It also holds the strict JSON parser that keeps text which
// cannot be re-verified (NUL characters, lone surrogates, duplicate keys, ...) out of the store,
// and the small forms around proofs: proof type names, genesis forms and timestamps.
//
// The package is pure: standard library and golang.org/x/crypto/blake2b only, no I/O and no
// mutable state; every function is safe for concurrent use. Its output agrees byte for byte
// with the project's JavaScript reference in the repository's conformance directory
// (canonicalize 4.0.0 over JSON.parse, then @noble/hashes blake2b with dkLen 32): the tests
// check the reference's vectors (testdata/vectors.ndjson) and compare thousands of random
// values with it directly. docs/digests.md explains how to recompute a digest.
package proof

import (
	"encoding/hex"

	"golang.org/x/crypto/blake2b"
)

// Digest returns "0x" + lowercase hex of BLAKE2b-256 over Canonicalize(v).
func Digest(v any) (string, error) {
	b, err := AppendCanonical(make([]byte, 0, 2048), v) // one buffer for typical entries
	if err != nil {
		return "", err
	}
	return DigestBytes(b), nil
}

// DigestBytes returns "0x" + lowercase hex of BLAKE2b-256 (32-byte output, no key) of
// already canonical bytes.
func DigestBytes(canonical []byte) string {
	sum := blake2b.Sum256(canonical)
	var out [2 + 2*blake2b.Size256]byte
	out[0], out[1] = '0', 'x'
	hex.Encode(out[2:], sum[:])
	return string(out[:])
}

// NetworkGenesis identifies an anchoring network: "0x" + lowercase hex of BLAKE2b-256 of the
// UTF-8 bytes of its genesis statement.
func NetworkGenesis(statement string) string { return DigestBytes([]byte(statement)) }
