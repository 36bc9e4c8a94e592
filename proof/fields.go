package proof

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// NamespaceFields are the digest fields of a namespace (spec, "Resources").
type NamespaceFields struct {
	NamespaceID, Description, Genesis, CreatedBy, Version string
	VersionCount                                          int64
}

// RegistryFields are the digest fields of a registry.
type RegistryFields struct {
	NamespaceID, RegistryName, Description string
	Schema                                 map[string]any
	Tag, Version                           string
	VersionCount                           int64
	State, Genesis, CreatedBy              string
	Meta                                   map[string]any
	TTL                                    int64
}

// RecordFields are the digest fields of a record.
type RecordFields struct {
	NamespaceID, RegistryID, RegistryName, RecordName, Description string
	Details                                                        map[string]any
	Version                                                        string
	VersionCount                                                   int64
	State, Genesis, CreatedBy                                      string
	Meta                                                           map[string]any
	TTL                                                            int64
}

func obj(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Object returns exactly the digest fields, by their JSON names.
func (f NamespaceFields) Object() map[string]any {
	return map[string]any{
		"namespace_id": f.NamespaceID, "description": f.Description, "genesis": f.Genesis,
		"created_by": f.CreatedBy, "version": f.Version, "version_count": f.VersionCount,
	}
}

// Object returns exactly the digest fields, by their JSON names.
func (f RegistryFields) Object() map[string]any {
	return map[string]any{
		"namespace_id": f.NamespaceID, "registry_name": f.RegistryName, "description": f.Description,
		"schema": obj(f.Schema), "tag": f.Tag, "version": f.Version, "version_count": f.VersionCount,
		"state": f.State, "genesis": f.Genesis, "created_by": f.CreatedBy, "meta": obj(f.Meta), "ttl": f.TTL,
	}
}

// Object returns exactly the digest fields, by their JSON names.
func (f RecordFields) Object() map[string]any {
	return map[string]any{
		"namespace_id": f.NamespaceID, "registry_id": f.RegistryID, "registry_name": f.RegistryName,
		"record_name": f.RecordName, "description": f.Description, "details": obj(f.Details), "version": f.Version,
		"version_count": f.VersionCount, "state": f.State, "genesis": f.Genesis, "created_by": f.CreatedBy,
		"meta": obj(f.Meta), "ttl": f.TTL,
	}
}

// Digest of the namespace's digest fields.
func (f NamespaceFields) Digest() (string, error) { return Digest(f.Object()) }

// Digest of the registry's digest fields.
func (f RegistryFields) Digest() (string, error) { return Digest(f.Object()) }

// Digest of the record's digest fields.
func (f RecordFields) Digest() (string, error) { return Digest(f.Object()) }

// GenesisHex is the namespace lookup form of genesis: "0x" + lowercase hex of the UTF-8 bytes
// of the timestamp string.
func GenesisHex(ts string) string { return "0x" + hex.EncodeToString([]byte(ts)) }

// GenesisFromEither accepts the timestamp or its hex form and returns the timestamp string.
func GenesisFromEither(s string) (string, error) {
	if !strings.HasPrefix(s, "0x") {
		return s, nil
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil || len(b) == 0 {
		return "", fmt.Errorf("genesis %q is neither a timestamp nor its hex form", s)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("genesis hex does not decode to UTF-8 text")
	}
	return string(b), nil
}

// Kind is the kind of entry a proof is for.
type Kind int

// The three kinds of entries.
const (
	KindNamespace Kind = iota + 1
	KindRegistry
	KindRecord
)

var kindNames = map[Kind]string{KindNamespace: "namespace", KindRegistry: "registry", KindRecord: "record"}
var kindTypes = map[Kind]string{KindNamespace: "SvcNamespaceProof", KindRegistry: "SvcRegistryProof", KindRecord: "SvcRecordProof"}

// String returns "namespace", "registry" or "record".
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ProofType names the proof type of a kind for a year, e.g. SvcRecordProof2026.
func ProofType(k Kind, year int) string { return kindTypes[k] + strconv.Itoa(year) }

// ParseProofType returns the kind and year of a proof type string.
func ParseProofType(s string) (Kind, int, error) {
	for k, prefix := range kindTypes {
		rest, ok := strings.CutPrefix(s, prefix)
		if !ok {
			continue
		}
		if len(rest) != 4 {
			break
		}
		year, err := strconv.Atoi(rest)
		if err != nil || rest[0] == '+' || rest[0] == '-' {
			break
		}
		return k, year, nil
	}
	return 0, 0, fmt.Errorf("proof type %q is not Svc{Namespace,Registry,Record}Proof<YYYY>", s)
}

// TimeLayout is JavaScript's toISOString form.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime formats t as toISOString does: UTC, milliseconds, "Z".
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime parses the toISOString form, or RFC 3339 with any offset, into UTC.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(TimeLayout, s); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an ISO 8601 timestamp", s)
	}
	return t.UTC(), nil
}
