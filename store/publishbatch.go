package store

import (
	"github.com/svc-directory/svc/directory"
)

// The writes of publish-records: a batch of drafts of one registry published in one
// transaction, in a fixed number of statements whatever its size.

// RecordsForWrite reads and locks (until the transaction ends, in record_id order) the records
// of the registry (whose row the caller holds locked) with these names, by name; a name without
// a record is absent from the map.
func (t *Tx) RecordsForWrite(registryID string, names []string) (map[string]directory.SealedRecord, error) {
	var rows []recHeadRow
	if err := t.db.Raw(`SELECT * FROM records WHERE registry_id = ? AND record_name IN ? ORDER BY record_id`+t.s.d.forUpdate(),
		registryID, names).Scan(&rows).Error; err != nil {
		return nil, translate(err, "records")
	}
	out := make(map[string]directory.SealedRecord, len(rows))
	for _, r := range rows {
		out[r.RecordName] = r.sealed(r.CreatedAt, r.UpdatedAt)
	}
	return out, nil
}

// PublishRecords replaces the heads prev (drafts of one registry, read in this transaction) with
// their published versions next (directory.PublishDrafts: only the version, its count, state,
// digest and proof type change, at one moment), appends those versions (to the log, too), and
// counts the records as public. A head that is no longer its prev is directory.ErrStaleVersion.
func (t *Tx) PublishRecords(prev, next []directory.SealedRecord) error {
	if len(next) == 0 {
		return nil
	}
	if err := t.setRecordStates(prev, next, ""); err != nil {
		return err
	}
	if err := t.db.Exec(`UPDATE registries SET draft_count = draft_count - ? WHERE registry_id = ?`, len(next), next[0].RegistryID).Error; err != nil {
		return translate(err, "count drafts")
	}
	return addToCounter(t.db, counterRecords, len(next))
}
