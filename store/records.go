package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/svc-directory/svc/directory"
)

// The records: their head rows (the latest version, with the text search reads) and their
// versions (record_versions).

// RowRecord holds the columns shared by the records head and record_versions.
// Database rows are exported only because GORM fills embedded structs through exported types;
// callers use the entry types of package directory.
type RowRecord struct {
	RecordID     string `gorm:"column:record_id"`
	RegistryID   string `gorm:"column:registry_id"`
	NamespaceID  string `gorm:"column:namespace_id"`
	RegistryName string `gorm:"column:registry_name"`
	RecordName   string `gorm:"column:record_name"`
	CreatedBy    string `gorm:"column:created_by"`
	Genesis      string `gorm:"column:genesis"`
	Version      string `gorm:"column:version"`
	VersionCount int64  `gorm:"column:version_count"`
	Description  string `gorm:"column:description"`
	Details      string `gorm:"column:details"`
	Meta         string `gorm:"column:meta"`
	TTL          int64  `gorm:"column:ttl"`
	State        string `gorm:"column:state"`
	ValidTill    *int64 `gorm:"column:valid_till"`
	Digest       string `gorm:"column:digest"`
	ProofType    string `gorm:"column:proof_type"`
}

type recHeadRow struct {
	RowRecord  `gorm:"embedded"`
	CreatedAt  int64  `gorm:"column:created_at"`
	UpdatedAt  int64  `gorm:"column:updated_at"`
	SearchText string `gorm:"column:search_text"`
}

func (recHeadRow) TableName() string { return "records" }

type recVersionRow struct {
	RowRecord `gorm:"embedded"`
	CreatedAt int64  `gorm:"column:created_at"`
	LogSeq    *int64 `gorm:"column:log_seq"` // its log queue position (nil for a draft)
}

func (recVersionRow) TableName() string { return "record_versions" }

// sealed is the version the row holds, made at updatedAt, of the record created at createdAt.
func (r RowRecord) sealed(createdAt, updatedAt int64) directory.SealedRecord {
	return directory.SealedRecord{RecordID: r.RecordID, RegistryID: r.RegistryID, NamespaceID: r.NamespaceID,
		RegistryName: r.RegistryName, RecordName: r.RecordName, CreatedBy: r.CreatedBy, Genesis: r.Genesis,
		RecordContent: directory.RecordContent{Description: r.Description, Details: r.Details, Meta: r.Meta, TTL: r.TTL,
			State: r.State, ValidTill: r.ValidTill},
		Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest, ProofType: r.ProofType,
		CreatedAt: createdAt, UpdatedAt: updatedAt}
}

func rowRecordOf(r directory.SealedRecord) RowRecord {
	return RowRecord{RecordID: r.RecordID, RegistryID: r.RegistryID, NamespaceID: r.NamespaceID, RegistryName: r.RegistryName,
		RecordName: r.RecordName, CreatedBy: r.CreatedBy, Genesis: r.Genesis, Version: r.Version, VersionCount: r.VersionCount,
		Description: r.Description, Details: r.Details, Meta: r.Meta, TTL: r.TTL, State: r.State, ValidTill: r.ValidTill,
		Digest: r.Digest, ProofType: r.ProofType}
}

type recRead struct {
	RowRecord        `gorm:"embedded"`
	VersionCreatedAt int64  `gorm:"column:v_created_at"`
	HeadCreatedAt    int64  `gorm:"column:head_created_at"`
	RegistryState    string `gorm:"column:registry_state"`
	Schema           string `gorm:"column:schema"`
	NamespaceName    string `gorm:"column:namespace_name"`
}

func (r recRead) record() (directory.Record, error) {
	schema, err := directory.DecodeObject(r.Schema)
	if err != nil {
		return directory.Record{}, err
	}
	return r.sealed(r.HeadCreatedAt, r.VersionCreatedAt).Record(r.NamespaceName, r.RegistryState, schema)
}

