package leaf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// KindDediKeys is the kind of a key-change leaf: a DeDi publisher's key set as this service
// accepted it (docs/dedi-files.md, "Key changes are logged").
const KindDediKeys = "dedi-keys"

// Key is one public key of a publisher's manifest, as its JWK names it (RFC 7517, RFC 8037):
// the kid and the public members kty, crv and x.
type Key struct {
	Kid string `json:"kid"`
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
}

// KeysLeaf is the log leaf of a key change: an accepted manifest of Domain whose key set
// differs from the last one accepted (the first accepted manifest is one too, from nothing).
type KeysLeaf struct {
	Domain    string
	Keys      []Key  // any order: the leaf text holds them by kid
	UpdatedAt string // the manifest's updated_at, as toISOString writes it (2026-11-22T08:00:00.000Z)
	// Digest is the BLAKE2b-256 ("0x" + hex) of KeySetText (docs/transparency-log.md); this
	// package, standard library only, keeps it but cannot recompute it.
	Digest string
}

// SortKeys returns the keys in the leaf's order: by kid (bytes of its UTF-8), then x.
func SortKeys(keys []Key) []Key {
	out := slices.Clone(keys)
	slices.SortFunc(out, func(a, b Key) int {
		if c := strings.Compare(a.Kid, b.Kid); c != 0 {
			return c
		}
		return strings.Compare(a.X, b.X)
	})
	return out
}

// KeyIDs returns the kids of the leaf's keys in the leaf's order.
func (l KeysLeaf) KeyIDs() []string {
	keys := SortKeys(l.Keys)
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.Kid
	}
	return ids
}

// KeySetText is the text the leaf's digest is taken of: RFC 8785 canonical JSON of {domain,
// keys, updated_at}, the keys as in the leaf.
func (l KeysLeaf) KeySetText() ([]byte, error) {
	w := jsonWriter{b: []byte{'{'}}
	w.member("domain", l.Domain)
	l.appendKeys(&w)
	w.member("updated_at", l.UpdatedAt)
	w.b = append(w.b, '}')
	if w.bad != "" {
		return nil, fmt.Errorf("leaf: %s of the key leaf of %q is not valid UTF-8", w.bad, l.Domain)
	}
	return w.b, nil
}

// Canonical returns the leaf text: RFC 8785 canonical JSON of {kind "dedi-keys", domain, keys
// (each {kid, kty, crv, x}, sorted by kid), updated_at, digest}. It fails only on a field that is
// not valid UTF-8.
func (l KeysLeaf) Canonical() ([]byte, error) {
	// Members in RFC 8785 order: digest, domain, keys, kind, updated_at; a key's crv, kid, kty, x.
	w := jsonWriter{b: make([]byte, 0, 160+120*len(l.Keys))}
	w.b = append(w.b, '{')
	w.member("digest", l.Digest)
	w.member("domain", l.Domain)
	l.appendKeys(&w)
	w.member("kind", KindDediKeys)
	w.member("updated_at", l.UpdatedAt)
	w.b = append(w.b, '}')
	if w.bad != "" {
		return nil, fmt.Errorf("leaf: %s of the key leaf of %q is not valid UTF-8", w.bad, l.Domain)
	}
	return w.b, nil
}

func (l KeysLeaf) appendKeys(w *jsonWriter) {
	w.name("keys")
	w.b = append(w.b, '[')
	for i, k := range SortKeys(l.Keys) {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		kw := jsonWriter{b: append(w.b, '{')}
		kw.member("crv", k.Crv)
		kw.member("kid", k.Kid)
		kw.member("kty", k.Kty)
		kw.member("x", k.X)
		w.b = append(kw.b, '}')
		if kw.bad != "" && w.bad == "" {
			w.bad = "keys"
		}
	}
	w.b = append(w.b, ']')
}

// KindOf returns the kind member of a leaf text ("" when it has none, or is not a JSON
// object): which parser, Parse or ParseKeys, the text is for.
func KindOf(text []byte) string {
	var k struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(text, &k) != nil {
		return ""
	}
	return k.Kind
}

// ParseKeys parses a key-change leaf and checks that it is canonical: kind dedi-keys, a
// domain, at least one key, each with a kid and x, no kid twice, updated_at and digest present,
// no other members, and the text byte for byte as Canonical writes it (so the keys in order).
func ParseKeys(text []byte) (KeysLeaf, error) {
	var raw struct {
		Kind      string `json:"kind"`
		Domain    string `json:"domain"`
		Keys      []Key  `json:"keys"`
		UpdatedAt string `json:"updated_at"`
		Digest    string `json:"digest"`
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return KeysLeaf{}, failf("key leaf %q: %v", text, err)
	}
	if raw.Kind != KindDediKeys {
		return KeysLeaf{}, failf("leaf %q is not a %s leaf", text, KindDediKeys)
	}
	l := KeysLeaf{Domain: raw.Domain, Keys: raw.Keys, UpdatedAt: raw.UpdatedAt, Digest: raw.Digest}
	ok := l.Domain != "" && l.UpdatedAt != "" && l.Digest != "" && len(l.Keys) > 0
	for i, k := range l.Keys {
		ok = ok && k.Kid != "" && k.X != "" && (i == 0 || l.Keys[i-1].Kid != k.Kid)
	}
	canon, err := l.Canonical()
	if err != nil || !ok || !bytes.Equal(canon, text) {
		return KeysLeaf{}, failf("leaf %q is not a canonical key leaf", text)
	}
	return l, nil
}
