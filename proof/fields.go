package proof

import (
	"slices"
	"strings"
)

// NamespaceFields are the digest fields of a namespace (docs/digests.md).
// Genesis is the creation timestamp string (FormatTime form), never its hex lookup form.
// State is a digest field only when it is neither "" nor live (a tombstone's deleted): a
// namespace's state joined its digest fields after live versions had been digested without
// it, and a live version still digests exactly as they did.
type NamespaceFields struct {
	NamespaceID, Description, Genesis, CreatedBy, Version string
	VersionCount                                          int64
	State                                                 string
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
		strUnless(stateField, liveState, func(f *NamespaceFields) *string { return &f.State }),
	}
	registryMembers = []member[RegistryFields]{
		str("namespace_id", func(f *RegistryFields) *string { return &f.NamespaceID }),
		str("registry_name", func(f *RegistryFields) *string { return &f.RegistryName }),
		str("description", func(f *RegistryFields) *string { return &f.Description }),
		obj(schemaField, func(f *RegistryFields) *map[string]any { return &f.Schema }),
		str("tag", func(f *RegistryFields) *string { return &f.Tag }),
		str("version", func(f *RegistryFields) *string { return &f.Version }),
		num("version_count", func(f *RegistryFields) *int64 { return &f.VersionCount }),
		str(stateField, func(f *RegistryFields) *string { return &f.State }),
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
		str(stateField, func(f *RecordFields) *string { return &f.State }),
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
// data; the objects may be given as canonical text (DigestCanonical); a namespace's state is a
// member only when it is not live.
const (
	genesisField = "genesis"
	detailsField = "details"
	schemaField  = "schema"
	metaField    = "meta"
	stateField   = "state"
	liveState    = "live"
)

// member is one digest field of F: its name and the address of its value in F (exactly one of
// the three is set, by its JSON type). A text member with a usual value (strUnless) is left out
// of the digest input when its value is "" or that usual value.
type member[F any] struct {
	name   string
	str    func(*F) *string
	num    func(*F) *int64
	object func(*F) *map[string]any
	usual  string
}

func str[F any](name string, at func(*F) *string) member[F] { return member[F]{name: name, str: at} }
func num[F any](name string, at func(*F) *int64) member[F]  { return member[F]{name: name, num: at} }
func obj[F any](name string, at func(*F) *map[string]any) member[F] {
	return member[F]{name: name, object: at}
}

// strUnless is a text member that is in the digest input only when its value is neither "" nor
// usual: a field added to a kind's digest fields after versions, all of them with the usual
// value, had been digested without it.
func strUnless[F any](name, usual string, at func(*F) *string) member[F] {
	return member[F]{name: name, str: at, usual: usual}
}

// left reports whether m is left out of f's digest input.
func (m member[F]) left(f *F) bool {
	if m.usual == "" {
		return false
	}
	v := *m.str(f)
	return v == "" || v == m.usual
}

func canonicalOrder[F any](ms []member[F]) []member[F] {
	out := slices.Clone(ms)
	slices.SortFunc(out, func(a, b member[F]) int { return strings.Compare(a.name, b.name) })
	return out
}

// FieldNames lists the digest fields of a kind in the order docs/digests.md gives them (nil for
// an invalid kind). A namespace's state is among them, though a version's digest covers it only
// when it is not live.
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
		case m.left(f):
			// not in this version's digest input
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
		case m.left(f):
			// not in this version's digest input
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
		case m.usual != "":
			*m.str(&f) = r.optionalStr(m.name)
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
// created_by, version and version_count, and state when it is neither "" nor live.
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
