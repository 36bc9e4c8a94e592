package store

import (
	"fmt"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/proof"
)

// versionRow is a row of one of the three version tables; kind says which.
type versionRow[V any] interface {
	RowNamespaceVersion | regVersionRow | recVersionRow
	kind() proof.Kind
	// logLeaf is the version's transparency-log leaf; ok is false for a version anonymous
	// readers cannot see (a record draft), which is not logged.
	logLeaf() (leaf LogLeaf, ok bool)
	// first reports whether the version is its entry's first: the entry is created with it.
	first() bool
	// queuedAt is the row with its log queue position (log_seq).
	queuedAt(seq int64) V
	// event is what a watch subscription's webhook says of the version (watch.go).
	event() WatchEvent
}

func (r RowNamespaceVersion) queuedAt(seq int64) RowNamespaceVersion { r.LogSeq = &seq; return r }
func (r regVersionRow) queuedAt(seq int64) regVersionRow             { r.LogSeq = &seq; return r }
func (r recVersionRow) queuedAt(seq int64) recVersionRow             { r.LogSeq = &seq; return r }

func (r RowNamespaceVersion) event() WatchEvent { return watchEventOf(r, "", r.CreatedAt) }
func (r regVersionRow) event() WatchEvent       { return watchEventOf(r, r.State, r.CreatedAt) }
func (r recVersionRow) event() WatchEvent       { return watchEventOf(r, r.State, r.CreatedAt) }

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
// The platform statistics count entries here (stats.go): a first version creates its entry,
// and is counted when it is public (a record draft is counted when it is published).
//
// The transparency log attaches here: each public version (every version but a record draft)
// is queued for the log (log_queue) in the same transaction, in the order of rows, so that the
// log and the directory can never disagree on what exists; its row keeps its queue position. The integrator (package translog)
// takes it from the queue into the tree.
//
// Watch subscriptions attach here too: each public version of a watched entry queues one
// webhook event per subscription (watch_outbox), in the same transaction (watch.go).
func appendVersions[V versionRow[V]](tx *gorm.DB, rows []V) error {
	if len(rows) == 0 {
		return nil
	}
	if err := queueForLog(tx, rows); err != nil {
		return err
	}
	if err := queueForWatchers(tx, rows); err != nil {
		return err
	}
	if err := tx.CreateInBatches(rows, versionBatch).Error; err != nil {
		return translate(err, rows[0].kind().String()+" versions")
	}
	created := 0
	for _, r := range rows {
		if _, public := r.logLeaf(); public && r.first() {
			created++ // a record added as a draft is counted when it is published (UpdateRecord)
		}
	}
	return addToCounter(tx, kindCounter[rows[0].kind()], created)
}

// queueForLog queues the public versions of rows for the log, in the order of rows, and
// gives each its queue position (log_seq), by which the log finds its index once integrated.
func queueForLog[V versionRow[V]](tx *gorm.DB, rows []V) error {
	queued := make([]logQueueRow, 0, len(rows))
	at := make([]int, 0, len(rows))
	for i, r := range rows {
		l, ok := r.logLeaf()
		if !ok {
			continue
		}
		text, err := l.Canonical()
		if err != nil {
			return err
		}
		queued = append(queued, logQueueRow{Version: l.Version, Leaf: string(text)})
		at = append(at, i)
	}
	if len(queued) == 0 {
		return nil
	}
	if err := tx.CreateInBatches(queued, 4*versionBatch).Error; err != nil {
		return translate(err, "log queue")
	}
	for k, i := range at {
		if queued[k].Seq == 0 {
			return fmt.Errorf("store: the log queue gave version %s no position", queued[k].Version)
		}
		rows[i] = rows[i].queuedAt(queued[k].Seq)
	}
	return nil
}
