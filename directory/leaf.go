package directory

import "github.com/svc-directory/svc/translog/leaf"

// The transparency log holds every version anonymous readers can see: every namespace and
// registry version, and every record version but a draft (drafts are private: DECISIONS §4).
// A sealed version's leaf is its kind, ids, version, version_count and digest.

// Leaf is the version's log leaf; ok is false for a version that is not logged.
func (n SealedNamespace) Leaf() (l leaf.Leaf, ok bool) {
	return leaf.Leaf{Kind: leaf.KindNamespace, NamespaceID: n.NamespaceID, Version: n.Version,
		VersionCount: n.VersionCount, Digest: n.Digest}, true
}

// Leaf is the version's log leaf; ok is false for a version that is not logged.
func (g SealedRegistry) Leaf() (l leaf.Leaf, ok bool) {
	return leaf.Leaf{Kind: leaf.KindRegistry, NamespaceID: g.NamespaceID, RegistryID: g.RegistryID,
		Version: g.Version, VersionCount: g.VersionCount, Digest: g.Digest}, true
}

// Leaf is the version's log leaf; ok is false for a draft, which is not logged.
func (r SealedRecord) Leaf() (l leaf.Leaf, ok bool) {
	if r.State == StateDraft {
		return leaf.Leaf{}, false
	}
	return leaf.Leaf{Kind: leaf.KindRecord, NamespaceID: r.NamespaceID, RegistryID: r.RegistryID,
		RecordID: r.RecordID, Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest}, true
}
