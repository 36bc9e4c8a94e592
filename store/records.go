package store

import (
	"context"
	"errors"
	"strings"

	"github.com/svc-directory/svc/directory"
	"gorm.io/gorm/clause"
)

// The records' writes and reads by name (their rows and read shapes are in entryrows.go; the
// latest-record fast paths in lookupbatch.go).

// InsertRecords writes new records of one registry (their heads and first versions) and counts
// them on the registry, whose row the caller holds locked (RegistryForWrite). A name already in
// the registry is directory.ErrNameTaken naming it.
func (t *Tx) InsertRecords(recs []directory.SealedRecord) error {
	if len(recs) == 0 {
		return nil
	}
	registryID := recs[0].RegistryID
	heads := make([]recHeadRow, len(recs))
	versions := make([]recVersionRow, len(recs))
	for i, r := range recs {
		row := rowRecordOf(r)
		heads[i] = recHeadRow{RowRecord: row, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, SearchText: searchTextOf(r)}
		versions[i] = recVersionRow{RowRecord: row, CreatedAt: r.UpdatedAt}
	}
	// The heads go in with the name's uniqueness as the check: a name the registry already
	// has (or that a concurrent writer added first) is skipped rather than failing the
	// statement, and a shortfall names it. A separate SELECT of the names first would rest on
	// the planner's statistics, which a long transaction (an ingest of a large file) leaves far
	// behind the rows it wrote: Postgres then scanned the registry's every record per batch.
	res := t.db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "registry_id"}, {Name: "record_name"}}, DoNothing: true}).
		CreateInBatches(heads, 500)
	if res.Error != nil {
		return translate(res.Error, "add records")
	}
	if res.RowsAffected != int64(len(heads)) {
		return t.nameTaken(registryID, heads)
	}
	if err := appendVersions(t.db, t.s.sinks, versions); err != nil {
		return err
	}
	drafts := 0
	for _, r := range recs {
		if r.State == directory.StateDraft {
			drafts++
		}
	}
	if err := t.db.Exec(`UPDATE registries SET record_count = record_count + ?, draft_count = draft_count + ? WHERE registry_id = ?`,
		len(recs), drafts, registryID).Error; err != nil {
		return translate(err, "count records")
	}
	t.recordWrites += len(recs)
	return nil
}

// nameTaken is the error of an insert of heads that skipped some: the first of their names
// that the registry holds under another record id (already there, or added concurrently and
// committed first), as directory.ErrNameTaken.
func (t *Tx) nameTaken(registryID string, heads []recHeadRow) error {
	names := make([]string, len(heads))
	ours := make(map[string]string, len(heads))
	twice := ""
	for i, h := range heads {
		names[i] = h.RecordName
		if _, seen := ours[h.RecordName]; seen && twice == "" {
			twice = h.RecordName
		} else if !seen {
			ours[h.RecordName] = h.RecordID
		}
	}
	var rows []struct{ RecordName, RecordID string }
	if err := t.db.Raw(`SELECT record_name, record_id FROM records WHERE registry_id = ? AND record_name IN ?`, registryID, names).
		Scan(&rows).Error; err != nil {
		return translate(err, "record names")
	}
	for _, r := range rows {
		if ours[r.RecordName] != r.RecordID {
			return directory.ErrNameTaken.With("record %q already exists in the registry", r.RecordName)
		}
	}
	if twice != "" { // no other record holds them: the batch named one twice
		return directory.ErrNameTaken.With("record %q is named twice in the batch", twice)
	}
	return directory.ErrNameTaken.With("a record of the batch was added concurrently")
}

// RecordForWrite reads and locks (until the transaction ends) the record of the registry
// (whose row the caller holds locked). A record that is not there is a
// *directory.NotFoundError (MissingRecord).
func (t *Tx) RecordForWrite(registryID, name string) (directory.SealedRecord, error) {
	var rows []recHeadRow
	if err := t.db.Raw(`SELECT * FROM records WHERE registry_id = ? AND record_name = ?`+t.s.d.forUpdate(), registryID, name).Scan(&rows).Error; err != nil {
		return directory.SealedRecord{}, translate(err, "record")
	}
	if len(rows) == 0 {
		return directory.SealedRecord{}, directory.NotFound(directory.MissingRecord, name)
	}
	return rows[0].sealed(rows[0].CreatedAt, rows[0].UpdatedAt), nil
}

// UpdateRecord replaces the head prev (read in this transaction) with its next version and
// appends that version. A head that is no longer prev is directory.ErrStaleVersion.
func (t *Tx) UpdateRecord(prev, next directory.SealedRecord) error {
	res := t.db.Model(&recHeadRow{}).Where("record_id = ? AND version = ?", prev.RecordID, prev.Version).Updates(map[string]any{
		"version": next.Version, "version_count": next.VersionCount, "description": next.Description,
		"details": next.Details, "meta": next.Meta, "ttl": next.TTL, "state": next.State, "valid_till": next.ValidTill,
		"digest": next.Digest, "proof_type": next.ProofType, "updated_at": next.UpdatedAt, "search_text": searchTextOf(next),
	})
	if res.Error != nil {
		return translate(res.Error, "update record")
	}
	if res.RowsAffected != 1 {
		return directory.ErrStaleVersion
	}
	t.recordWrites++
	if err := appendVersions(t.db, t.s.sinks, []recVersionRow{{RowRecord: rowRecordOf(next), CreatedAt: next.UpdatedAt}}); err != nil {
		return err
	}
	if prev.State == directory.StateDraft && next.State != directory.StateDraft { // published: public from now on
		if err := t.db.Exec(`UPDATE registries SET draft_count = draft_count - 1 WHERE registry_id = ?`, prev.RegistryID).Error; err != nil {
			return translate(err, "count drafts")
		}
		return addToCounter(t.db, counterRecords, 1)
	}
	return nil
}

