package store

import (
	"gorm.io/gorm"

	"github.com/svc-directory/svc/proof"
)

// versionRow is a row of one of the three version tables; kind says which.
type versionRow interface {
	RowNamespaceVersion | regVersionRow | recVersionRow
	kind() proof.Kind
	// logLeaf is the version's transparency-log leaf; ok is false for a version anonymous
	// readers cannot see (a record draft), which is not logged.
	logLeaf() (leaf LogLeaf, ok bool)
	// first reports whether the version is its entry's first: the entry is created with it.
	first() bool
}

func (r RowNamespaceVersion) first() bool { return r.VersionCount == 1 }
func (r regVersionRow) first() bool       { return r.VersionCount == 1 }
func (r recVersionRow) first() bool       { return r.VersionCount == 1 }

func (RowNamespaceVersion) kind() proof.Kind { return proof.KindNamespace }
func (regVersionRow) kind() proof.Kind       { return proof.KindRegistry }
func (recVersionRow) kind() proof.Kind       { return proof.KindRecord }

func (r RowNamespaceVersion) logLeaf() (LogLeaf, bool) {
	return LogLeaf{Kind: proof.KindNamespace.String(), NamespaceID: r.NamespaceID, Version: r.Version,
		VersionCount: r.VersionCount, Digest: r.Digest}, true
}

func (r regVersionRow) logLeaf() (LogLeaf, bool) {
	return LogLeaf{Kind: proof.KindRegistry.String(), NamespaceID: r.NamespaceID, RegistryID: r.RegistryID,
		Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest}, true
}

func (r recVersionRow) logLeaf() (LogLeaf, bool) {
	if r.State == StateDraft {
		return LogLeaf{}, false
	}
	return LogLeaf{Kind: proof.KindRecord.String(), NamespaceID: r.NamespaceID, RegistryID: r.RegistryID,
		RecordID: r.RecordID, Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest}, true
}

// versionBatch is how many version rows one INSERT carries (17 columns each: well inside both
// dialects' limits on bound parameters).
const versionBatch = 500

// appendVersions is the one place where new versions of namespaces, registries and records come
// into existence: every create and every update, of one entry or of an add-records batch, seals
// its versions (version id, digest, proof type) and hands them here, inside the caller's
// transaction and next to its write of the head rows. Nothing else inserts into
// namespace_versions, registry_versions or record_versions, so a version exists exactly when it
// went through here and its transaction committed.
//
// The platform statistics count entries here (stats.go): a first version creates its entry.
//
// The transparency log attaches here: each public version (every version but a record draft)
// is queued for the log (log_queue) in the same transaction, in the order of rows, so that the
// log and the directory can never disagree on what exists. The integrator (package translog)
// takes it from the queue into the tree.
func appendVersions[V versionRow](tx *gorm.DB, rows []V) error {
	if len(rows) == 0 {
		return nil
	}
	if err := tx.CreateInBatches(rows, versionBatch).Error; err != nil {
		return translate(err, rows[0].kind().String()+" versions")
	}
	created := 0
	for _, r := range rows {
		if r.first() {
			created++
		}
	}
	if err := addToCounter(tx, kindCounter[rows[0].kind()], created); err != nil {
		return err
	}
	queued := make([]logQueueRow, 0, len(rows))
	for _, r := range rows {
		l, ok := r.logLeaf()
		if !ok {
			continue
		}
		text, err := l.Canonical()
		if err != nil {
			return err
		}
		queued = append(queued, logQueueRow{Version: l.Version, Leaf: string(text)})
	}
	if len(queued) == 0 {
		return nil
	}
	return translate(tx.CreateInBatches(queued, 4*versionBatch).Error, "log queue")
}
