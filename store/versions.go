package store

import (
	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
)

// versionRow is a row of one of the three version tables; kind says which.
type versionRow[V any] interface {
	RowNamespaceVersion | regVersionRow | recVersionRow
	kind() proof.Kind
	// appended is what the sinks are told of the version.
	appended() appendedVersion
	// first reports whether the version is its entry's first: the entry is created with it.
	first() bool
	// queuedAt is the row with its log queue position (log_seq).
	queuedAt(seq int64) V
}

func (r RowNamespaceVersion) queuedAt(seq int64) RowNamespaceVersion { r.LogSeq = &seq; return r }
func (r regVersionRow) queuedAt(seq int64) regVersionRow             { r.LogSeq = &seq; return r }
func (r recVersionRow) queuedAt(seq int64) recVersionRow             { r.LogSeq = &seq; return r }

func (r RowNamespaceVersion) first() bool { return r.VersionCount == 1 }
func (r regVersionRow) first() bool       { return r.VersionCount == 1 }
func (r recVersionRow) first() bool       { return r.VersionCount == 1 }

func (RowNamespaceVersion) kind() proof.Kind { return proof.KindNamespace }
func (regVersionRow) kind() proof.Kind       { return proof.KindRegistry }
func (recVersionRow) kind() proof.Kind       { return proof.KindRecord }

// The leaves are the domain's (directory: which versions are logged, and their fields).
func (r RowNamespaceVersion) appended() appendedVersion {
	l, public := directory.SealedNamespace{NamespaceID: r.NamespaceID, Version: r.Version, VersionCount: r.VersionCount,
		Digest: r.Digest}.Leaf()
	return appendedVersion{leaf: l, public: public, at: r.CreatedAt}
}

func (r regVersionRow) appended() appendedVersion {
	l, public := r.sealed(0, r.CreatedAt).Leaf()
	return appendedVersion{leaf: l, public: public, state: r.State, at: r.CreatedAt}
}

func (r recVersionRow) appended() appendedVersion {
	l, public := r.sealed(0, r.CreatedAt).Leaf()
	return appendedVersion{leaf: l, public: public, state: r.State, at: r.CreatedAt}
}

// appendedVersion is what the sinks are told of a version a write appends.
type appendedVersion struct {
	leaf   leaf.Leaf
	public bool   // logged and announced: every version but a record draft
	state  string // of registries and records
	at     int64  // when it was made (Unix ms)
	// logSeq is its position in the log's queue, set by the log queue's sink (0: not queued).
	logSeq int64
}

// A versionSink is told, in the writing transaction and before they are stored, of the versions
// a write appends, in order; it may give them their log queue positions (logSeq). The store's
// sinks are the log queue (translog.go) and the watch outbox (watch.go), registered at Open.
type versionSink func(tx *gorm.DB, vs []appendedVersion) error

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
// The platform statistics count entries here (stats.go): a first version creates its entry,
// and is counted when it is public (a record draft is counted when it is published).
//
// The sinks registered at Open are told of the versions here, in the same transaction and in
// order, before the versions are stored: the transparency log's queue (queueForLog: every
// public version is queued, so that the log and the directory can never disagree on what
// exists, and its row keeps its queue position; package translog integrates the queue) and the
// watch subscriptions' outbox (queueForWatchers, watch.go).
func appendVersions[V versionRow[V]](tx *gorm.DB, sinks []versionSink, rows []V) error {
	if len(rows) == 0 {
		return nil
	}
	vs := make([]appendedVersion, len(rows))
	for i, r := range rows {
		vs[i] = r.appended()
	}
	for _, sink := range sinks {
		if err := sink(tx, vs); err != nil {
			return err
		}
	}
	for i := range rows {
		if vs[i].logSeq != 0 {
			rows[i] = rows[i].queuedAt(vs[i].logSeq)
		}
	}
	if err := tx.CreateInBatches(rows, versionBatch).Error; err != nil {
		return translate(err, rows[0].kind().String()+" versions")
	}
	created := 0
	for i, r := range rows {
		if vs[i].public && r.first() {
			created++ // a record added as a draft is counted when it is published (Tx.UpdateRecord)
		}
	}
	return addToCounter(tx, kindCounter[rows[0].kind()], created)
}
