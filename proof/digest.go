// Package proof computes and checks the digests that make every entry of the directory
// recomputable by anyone: the entry's digest fields, serialized as RFC 8785 canonical JSON
// (JSON.stringify's forms), hashed with BLAKE2b-256 and written "0x" + lowercase hex.
//
// The package is pure: standard library and golang.org/x/crypto/blake2b only, no I/O.
// Its output agrees byte for byte with the JavaScript reference in shared/conformance
// (canonicalize + @noble/hashes); the tests hold the vectors and a differential test.
package proof

import (
	"encoding/hex"

	"golang.org/x/crypto/blake2b"
)

// Digest returns "0x" + lowercase hex of BLAKE2b-256 over Canonicalize(v).
func Digest(v any) (string, error) {
	b, err := Canonicalize(v)
	if err != nil {
		return "", err
	}
	return DigestBytes(b), nil
}

// DigestBytes returns "0x" + lowercase hex of BLAKE2b-256 of already canonical bytes.
func DigestBytes(canonical []byte) string {
	sum := blake2b.Sum256(canonical)
	out := make([]byte, 2+hex.EncodedLen(len(sum)))
	out[0], out[1] = '0', 'x'
	hex.Encode(out[2:], sum[:])
	return string(out)
}

// NetworkGenesis identifies an anchoring network: "0x" + hex BLAKE2b-256 of the UTF-8 bytes of
// its genesis statement.
func NetworkGenesis(statement string) string { return DigestBytes([]byte(statement)) }
