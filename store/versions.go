package store

import (
	"gorm.io/gorm"

	"github.com/svc-directory/svc/proof"
)

// versionRow is a row of one of the three version tables; kind says which.
type versionRow interface {
	RowNamespaceVersion | regVersionRow | recVersionRow
	kind() proof.Kind
}

func (RowNamespaceVersion) kind() proof.Kind { return proof.KindNamespace }
func (regVersionRow) kind() proof.Kind       { return proof.KindRegistry }
func (recVersionRow) kind() proof.Kind       { return proof.KindRecord }

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
// This is where a transparency log attaches: each public version is enqueued here, in the
// same transaction, so that the log and the directory can never disagree on what exists.
func appendVersions[V versionRow](tx *gorm.DB, rows []V) error {
	if len(rows) == 0 {
		return nil
	}
	return translate(tx.CreateInBatches(rows, versionBatch).Error, rows[0].kind().String()+" versions")
}
