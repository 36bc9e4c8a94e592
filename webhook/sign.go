// Package webhook delivers the events of watch subscriptions (docs/webhooks.md): signed per
// the Standard Webhooks specification, posted over a hardened client to public https
// addresses only, retried with exponential backoff for up to a day.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// secretPrefix marks a Standard Webhooks signing secret: whsec_ and the base64 of the key.
const secretPrefix = "whsec_"

// NewSecret returns a fresh signing secret: 24 random bytes (192 bits), as whsec_<base64>.
func NewSecret() string {
	key := make([]byte, 24)
	if _, err := rand.Read(key); err != nil {
		panic("webhook: no randomness: " + err.Error()) // crypto/rand does not fail on Linux
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(key)
}

// Sign returns the webhook-signature header value of a message: "v1," and the base64 of
// HMAC-SHA256 over "<id>.<unix seconds>.<body>" keyed with the secret's key.
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) == 0 {
		return "", errors.New("webhook: the secret is not whsec_ and base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Headers are the Standard Webhooks headers of a delivery attempt.
func Headers(secret, id string, at time.Time, body []byte) (map[string]string, error) {
	sig, err := Sign(secret, id, at, body)
	if err != nil {
		return nil, err
	}
	return map[string]string{
		"webhook-id":        id,
		"webhook-timestamp": strconv.FormatInt(at.Unix(), 10),
		"webhook-signature": sig,
		"Content-Type":      "application/json",
		"User-Agent":        "svc-webhooks/1",
	}, nil
}
