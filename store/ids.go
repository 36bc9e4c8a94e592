package store

import (
	"crypto/rand"
	"fmt"
)

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand.Read does not fail on supported platforms (Go 1.24+ panics instead).
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return b
}
