package proof

import (
	"encoding/hex"
	"fmt"
	"slices"
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

// The digest fields of each kind, in the order docs/digests.md lists them, each with where it
// lives in the kind's Fields struct. These tables are the one list of digest fields: Object,
// Digest, DigestCanonical, RecomputeDigest and FieldNames all derive from them.
var (
	namespaceMembers = []member[NamespaceFields]{
		str("namespace_id", func(f *NamespaceFields) *string { return &f.NamespaceID }),
		str("description", func(f *NamespaceFields) *string { return &f.Description }),
		str(genesisField, func(f *NamespaceFields) *string { return &f.Genesis }),
		str("created_by", func(f *NamespaceFields) *string { return &f.CreatedBy }),
		str("version", func(f *NamespaceFields) *string { return &f.Version }),
		num("version_count", func(f *NamespaceFields) *int64 { return &f.VersionCount }),
	}
	registryMembers = []member[RegistryFields]{
		str("namespace_id", func(f *RegistryFields) *string { return &f.NamespaceID }),
		str("registry_name", func(f *RegistryFields) *string { return &f.RegistryName }),
		str("description", func(f *RegistryFields) *string { return &f.Description }),
		obj(schemaField, func(f *RegistryFields) *map[string]any { return &f.Schema }),
		str("tag", func(f *RegistryFields) *string { return &f.Tag }),
		str("version", func(f *RegistryFields) *string { return &f.Version }),
		num("version_count", func(f *RegistryFields) *int64 { return &f.VersionCount }),
		str("state", func(f *RegistryFields) *string { return &f.State }),
		str(genesisField, func(f *RegistryFields) *string { return &f.Genesis }),
		str("created_by", func(f *RegistryFields) *string { return &f.CreatedBy }),
		obj(metaField, func(f *RegistryFields) *map[string]any { return &f.Meta }),
		num("ttl", func(f *RegistryFields) *int64 { return &f.TTL }),
	}
	recordMembers = []member[RecordFields]{
		str("namespace_id", func(f *RecordFields) *string { return &f.NamespaceID }),
		str("registry_id", func(f *RecordFields) *string { return &f.RegistryID }),
		str("registry_name", func(f *RecordFields) *string { return &f.RegistryName }),
		str("record_name", func(f *RecordFields) *string { return &f.RecordName }),
		str("description", func(f *RecordFields) *string { return &f.Description }),
		obj(detailsField, func(f *RecordFields) *map[string]any { return &f.Details }),
		str("version", func(f *RecordFields) *string { return &f.Version }),
		num("version_count", func(f *RecordFields) *int64 { return &f.VersionCount }),
		str("state", func(f *RecordFields) *string { return &f.State }),
		str(genesisField, func(f *RecordFields) *string { return &f.Genesis }),
		str("created_by", func(f *RecordFields) *string { return &f.CreatedBy }),
		obj(metaField, func(f *RecordFields) *map[string]any { return &f.Meta }),
		num("ttl", func(f *RecordFields) *int64 { return &f.TTL }),
	}
	// The same members in canonical (RFC 8785) order: the names are plain ASCII, so byte order.
	namespaceCanonical = canonicalOrder(namespaceMembers)
	registryCanonical  = canonicalOrder(registryMembers)
	recordCanonical    = canonicalOrder(recordMembers)
)

// Field names with a role beyond being a member: genesis is read in either form from lookup
// data; the objects may be given as canonical text (DigestCanonical).
const (
	genesisField = "genesis"
	detailsField = "details"
	schemaField  = "schema"
	metaField    = "meta"
)

// member is one digest field of F: its name and the address of its value in F (exactly one of
// the three is set, by its JSON type).
type member[F any] struct {
	name   string
	str    func(*F) *string
	num    func(*F) *int64
	object func(*F) *map[string]any
}

func str[F any](name string, at func(*F) *string) member[F] { return member[F]{name: name, str: at} }
func num[F any](name string, at func(*F) *int64) member[F]  { return member[F]{name: name, num: at} }
func obj[F any](name string, at func(*F) *map[string]any) member[F] {
	return member[F]{name: name, object: at}
}

func canonicalOrder[F any](ms []member[F]) []member[F] {
	out := slices.Clone(ms)
	slices.SortFunc(out, func(a, b member[F]) int { return strings.Compare(a.name, b.name) })
	return out
}

// FieldNames lists the digest fields of a kind in the order docs/digests.md gives them (nil for
// an invalid kind).
func FieldNames(k Kind) []string {
	switch k {
	case KindNamespace:
		return names(namespaceMembers)
	case KindRegistry:
		return names(registryMembers)
	case KindRecord:
		return names(recordMembers)
	}
	return nil
}

func names[F any](ms []member[F]) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.name
	}
	return out
}