// searchTextOf is the search text of a record version's details.
func searchTextOf(r directory.SealedRecord) string {
	if r.DetailsValue != nil {
		return directory.SearchText(r.DetailsValue)
	}
	m, err := directory.DecodeObject(r.Details)
	if err != nil {
		return ""
	}
	return directory.SearchText(m)
}

// GetRecord reads a record at the selected version. The latest version by namespace id, the
// hottest read of the service, takes its dialect's fast path (lookupbatch.go), and a miss there
// is explained by the general read, which says which level was missing.
func (s *Store) GetRecord(ctx context.Context, nsRef, registryName, recordName string, sel directory.VersionSel) (directory.Record, error) {
	cond, arg := namespaceRefClause(nsRef)
	if sel.Latest() && cond == namespaceIDClause {
		r, err := s.readLatest(ctx, arg, registryName, recordName)
		switch {
		case errors.Is(err, directory.ErrNotFound):
		case err != nil:
			return directory.Record{}, translate(err, "record")
		default:
			if m := directory.DeletedLevel(r.NamespaceState, r.RegistryState, r.State); m != "" {
				return directory.Record{}, directory.NotFound(m, []string{nsRef, registryName, recordName}[levelIndex(m)])
			}
			return r.record()
		}
	}
	return s.readRecord(ctx, cond, arg, registryName, recordName, sel)
}

// recordCols are a record version's columns, of the head row r or the version row v.
var recordCols = [...]string{"record_id", "registry_id", "namespace_id", "registry_name", "record_name", "created_by",
	"genesis", "version", "version_count", "description", "details", "meta", "ttl", "state", "valid_till", "digest", "proof_type"}

// recordColsOf lists recordCols of the table alias src (r or v).
func recordColsOf(src string) string {
	return src + "." + strings.Join(recordCols[:], ", "+src+".")
}

// readRecord reads a record at the selected version in one statement that also says what it
// missed (versionread.go): the latest from the head row (no history join), older ones from
// the history.
func (s *Store) readRecord(ctx context.Context, cond, arg, registryName, recordName string, sel directory.VersionSel) (directory.Record, error) {
	src, updated, join, jargs := "r", "r.updated_at", "", []any(nil)
	if !sel.Latest() {
		src, updated = "v", "v.created_at"
		join, jargs = versionJoin("record_versions", "r", "record_id", sel)
	}
	q := `SELECT ` + recordColsOf(src) + `, ` + updated + ` AS v_created_at, r.created_at AS head_created_at,
			g.state AS registry_state, g.schema AS schema, n.name AS namespace_name, n.state AS namespace_state,
			n.namespace_id AS head_namespace_id, g.registry_id AS head_registry_id, r.record_id AS head_record_id, r.state AS head_state
		FROM namespaces n
		LEFT JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = ?
		LEFT JOIN records r ON r.registry_id = g.registry_id AND r.record_name = ?` + join + `
		WHERE ` + cond
	var rows []recRead
	if err := s.rdb(ctx).Raw(q, append(append([]any{registryName, recordName}, jargs...), arg)...).Scan(&rows).Error; err != nil {
		return directory.Record{}, translate(err, "record")
	}
	var r recRead
	if len(rows) > 0 {
		r = rows[0]
	}
	err := missedLevel(len(rows), "record", sel, []string{arg, registryName, recordName},
		[]bool{r.HeadRegistryID != "", r.HeadRecordID != ""}, r.Version != "")
	if nf, ok := err.(*directory.NotFoundError); ok && nf.Missing != directory.MissingRecord && r.HeadRecordID != "" {
		nf.Draft, nf.NamespaceID = r.HeadState == directory.StateDraft, r.HeadNamespaceID
	}
	if err != nil {
		return directory.Record{}, err
	}
	if m := directory.DeletedLevel(r.NamespaceState, r.RegistryState, r.State); sel.Latest() && m != "" {
		return directory.Record{}, directory.NotFound(m, []string{arg, registryName, recordName}[levelIndex(m)])
	}
	rec, err := r.record()
	rec.LatestState = r.HeadState
	return rec, err
}

// RecordVersions lists a record's version ids, newest first; its draft versions only
// withDrafts (for the namespace's owner and delegates: drafts are private).
func (s *Store) RecordVersions(ctx context.Context, recordID string, withDrafts bool) ([]string, error) {
	var out []string
	q := s.rdb(ctx).Model(&recVersionRow{}).Where("record_id = ?", recordID)
	if !withDrafts {
		q = q.Where("state <> ?", directory.StateDraft)
	}
	err := q.Order("version_count DESC").Pluck("version", &out).Error
	return out, translate(err, "record versions")
}
