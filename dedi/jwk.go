package dedi

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/svc-directory/svc/proof"
)

// Key is a public key as a JWK (RFC 7517) and the kid a proof names it by. svc checks
// signatures by Ed25519 keys (RFC 8037): kty "OKP", crv "Ed25519", x the base64url (unpadded)
// of the 32 key bytes. A manifest may list keys of other types too ("algorithm matching the
// key"): they are read, kept and compared, but a document signed by one is UnsupportedKey.
type Key struct {
	Kid string `json:"kid"`
	Kty string `json:"kty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	// members is the JWK as read (every member), for a key of another type: what tells two
	// such keys apart. Nil for an Ed25519 key and for a key a caller built.
	members map[string]any
}

// Supported reports whether svc can check signatures by the key: an Ed25519 JWK.
func (k Key) Supported() bool { return k.Kty == "OKP" && k.Crv == "Ed25519" }

// Type names the key's type for a reason: its kty, and its crv when it has one.
func (k Key) Type() string {
	if k.Crv != "" {
		return k.Kty + "/" + k.Crv
	}
	return k.Kty
}

// PublicKey decodes the key's bytes.
func (k Key) PublicKey() (ed25519.PublicKey, error) {
	if !k.Supported() {
		return nil, fail(UnsupportedKey, "key %q is of type %s: svc checks Ed25519 signatures only", shorten(k.Kid, 80), shorten(k.Type(), 40))
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(k.X)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("key %q: x is not the base64url of 32 bytes", k.Kid)
	}
	return ed25519.PublicKey(b), nil
}

// Same reports whether two JWKs are the same key under the same kid: what a manifest must list
// for a file's key to count.
func (k Key) Same(o Key) bool {
	if !k.Supported() || !o.Supported() {
		if k.Supported() != o.Supported() || k.Kid != o.Kid {
			return false
		}
		a, errA := proof.Canonicalize(k.jwk())
		b, errB := proof.Canonicalize(o.jwk())
		return errA == nil && errB == nil && bytes.Equal(a, b)
	}
	a, errA := k.PublicKey()
	b, errB := o.PublicKey()
	return errA == nil && errB == nil && k.Kid == o.Kid && bytes.Equal(a, b)
}

// jwk is the key's members: as read, or those of the struct.
func (k Key) jwk() map[string]any {
	if k.members != nil {
		return k.members
	}
	m := map[string]any{"kid": k.Kid, "kty": k.Kty}
	if k.Crv != "" {
		m["crv"] = k.Crv
	}
	if k.X != "" {
		m["x"] = k.X
	}
	return m
}

// SameKeys reports whether two key sets hold the same keys (kid and x), in any order: a
// manifest whose keys differ from the last accepted one's is a key change.
func SameKeys(a, b []Key) bool {
	if len(a) != len(b) {
		return false
	}
	for _, k := range a {
		found := false
		for _, o := range b {
			if k.Same(o) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// PrivateKey is an Ed25519 signing key with its kid; its JWK form adds d, the base64url of the
// 32-byte seed. It never leaves the publisher's machine.
type PrivateKey struct {
	Kid string
	Key ed25519.PrivateKey
}

// GenerateKey makes a new signing key named kid.
func GenerateKey(kid string) (PrivateKey, error) {
	if kid == "" {
		return PrivateKey{}, errors.New("a key needs a kid")
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return PrivateKey{}, err
	}
	return PrivateKey{Kid: kid, Key: priv}, nil
}

// KeyFromSeed makes the signing key of a 32-byte seed (tests and fixtures).
func KeyFromSeed(kid string, seed []byte) PrivateKey {
	return PrivateKey{Kid: kid, Key: ed25519.NewKeyFromSeed(seed)}
}

// Public is the key's public JWK.
func (p PrivateKey) Public() Key {
	return Key{Kid: p.Kid, Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(p.Key.Public().(ed25519.PublicKey))}
}

type privateJWK struct {
	Kid string `json:"kid"`
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	D   string `json:"d"`
}

// MarshalJWK is the key's private JWK, indented, with a final newline.
func (p PrivateKey) MarshalJWK() []byte {
	pub := p.Public()
	b, _ := json.MarshalIndent(privateJWK{Kid: pub.Kid, Kty: pub.Kty, Crv: pub.Crv, X: pub.X,
		D: base64.RawURLEncoding.EncodeToString(p.Key.Seed())}, "", "  ")
	return append(b, '\n')
}

// ParsePrivateJWK reads a private Ed25519 JWK (kty OKP, crv Ed25519, kid, x and d); x must be
// the public key of d.
func ParsePrivateJWK(b []byte) (PrivateKey, error) {
	var j privateJWK
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&j); err != nil {
		return PrivateKey{}, fmt.Errorf("not a JWK: %v", err)
	}
	if j.Kty != "OKP" || j.Crv != "Ed25519" {
		return PrivateKey{}, fmt.Errorf("not an Ed25519 JWK (kty %q, crv %q)", j.Kty, j.Crv)
	}
	if j.Kid == "" {
		return PrivateKey{}, errors.New("the JWK has no kid")
	}
	seed, err := base64.RawURLEncoding.Strict().DecodeString(j.D)
	if err != nil || len(seed) != ed25519.SeedSize {
		return PrivateKey{}, errors.New("the JWK has no private part (d, the base64url of a 32-byte seed)")
	}
	p := KeyFromSeed(j.Kid, seed)
	if j.X != "" && j.X != p.Public().X {
		return PrivateKey{}, errors.New("the JWK's x is not the public key of its d")
	}
	return p, nil
}

// ParsePublicJWK reads a public Ed25519 JWK; a private member (d) is refused.
func ParsePublicJWK(b []byte) (Key, error) {
	var j privateJWK
	if err := json.Unmarshal(b, &j); err != nil {
		return Key{}, fmt.Errorf("not a JWK: %v", err)
	}
	if j.D != "" {
		return Key{}, errors.New("the JWK holds a private key (d): give the public key")
	}
	k := Key{Kid: j.Kid, Kty: j.Kty, Crv: j.Crv, X: j.X}
	if k.Kid == "" {
		return Key{}, errors.New("the JWK has no kid")
	}
	if _, err := k.PublicKey(); err != nil {
		return Key{}, err
	}
	return k, nil
}
