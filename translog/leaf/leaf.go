// Package leaf is the transparency log as its readers see it, and nothing more: the leaf of a
// public version (its fields, its canonical text, parsing), the leaf of a DeDi publisher's key
// change (keys.go, kind dedi-keys), signed checkpoints (format, parse,
// open), inclusion and consistency proofs, entry bundles and what a monitor checks of new
// leaves. It imports only the standard library and golang.org/x/mod, so an offline verifier
// (`svc verify --log-key`, `svc log monitor`) needs no database. The log's writer and its
// server side are the package translog above it; docs/transparency-log.md describes the log.
//
// testdata/ holds known-answer vectors of everything here (testdata/README.md), which the
// TypeScript SDK and the JavaScript reference (conformance/) check too.
package leaf

import (
	"bytes"
	"encoding/json"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// The kinds of entry a leaf is a version of.
const (
	KindNamespace = "namespace"
	KindRegistry  = "registry"
	KindRecord    = "record"
)

// Leaf is the transparency-log leaf of one public version: the fields a lookup of that version
// shows that identify it and its content.
type Leaf struct {
	Kind         string // KindNamespace, KindRegistry or KindRecord
	NamespaceID  string
	RegistryID   string // registry and record leaves
	RecordID     string // record leaves
	Version      string
	VersionCount int64
	Digest       string
}

// Canonical returns the leaf text: RFC 8785 canonical JSON of {kind, namespace_id,
// registry_id (leaves of every kind but namespace), record_id (record leaves), version,
// version_count, digest}. It fails only on a field that is not valid UTF-8.
func (l Leaf) Canonical() ([]byte, error) {
	return l.AppendCanonical(make([]byte, 0, 320))
}

// AppendCanonical appends the leaf text (Canonical) to dst.
func (l Leaf) AppendCanonical(dst []byte) ([]byte, error) {
	// The members in RFC 8785 order (by UTF-16 code units of the names, here plain ASCII):
	// digest, kind, namespace_id, record_id, registry_id, version, version_count.
	w := jsonWriter{b: append(dst, '{')}
	w.member("digest", l.Digest)
	w.member("kind", l.Kind)
	w.member("namespace_id", l.NamespaceID)
	if l.Kind == KindRecord {
		w.member("record_id", l.RecordID)
	}
	if l.Kind != KindNamespace {
		w.member("registry_id", l.RegistryID)
	}
	w.member("version", l.Version)
	w.name("version_count")
	w.b = appendInteger(w.b, l.VersionCount)
	w.b = append(w.b, '}')
	if w.bad != "" {
		return nil, fmt.Errorf("leaf: %s of the leaf of %q is not valid UTF-8", w.bad, l.Version)
	}
	return w.b, nil
}

// Hash is the leaf's RFC 6962 leaf hash: SHA-256(0x00 || text).
func Hash(text []byte) tlog.Hash { return tlog.RecordHash(text) }

// Parse parses a leaf text and checks that it is the canonical leaf of its fields: a known
// kind, version_count at least 1, no other members, and the text byte for byte as Canonical
// writes it.
func Parse(text []byte) (Leaf, error) {
	var raw struct {
		Kind         string `json:"kind"`
		NamespaceID  string `json:"namespace_id"`
		RegistryID   string `json:"registry_id"`
		RecordID     string `json:"record_id"`
		Version      string `json:"version"`
		VersionCount int64  `json:"version_count"`
		Digest       string `json:"digest"`
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		if KindOf(text) == KindDediKeys {
			return Leaf{}, failf("leaf %q is a key change, not a version's leaf (ParseKeys)", text)
		}
		return Leaf{}, failf("leaf %q: %v", text, err)
	}
	l := Leaf(raw)
	switch l.Kind {
	case KindNamespace, KindRegistry, KindRecord:
	default:
		return Leaf{}, failf("leaf %q: unknown kind", text)
	}
	canon, err := l.Canonical()
	if err != nil || !bytes.Equal(canon, text) || l.VersionCount < 1 {
		return Leaf{}, failf("leaf %q is not a canonical leaf", text)
	}
	return l, nil
}

// FromLookup builds the leaf a lookup's data shows (kind namespace, registry or record): its
// ids, version, version_count and proof digest.
func FromLookup(kind string, data map[string]any) (Leaf, error) {
	str := func(k string) string { s, _ := data[k].(string); return s }
	l := Leaf{Kind: kind, NamespaceID: str("namespace_id"), Version: str("version")}
	if kind != KindNamespace {
		l.RegistryID = str("registry_id")
	}
	if kind == KindRecord {
		l.RecordID = str("record_id")
	}
	if p, ok := data["proof"].(map[string]any); ok {
		l.Digest, _ = p["digest"].(string)
	}
	switch n := data["version_count"].(type) {
	case float64:
		l.VersionCount = int64(n)
	case json.Number:
		l.VersionCount, _ = n.Int64()
	case int64:
		l.VersionCount = n
	}
	if l.NamespaceID == "" || l.Version == "" || l.Digest == "" || l.VersionCount < 1 ||
		(kind != KindNamespace && l.RegistryID == "") || (kind == KindRecord && l.RecordID == "") {
		return Leaf{}, failf("the lookup lacks the %s leaf fields (ids, version, version_count, proof.digest)", kind)
	}
	return l, nil
}

// EntryID names the entry the leaf is a version of: kind and ids.
func (l Leaf) EntryID() string {
	switch l.Kind {
	case KindNamespace:
		return "namespace " + l.NamespaceID
	case KindRegistry:
		return "registry " + l.NamespaceID + "/" + l.RegistryID
	}
	return "record " + l.NamespaceID + "/" + l.RegistryID + "/" + l.RecordID
}