// InsertRecords writes new records of one registry (their heads and first versions) and counts
// them on the registry, whose row the caller holds locked (RegistryForWrite). A name already in
// the registry is directory.ErrNameTaken naming it.
func (t *Tx) InsertRecords(recs []directory.SealedRecord) error {
	if len(recs) == 0 {
		return nil
	}
	registryID := recs[0].RegistryID
	names := make([]string, len(recs))
	for i, r := range recs {
		names[i] = r.RecordName
	}
	var taken []string
	if err := t.db.Model(&recHeadRow{}).Where("registry_id = ? AND record_name IN ?", registryID, names).Limit(1).Pluck("record_name", &taken).Error; err != nil {
		return translate(err, "record names")
	}
	if len(taken) > 0 {
		return directory.ErrNameTaken.With("record %q already exists in the registry", taken[0])
	}
	heads := make([]recHeadRow, len(recs))
	versions := make([]recVersionRow, len(recs))
	for i, r := range recs {
		row := rowRecordOf(r)
		heads[i] = recHeadRow{RowRecord: row, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, SearchText: searchTextOf(r)}
		versions[i] = recVersionRow{RowRecord: row, CreatedAt: r.UpdatedAt}
	}
	if err := t.db.CreateInBatches(heads, 500).Error; err != nil {
		if err = translate(err, "add records"); directory.IsConflict(err) {
			return directory.ErrNameTaken.With("a record of the batch was added concurrently")
		}
		return err
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
		return SearchText(r.DetailsValue)
	}
	m, err := directory.DecodeObject(r.Details)
	if err != nil {
		return ""
	}
	return SearchText(m)
}

// GetRecord reads a record at the selected version. It is the hottest read of the service,
// so it goes to database/sql directly: the latest version from the head row (no history join),
// older ones from the history.
func (s *Store) GetRecord(ctx context.Context, nsRef, registryName, recordName string, sel directory.VersionSel) (directory.Record, error) {
	cond, arg := namespaceRefClause(nsRef)
	if sel.Latest() && cond == namespaceIDClause {
		r, err := s.d.readLatest(ctx, s, arg, registryName, recordName)
		if errors.Is(err, directory.ErrNotFound) {
			return directory.Record{}, fmt.Errorf("record %q: %w", recordName, directory.ErrNotFound)
		}
		if err != nil {
			return directory.Record{}, translate(err, "record")
		}
		return r.record()
	}
	src := "r" // the latest version is the head row itself
	join := ""
	args := []any{registryName, recordName, arg}
	tail := ""
	switch {
	case sel.Latest():
	case sel.VersionID != "":
		src, join, tail = "v", " JOIN record_versions v ON v.record_id = r.record_id", " AND v.version = ?"
		args = append(args, sel.VersionID)
	default:
		src, join, tail = "v", " JOIN record_versions v ON v.record_id = r.record_id", " AND v.created_at < ? ORDER BY v.version_count DESC LIMIT 1"
		args = append(args, sel.Before.UnixMilli())
	}
	updated := src + ".created_at"
	if src == "r" {
		updated = "r.updated_at"
	}
	q := `SELECT ` + src + `.record_id, ` + src + `.registry_id, ` + src + `.namespace_id, ` + src + `.registry_name, ` +
		src + `.record_name, ` + src + `.created_by, ` + src + `.genesis, ` + src + `.version, ` + src + `.version_count, ` +
		src + `.description, ` + src + `.details, ` + src + `.meta, ` + src + `.ttl, ` + src + `.state, ` + src + `.valid_till, ` +
		src + `.digest, ` + src + `.proof_type, ` + updated + `, r.created_at, g.state, g.schema, n.name
		FROM namespaces n
		JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = ?
		JOIN records r ON r.registry_id = g.registry_id AND r.record_name = ?` + join + `
		WHERE ` + cond + tail
	var r recRead
	err := queryRow(ctx, s.rsql(ctx), s.d.rebind(q), args, r.scanDest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return directory.Record{}, fmt.Errorf("record %q: %w", recordName, directory.ErrNotFound)
	}
	if err != nil {
		return directory.Record{}, translate(err, "record")
	}
	return r.record()
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
