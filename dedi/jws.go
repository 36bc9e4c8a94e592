package dedi

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/svc-directory/svc/proof"
)

// The protected header of every DeDi signature: EdDSA over an unencoded payload (RFC 7797),
// detached. ProtectedHeader is its base64url, the first part of every JWS this package makes.
const (
	protectedHeaderJSON = `{"alg":"EdDSA","b64":false,"crit":["b64"]}`
	ProtectedHeader     = "eyJhbGciOiJFZERTQSIsImI2NCI6ZmFsc2UsImNyaXQiOlsiYjY0Il19"
)

// SigningInput is what a signature covers: the ASCII base64url of the protected header, ".",
// then the canonical JSON (RFC 8785) of the document without its proof member. doc is the
// parsed document (proof.ParseJSON); a proof member in it is left out.
func SigningInput(header string, doc map[string]any) ([]byte, error) {
	return signingInput(header, doc, 1<<12)
}

// signingInput is SigningInput into a buffer of size bytes to begin with (the size of the
// document's text saves the copies of a growing buffer).
func signingInput(header string, doc map[string]any, size int) ([]byte, error) {
	body := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != "proof" {
			body[k] = v
		}
	}
	out := make([]byte, 0, size+len(header)+1)
	out = append(out, header...)
	out = append(out, '.')
	return proof.AppendCanonical(out, body)
}

// Sign returns the detached JWS of doc (without its proof member) by key:
// header ".." signature.
func Sign(doc map[string]any, key PrivateKey) (string, error) {
	in, err := SigningInput(ProtectedHeader, doc)
	if err != nil {
		return "", err
	}
	sig := ed25519.Sign(key.Key, in)
	return ProtectedHeader + ".." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// VerifyJWS checks a detached JWS over doc (without its proof member) with key. The protected
// header must be exactly alg EdDSA, b64 false and crit ["b64"] (in any member order), the
// payload part empty and the signature 64 bytes.
func VerifyJWS(jws string, doc map[string]any, key Key) error {
	return verifyJWS(jws, doc, key, 1<<12)
}

func verifyJWS(jws string, doc map[string]any, key Key, size int) error {
	pub, err := key.PublicKey()
	if err != nil {
		return err
	}
	parts := strings.Split(jws, ".")
	if len(parts) != 3 || parts[1] != "" {
		return fmt.Errorf("the jws is not a detached JWS (header..signature)")
	}
	if err := checkHeader(parts[0]); err != nil {
		return err
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(parts[2])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("the jws signature is not the base64url of 64 bytes")
	}
	in, err := signingInput(parts[0], doc, size)
	if err != nil {
		return fmt.Errorf("the document cannot be canonicalized: %v", err)
	}
	if !ed25519.Verify(pub, in, sig) {
		return fmt.Errorf("the signature does not verify with key %q", key.Kid)
	}
	return nil
}

// checkHeader accepts the base64url of a JSON object with exactly the members of the DeDi
// protected header.
func checkHeader(b64 string) error {
	if b64 == ProtectedHeader {
		return nil
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(b64)
	if err != nil {
		return fmt.Errorf("the jws header is not base64url")
	}
	v, err := proof.ParseJSON(raw, 4)
	if err != nil {
		return fmt.Errorf("the jws header is not JSON")
	}
	h, ok := v.(map[string]any)
	crit, _ := h["crit"].([]any)
	if !ok || len(h) != 3 || h["alg"] != "EdDSA" || h["b64"] != false || len(crit) != 1 || crit[0] != "b64" {
		return fmt.Errorf(`the jws header is %s, want %s`, shorten(string(raw), 120), protectedHeaderJSON)
	}
	return nil
}
