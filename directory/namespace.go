package directory

import "time"

// SealedNamespace is a namespace version as it is sealed and stored: its identity, its content
// (meta as canonical text) and its seal. CreatedAt is the namespace's creation, UpdatedAt when
// this version was made (Unix milliseconds).
type SealedNamespace struct {
	NamespaceID, OwnerID, CreatedBy, Genesis string
	NamespaceContent
	State                string // live or deleted (deleted.go); a digest field when not live
	Version              string
	VersionCount         int64
	Digest, ProofType    string
	CreatedAt, UpdatedAt int64
}

// NewNamespace is the first version of a namespace owned by ownerID, created by creatorDID at st.
func NewNamespace(ownerID, creatorDID string, in NamespaceInput, st Stamp) (SealedNamespace, error) {
	meta, err := CanonicalText(in.Meta)
	if err != nil {
		return SealedNamespace{}, err
	}
	n := SealedNamespace{NamespaceID: NewNamespaceID(), OwnerID: ownerID, CreatedBy: creatorDID, Genesis: st.Text,
		NamespaceContent: NamespaceContent{Name: in.Name, Description: in.Description, Meta: meta, TTL: TTLOr(in.TTL, DefaultTTL)},
		State:            StateLive, VersionCount: 1, CreatedAt: st.MS}
	return n, n.seal(st)
}

// Next is the version p makes of n at st, or n itself when p changes nothing (changed false).
func (n SealedNamespace) Next(p NamespacePatch, st Stamp) (next SealedNamespace, changed bool, err error) {
	content, changed, err := NextNamespace(n.NamespaceContent, p)
	if err != nil || !changed {
		return n, false, err
	}
	next = n
	next.NamespaceContent = content
	next.VersionCount = n.VersionCount + 1
	return next, true, next.seal(st)
}

func (n *SealedNamespace) seal(st Stamp) error {
	v := n.lookup(nil)
	if err := SealNamespace(&v, st); err != nil {
		return err
	}
	n.Version, n.ProofType, n.Digest, n.UpdatedAt = v.Version, v.ProofType, v.Digest, st.MS
	return nil
}

// Namespace is the version as a lookup shows it, with the namespace's current verified domain
// and registry count.
func (n SealedNamespace) Namespace(domain string, registryCount int64) (Namespace, error) {
	meta, err := DecodeObject(n.Meta)
	if err != nil {
		return Namespace{}, err
	}
	v := n.lookup(meta)
	v.Domain, v.RegistryCount = domain, registryCount
	return v, nil
}

func (n SealedNamespace) lookup(meta map[string]any) Namespace {
	return Namespace{NamespaceID: n.NamespaceID, OwnerID: n.OwnerID, Name: n.Name, Description: n.Description,
		Meta: NonNil(meta), TTL: n.TTL, CreatedBy: n.CreatedBy, Genesis: n.Genesis, CreatedAt: msTime(n.CreatedAt),
		UpdatedAt: msTime(n.UpdatedAt), Version: n.Version, VersionCount: n.VersionCount, Digest: n.Digest, ProofType: n.ProofType,
		State: n.StateOrLive()}
}

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func msTimePtr(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := msTime(*ms)
	return &t
}
