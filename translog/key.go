package translog

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// GenerateKey returns a new Ed25519 signer key and its verifier key, in the key formats of
// golang.org/x/mod/sumdb/note, named origin (the log's origin line).
func GenerateKey(origin string) (signerKey, verifierKey string, err error) {
	if origin == "" || strings.ContainsAny(origin, "+ \t\n") {
		return "", "", fmt.Errorf("translog: origin %q is not a key name (no spaces or '+')", origin)
	}
	return note.GenerateKey(rand.Reader, origin)
}

// Key is a log's signing key.
type Key struct {
	Signer   note.Signer
	Verifier note.Verifier
	// VerifierKey is the verifier key in text form (what readers need to check checkpoints).
	VerifierKey string
}

// ParseKey parses a signer key and derives its verifier.
func ParseKey(signerKey string) (Key, error) {
	signerKey = strings.TrimSpace(signerKey)
	s, err := note.NewSigner(signerKey)
	if err != nil {
		return Key{}, fmt.Errorf("translog: signer key: %w", err)
	}
	// PRIVATE+KEY+name+hash+base64(algorithm byte, Ed25519 seed); the base64 may hold '+'.
	parts := strings.SplitN(signerKey, "+", 5)
	raw, err := base64.StdEncoding.DecodeString(parts[len(parts)-1])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return Key{}, errors.New("translog: signer key: not an Ed25519 key")
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	vkey, err := note.NewEd25519VerifierKey(s.Name(), pub)
	if err != nil {
		return Key{}, fmt.Errorf("translog: verifier key: %w", err)
	}
	v, err := note.NewVerifier(vkey)
	if err != nil {
		return Key{}, fmt.Errorf("translog: verifier key: %w", err)
	}
	if v.KeyHash() != s.KeyHash() {
		return Key{}, errors.New("translog: signer key: its key hash does not match its key")
	}
	return Key{Signer: s, Verifier: v, VerifierKey: vkey}, nil
}

// ReadKeyFile reads and parses a signer key file.
func ReadKeyFile(path string) (Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Key{}, fmt.Errorf("translog: key file: %w", err)
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return Key{}, fmt.Errorf("%w (in %s)", err, path)
	}
	return k, nil
}

// WriteKeyFile creates path (mode 0600; an existing file is refused) holding a new signer key
// for origin, and returns the key.
func WriteKeyFile(path, origin string) (Key, error) {
	skey, _, err := GenerateKey(origin)
	if err != nil {
		return Key{}, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Key{}, fmt.Errorf("translog: key file: %w", err)
	}
	if _, err := f.WriteString(skey + "\n"); err != nil {
		_ = f.Close()
		return Key{}, fmt.Errorf("translog: key file: %w", err)
	}
	if err := f.Close(); err != nil {
		return Key{}, fmt.Errorf("translog: key file: %w", err)
	}
	return ParseKey(skey)
}

// EnsureKeyFile reads the signer key at path, or creates it for origin when there is no file
// (created says so).
func EnsureKeyFile(path, origin string) (k Key, created bool, err error) {
	k, err = ReadKeyFile(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return k, false, err
	}
	k, err = WriteKeyFile(path, origin)
	if errors.Is(err, fs.ErrExist) { // made by a concurrent start
		k, err = ReadKeyFile(path)
		return k, false, err
	}
	return k, err == nil, err
}
