package proof

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// NamespaceFields are the digest fields of a namespace (docs/digests.md).
// Genesis is the creation timestamp string (FormatTime form), never its hex lookup form.
type NamespaceFields struct {
	NamespaceID, Description, Genesis, CreatedBy, Version string
	VersionCount                                          int64
}

// RegistryFields are the digest fields of a registry. A nil Schema or Meta is written {}.
type RegistryFields struct {
	NamespaceID, RegistryName, Description string
	Schema                                 map[string]any
	Tag, Version                           string
	VersionCount                           int64
	State, Genesis, CreatedBy              string
	Meta                                   map[string]any
	TTL                                    int64
}

// RecordFields are the digest fields of a record. A nil Details or Meta is written {}.
type RecordFields struct {
	NamespaceID, RegistryID, RegistryName, RecordName, Description string
	Details                                                        map[string]any
	Version                                                        string
	VersionCount                                                   int64
	State, Genesis, CreatedBy                                      string
	Meta                                                           map[string]any
	TTL                                                            int64
}

// Object returns the digest input of a namespace: exactly namespace_id, description, genesis,
// created_by, version and version_count.
func (f NamespaceFields) Object() map[string]any {
	return map[string]any{
		"namespace_id": f.NamespaceID, "description": f.Description, "genesis": f.Genesis,
		"created_by": f.CreatedBy, "version": f.Version, "version_count": f.VersionCount,
	}
}

// Object returns the digest input of a registry: exactly namespace_id, registry_name,
// description, schema, tag, version, version_count, state, genesis, created_by, meta and ttl.
func (f RegistryFields) Object() map[string]any {
	return map[string]any{
		"namespace_id": f.NamespaceID, "registry_name": f.RegistryName, "description": f.Description,
		"schema": orEmpty(f.Schema), "tag": f.Tag, "version": f.Version, "version_count": f.VersionCount,
		"state": f.State, "genesis": f.Genesis, "created_by": f.CreatedBy, "meta": orEmpty(f.Meta), "ttl": f.TTL,
	}
}