// objectOf is the digest input of f: exactly its members, a nil object written {}.
func objectOf[F any](f *F, ms []member[F]) map[string]any {
	out := make(map[string]any, len(ms))
	for _, m := range ms {
		switch {
		case m.str != nil:
			out[m.name] = *m.str(f)
		case m.num != nil:
			out[m.name] = *m.num(f)
		default:
			out[m.name] = orEmpty(*m.object(f))
		}
	}
	return out
}

// digestOf writes the canonical text of f's members (ms in canonical order) and digests it;
// canonical, when it gives a text for an object member, is that member's canonical text.
func digestOf[F any](f *F, ms []member[F], size int, canonical func(name string) *string) (string, error) {
	w := fieldWriter{dst: append(make([]byte, 0, size), '{')}
	for _, m := range ms {
		switch {
		case m.str != nil:
			w.str(m.name, *m.str(f))
		case m.num != nil:
			w.int(m.name, *m.num(f))
		default:
			var text *string
			if canonical != nil {
				text = canonical(m.name)
			}
			w.objectOr(m.name, *m.object(f), text)
		}
	}
	return w.digest()
}

// fromData fills the members of an F from lookup data (genesis in either form).
func fromData[F any](r *fieldReader, ms []member[F]) F {
	var f F
	for _, m := range ms {
		switch {
		case m.name == genesisField:
			*m.str(&f) = r.genesis()
		case m.str != nil:
			*m.str(&f) = r.str(m.name)
		case m.num != nil:
			*m.num(&f) = r.integer(m.name)
		default:
			*m.object(&f) = r.object(m.name)
		}
	}
	return f
}

// Object returns the digest input of a namespace: exactly namespace_id, description, genesis,
// created_by, version and version_count.
func (f NamespaceFields) Object() map[string]any { return objectOf(&f, namespaceMembers) }

// Object returns the digest input of a registry: exactly namespace_id, registry_name,
// description, schema, tag, version, version_count, state, genesis, created_by, meta and ttl.
func (f RegistryFields) Object() map[string]any { return objectOf(&f, registryMembers) }

// Object returns the digest input of a record: exactly namespace_id, registry_id,
// registry_name, record_name, description, details, version, version_count, state, genesis,
// created_by, meta and ttl.
func (f RecordFields) Object() map[string]any { return objectOf(&f, recordMembers) }

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// Digest returns the namespace's digest: Digest(f.Object()).
func (f NamespaceFields) Digest() (string, error) {
	return digestOf(&f, namespaceCanonical, 512, nil)
}

// Digest returns the registry's digest: Digest(f.Object()).
func (f RegistryFields) Digest() (string, error) {
	return digestOf(&f, registryCanonical, 2048, nil)
}

// Digest returns the record's digest: Digest(f.Object()).
func (f RecordFields) Digest() (string, error) { return digestOf(&f, recordCanonical, 2048, nil) }

// DigestCanonical returns the registry's digest, taking schema and meta, where they are not
// nil, as their canonical text (as RecordFields.DigestCanonical does for details and meta).
func (f RegistryFields) DigestCanonical(schema, meta *string) (string, error) {
	return digestOf(&f, registryCanonical, 2048, func(name string) *string {
		switch name {
		case schemaField:
			return schema
		case metaField:
			return meta
		}
		return nil
	})
}

// DigestCanonical returns the record's digest, taking details and meta, where they are not nil,
// as the canonical text of f.Details and f.Meta (what Canonicalize returns for them, "{}" for
// none), written into the digest input as it is: a writer that canonicalized them to store them
// does not do it twice. A nil text leaves the field to be canonicalized from f. Text that is not
// canonical gives a wrong digest, never an error.
func (f RecordFields) DigestCanonical(details, meta *string) (string, error) {
	return digestOf(&f, recordCanonical, 2048, func(name string) *string {
		switch name {
		case detailsField:
			return details
		case metaField:
			return meta
		}
		return nil
	})
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
