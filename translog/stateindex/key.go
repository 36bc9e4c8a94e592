package stateindex

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
)

// KeyKind is the kind of an index key, the first byte of its encoding.
type KeyKind byte

// The kinds of key. The name kinds are defined, but no leaf names them yet: the log's leaves
// carry ids, not names (docs/state-index.md, "Names").
const (
	KindID           KeyKind = 0x01 // an entry's id: a namespace_id, registry_id or record_id
	KindRegistryName KeyKind = 0x02 // namespace_id, registry_name
	KindRecordName   KeyKind = 0x03 // namespace_id, registry_name, record_name
	KindPublisher    KeyKind = 0x04 // a DeDi publisher's domain (its dedi-keys leaves)
	KindDomain       KeyKind = 0x05 // a domain a namespace holds (its domain leaves)
)

var kindNames = map[KeyKind]string{KindID: "id", KindRegistryName: "registry-name", KindRecordName: "record-name",
	KindPublisher: "publisher", KindDomain: "domain"}

// parts is how many strings a key of each kind has.
var parts = map[KeyKind]int{KindID: 1, KindRegistryName: 2, KindRecordName: 3, KindPublisher: 1, KindDomain: 1}

func (k KeyKind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind 0x%02x", byte(k))
}

// Key is an index key: a kind and its strings.
type Key struct {
	Kind  KeyKind
	Parts []string
}

// IDKey is the key of the entry (namespace, registry or record) whose id is id. Ids of
// different kinds never coincide (did:svc:... for namespaces, UUIDs for the others), so the
// key does not name the kind and a state query needs only the id.
func IDKey(id string) Key { return Key{KindID, []string{id}} }

// RegistryNameKey is the key of the path namespace_id / registry_name.
func RegistryNameKey(namespaceID, registryName string) Key {
	return Key{KindRegistryName, []string{namespaceID, registryName}}
}

// RecordNameKey is the key of the path namespace_id / registry_name / record_name.
func RecordNameKey(namespaceID, registryName, recordName string) Key {
	return Key{KindRecordName, []string{namespaceID, registryName, recordName}}
}

// PublisherKey is the key of a DeDi publisher's domain.
func PublisherKey(domain string) Key { return Key{KindPublisher, []string{domain}} }

// DomainKey is the key of a verified domain's binding to a namespace.
func DomainKey(domain string) Key { return Key{KindDomain, []string{domain}} }

// Encode returns the key's encoding: its kind byte, then for each of its strings (as many as
// the kind has) its length in bytes as a big-endian uint16 and its UTF-8 bytes. Each string
// must be non-empty valid UTF-8 of at most 65535 bytes.
func (k Key) Encode() ([]byte, error) {
	want, ok := parts[k.Kind]
	if !ok {
		return nil, fmt.Errorf("stateindex: unknown key kind 0x%02x", byte(k.Kind))
	}
	if len(k.Parts) != want {
		return nil, fmt.Errorf("stateindex: a %s key has %d parts, not %d", k.Kind, want, len(k.Parts))
	}
	n := 1
	for _, p := range k.Parts {
		if p == "" || len(p) > 0xffff || !utf8.ValidString(p) {
			return nil, fmt.Errorf("stateindex: a %s key's part %q is empty, longer than 65535 bytes or not UTF-8", k.Kind, p)
		}
		n += 2 + len(p)
	}
	b := make([]byte, 0, n)
	b = append(b, byte(k.Kind))
	for _, p := range k.Parts {
		b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
		b = append(b, p...)
	}
	return b, nil
}

// Hash returns the key's hash, SHA-256 of its encoding: the key's path in the tree.
func (k Key) Hash() (Hash, error) {
	b, err := k.Encode()
	if err != nil {
		return Hash{}, err
	}
	return sha256.Sum256(b), nil
}

// String writes the key for people: its kind, a colon, its strings joined by '/'. It is not
// an encoding (a name may hold '/'); Encode is.
func (k Key) String() string { return k.Kind.String() + ":" + strings.Join(k.Parts, "/") }