// Object returns the digest input of a record: exactly namespace_id, registry_id,
// registry_name, record_name, description, details, version, version_count, state, genesis,
// created_by, meta and ttl.
func (f RecordFields) Object() map[string]any {
	return map[string]any{
		"namespace_id": f.NamespaceID, "registry_id": f.RegistryID, "registry_name": f.RegistryName,
		"record_name": f.RecordName, "description": f.Description, "details": orEmpty(f.Details),
		"version": f.Version, "version_count": f.VersionCount, "state": f.State, "genesis": f.Genesis,
		"created_by": f.CreatedBy, "meta": orEmpty(f.Meta), "ttl": f.TTL,
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Digest returns the namespace's digest: Digest(f.Object()).
func (f NamespaceFields) Digest() (string, error) {
	w := fieldWriter{dst: append(make([]byte, 0, 512), '{')}
	// The members in RFC 8785 order (plain ASCII names, so byte order).
	w.str("created_by", f.CreatedBy)
	w.str("description", f.Description)
	w.str("genesis", f.Genesis)
	w.str("namespace_id", f.NamespaceID)
	w.str("version", f.Version)
	w.int("version_count", f.VersionCount)
	return w.digest()
}

// Digest returns the registry's digest: Digest(f.Object()).
func (f RegistryFields) Digest() (string, error) {
	w := fieldWriter{dst: append(make([]byte, 0, 2048), '{')}
	w.str("created_by", f.CreatedBy)
	w.str("description", f.Description)
	w.str("genesis", f.Genesis)
	w.object("meta", f.Meta)
	w.str("namespace_id", f.NamespaceID)
	w.str("registry_name", f.RegistryName)
	w.object("schema", f.Schema)
	w.str("state", f.State)
	w.str("tag", f.Tag)
	w.int("ttl", f.TTL)
	w.str("version", f.Version)
	w.int("version_count", f.VersionCount)
	return w.digest()
}

// Digest returns the record's digest: Digest(f.Object()).
func (f RecordFields) Digest() (string, error) { return f.digest(nil, nil) }

// DigestCanonical returns the record's digest, taking details and meta, where they are not nil,
// as the canonical text of f.Details and f.Meta (what Canonicalize returns for them, "{}" for
// none), written into the digest input as it is: a writer that canonicalized them to store them
// does not do it twice. A nil text leaves the field to be canonicalized from f. Text that is not
// canonical gives a wrong digest, never an error.
func (f RecordFields) DigestCanonical(details, meta *string) (string, error) {
	return f.digest(details, meta)
}

// digest writes the record's digest input; details and meta, when not nil, replace f.Details
// and f.Meta by their canonical text.
func (f RecordFields) digest(details, meta *string) (string, error) {
	w := fieldWriter{dst: append(make([]byte, 0, 2048), '{')}
	w.str("created_by", f.CreatedBy)
	w.str("description", f.Description)
	w.objectOr("details", f.Details, details)
	w.str("genesis", f.Genesis)
	w.objectOr("meta", f.Meta, meta)
	w.str("namespace_id", f.NamespaceID)
	w.str("record_name", f.RecordName)
	w.str("registry_id", f.RegistryID)
	w.str("registry_name", f.RegistryName)
	w.str("state", f.State)
	w.int("ttl", f.TTL)
	w.str("version", f.Version)
	w.int("version_count", f.VersionCount)
	return w.digest()
}

// fieldWriter writes the canonical text of a digest-field object straight from the struct,
// skipping the map that Object builds; the callers list the members in canonical order, and
// the tests hold the result equal to Canonicalize(Object()).
type fieldWriter struct {
	dst []byte
	n   int
	err error
}

func (w *fieldWriter) key(k string) {
	if w.n > 0 {
		w.dst = append(w.dst, ',')
	}
	w.n++
	w.dst = append(w.dst, '"')
	w.dst = append(w.dst, k...) // plain ASCII names: nothing to escape
	w.dst = append(w.dst, '"', ':')
}

func (w *fieldWriter) str(k, v string) {
	if w.err != nil {
		return
	}
	w.key(k)
	if w.dst, w.err = appendStringChecked(w.dst, v); w.err != nil {
		w.err = within(w.err, k)
	}
}

func (w *fieldWriter) int(k string, v int64) {
	if w.err != nil {
		return
	}
	w.key(k)
	w.dst, _ = appendNumber(w.dst, float64(v)) // always finite
}

func (w *fieldWriter) object(k string, m map[string]any) {
	if w.err != nil {
		return
	}
	w.key(k)
	if w.dst, w.err = appendMap(w.dst, m, 2); w.err != nil {
		w.err = within(w.err, k)
	}
}

// objectOr writes canonical, when not nil, as the member's value, else m.
func (w *fieldWriter) objectOr(k string, m map[string]any, canonical *string) {
	if canonical == nil {
		w.object(k, m)
		return
	}
	if w.err != nil {
		return
	}
	w.key(k)
	w.dst = append(w.dst, *canonical...)
}

func (w *fieldWriter) digest() (string, error) {
	if w.err != nil {
		if ve, ok := w.err.(*valueError); ok {
			ve.finish()
		}
		return "", w.err
	}
	return DigestBytes(append(w.dst, '}')), nil
}

// GenesisHex returns the namespace lookup form of genesis (docs/digests.md): "0x" + lowercase hex
// of the UTF-8 bytes of the timestamp string.
func GenesisHex(ts string) string { return "0x" + hex.EncodeToString([]byte(ts)) }

// GenesisFromEither accepts genesis in either form, as verification must, and returns the
// timestamp string that goes into a digest. Text starting with "0x" is the hex form: it must be
// a non-empty, even number of hex digits that decode to valid UTF-8. Any other text is taken as
// the timestamp itself and returned unchanged; whether it matches is the digest's call.
func GenesisFromEither(s string) (string, error) {
	digits, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return s, nil
	}
	b, err := hex.DecodeString(digits)
	if err != nil || len(b) == 0 {
		return "", fmt.Errorf("genesis %q is neither a timestamp nor its hex form", s)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("genesis %q does not decode to UTF-8 text", s)
	}
	return string(b), nil
}

// Kind is the kind of entry a proof is for. The zero Kind is not a valid kind.
type Kind int

// The three kinds of entries.
const (
	KindNamespace Kind = iota + 1
	KindRegistry
	KindRecord
)

// String returns "namespace", "registry" or "record".
func (k Kind) String() string {
	switch k {
	case KindNamespace:
		return "namespace"
	case KindRegistry:
		return "registry"
	case KindRecord:
		return "record"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// typePrefix is the proof type name of k without its year, or "" for an invalid kind.
func (k Kind) typePrefix() string {
	switch k {
	case KindNamespace:
		return "SvcNamespaceProof"
	case KindRegistry:
		return "SvcRegistryProof"
	case KindRecord:
		return "SvcRecordProof"
	}
	return ""
}

// ProofType names the proof type of a kind of entry created in a year (its UTC year), for
// example ProofType(KindRecord, 2026) == "SvcRecordProof2026". It returns "" for an invalid
// kind or a year outside 0..9999.
func ProofType(k Kind, year int) string {
	prefix := k.typePrefix()
	if prefix == "" || year < 0 || year > 9999 {
		return ""
	}
	var b [len("SvcNamespaceProof") + 4]byte
	out := append(b[:0], prefix...)
	out = append(out, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10))
	return string(out)
}

// ParseProofType returns the kind and year of a proof type name such as "SvcRegistryProof2025":
// one of the three prefixes followed by exactly four ASCII digits. Whether the year is
// acceptable (2025 up to the current year, docs/digests.md) is the verifier's call.
func ParseProofType(s string) (Kind, int, error) {
	for _, k := range [...]Kind{KindNamespace, KindRegistry, KindRecord} {
		rest, ok := strings.CutPrefix(s, k.typePrefix())
		if !ok {
			continue
		}
		if len(rest) != 4 {
			break
		}
		year := 0
		for i := 0; i < 4; i++ {
			c := rest[i]
			if c < '0' || c > '9' {
				return 0, 0, fmt.Errorf("proof type %q: the year must be four digits", s)
			}
			year = year*10 + int(c-'0')
		}
		return k, year, nil
	}
	return 0, 0, fmt.Errorf("proof type %q is not Svc{Namespace,Registry,Record}Proof<YYYY>", s)
}

// TimeLayout is the time layout of JavaScript's Date.prototype.toISOString for years 0 to 9999.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime formats t as JavaScript's toISOString does: in UTC, with milliseconds (finer
// digits are truncated, as a Date holds none), ending in "Z", e.g. "2026-11-22T08:00:00.000Z".
// (toISOString writes years outside 0..9999 with a sign and six digits; the service has none.)
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime parses the FormatTime form and, leniently, any RFC 3339 timestamp (any offset,
// any number of fractional digits), and returns the instant in UTC.
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
