package directory

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/google/uuid"
	"github.com/mr-tron/base58"
)

// NamespaceIDPrefix starts every namespace_id (docs/api-guide.md, Identifiers and names).
const NamespaceIDPrefix = "did:svc:"

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand.Read does not fail on supported platforms (Go 1.24+ panics instead).
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return b
}

// NewUUID returns a UUIDv7 string (registry_id, record_id and row ids).
func NewUUID() string { return uuid.Must(uuid.NewV7()).String() }

// NewVersion returns "0x" + 32 lowercase hex digits: the 16 bytes of a fresh UUIDv7.
func NewVersion() string {
	u := uuid.Must(uuid.NewV7())
	return "0x" + hex.EncodeToString(u[:])
}

// NewNamespaceID returns did:svc: + base58btc of 16 random bytes.
func NewNamespaceID() string { return NamespaceIDPrefix + base58.Encode(randomBytes(16)) }

// NewProfileID returns base58btc of 16 random bytes.
func NewProfileID() string { return base58.Encode(randomBytes(16)) }
