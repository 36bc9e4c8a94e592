package directory

// SealedRegistry is a registry version as it is sealed and stored (schema and meta as
// canonical text); CreatedAt and UpdatedAt as for SealedNamespace.
type SealedRegistry struct {
	RegistryID, NamespaceID, RegistryName, Tag, Schema, CreatedBy, Genesis string
	RegistryContent
	Version              string
	VersionCount         int64
	Digest, ProofType    string
	CreatedAt, UpdatedAt int64
}

// NewRegistry is the first version of a live registry of the namespace, created by creatorDID
// at st (its schema already checked by the caller); query_allowed defaults to true.
func NewRegistry(namespaceID, creatorDID string, in RegistryInput, st Stamp) (SealedRegistry, error) {
	schema, err := CanonicalText(in.Schema)
	if err != nil {
		return SealedRegistry{}, err
	}
	meta, err := CanonicalText(in.Meta)
	if err != nil {
		return SealedRegistry{}, err
	}
	qa := true
	if in.QueryAllowed != nil {
		qa = *in.QueryAllowed
	}
	g := SealedRegistry{RegistryID: NewUUID(), NamespaceID: namespaceID, RegistryName: in.RegistryName, Tag: in.Tag,
		Schema: schema, CreatedBy: creatorDID, Genesis: st.Text,
		RegistryContent: RegistryContent{Description: in.Description, Meta: meta, TTL: TTLOr(in.TTL, DefaultTTL), QueryAllowed: qa, State: StateLive},
		VersionCount:    1, CreatedAt: st.MS, UpdatedAt: st.MS}
	v := g.lookup(in.Schema, in.Meta, "", 0)
	if err := SealRegistry(&v, st, &g.Schema, &g.Meta); err != nil {
		return SealedRegistry{}, err
	}
	g.Version, g.ProofType, g.Digest = v.Version, v.ProofType, v.Digest
	return g, nil
}

// Next is the version p makes of g at st, or g itself when p changes nothing (NextRegistry).
func (g SealedRegistry) Next(p RegistryPatch, st Stamp) (next SealedRegistry, changed bool, err error) {
	content, changed, err := NextRegistry(g.RegistryContent, p)
	if err != nil || !changed {
		return g, false, err
	}
	next = g
	next.RegistryContent = content
	next.VersionCount = g.VersionCount + 1
	next.UpdatedAt = st.MS
	schema, err := DecodeObject(next.Schema)
	if err != nil {
		return g, false, err
	}
	meta, fresh := p.Meta, &next.Meta
	if meta == nil {
		fresh = nil
		if meta, err = DecodeObject(next.Meta); err != nil {
			return g, false, err
		}
	}
	v := next.lookup(schema, meta, "", 0)
	if err := SealRegistry(&v, st, nil, fresh); err != nil {
		return g, false, err
	}
	next.Version, next.ProofType, next.Digest = v.Version, v.ProofType, v.Digest
	return next, true, nil
}

// Registry is the version as a lookup shows it, with the namespace's current name and the
// registry's record count.
func (g SealedRegistry) Registry(namespaceName string, recordCount int64) (Registry, error) {
	schema, err := DecodeObject(g.Schema)
	if err != nil {
		return Registry{}, err
	}
	meta, err := DecodeObject(g.Meta)
	if err != nil {
		return Registry{}, err
	}
	return g.lookup(schema, meta, namespaceName, recordCount), nil
}

func (g SealedRegistry) lookup(schema, meta map[string]any, namespaceName string, recordCount int64) Registry {
	return Registry{RegistryID: g.RegistryID, NamespaceID: g.NamespaceID, NamespaceName: namespaceName,
		RegistryName: g.RegistryName, Tag: g.Tag, Schema: NonNil(schema), Description: g.Description, Meta: NonNil(meta),
		TTL: g.TTL, State: g.State, QueryAllowed: g.QueryAllowed, CreatedBy: g.CreatedBy, Genesis: g.Genesis,
		CreatedAt: msTime(g.CreatedAt), UpdatedAt: msTime(g.UpdatedAt), Version: g.Version, VersionCount: g.VersionCount,
		Digest: g.Digest, ProofType: g.ProofType, RecordCount: recordCount}
}
