package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/proof"
)

// MaxBatch is the most records one add-records call may carry.
const MaxBatch = 1000

// RecordInput is one add-record body (details already validated against the registry schema).
type RecordInput struct {
	RecordName  string
	Description string
	Details     map[string]any
	Meta        map[string]any
	TTL         *int64
	ValidTill   *time.Time
	State       string // "" means live
}

// RecordPatch is the body of update-record; State is set by publish-record.
type RecordPatch struct {
	Details      map[string]any
	Description  *string
	Meta         map[string]any
	TTL          *int64
	ValidTill    *time.Time
	ClearValidTo bool // valid_till: null
	// Action changes the record's state (lifecycle.go); "" leaves it.
	Action Action
}

// AddedRecord is what add-records answers per record.
type AddedRecord struct {
	RecordName string
	RecordID   string
	Digest     string
	Version    string
}

// RowRecord holds the columns shared by the records head and record_versions.
// Database rows are exported only because GORM fills embedded structs through exported types;
// callers use the entry types (Namespace, Registry, Record, User).
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

type recRead struct {
	RowRecord        `gorm:"embedded"`
	VersionCreatedAt int64  `gorm:"column:v_created_at"`
	HeadCreatedAt    int64  `gorm:"column:head_created_at"`
	RegistryState    string `gorm:"column:registry_state"`
	Schema           string `gorm:"column:schema"`
	NamespaceName    string `gorm:"column:namespace_name"`
}

func (r recRead) record() (Record, error) {
	details, err := decodeObject(r.Details)
	if err != nil {
		return Record{}, err
	}
	meta, err := decodeObject(r.Meta)
	if err != nil {
		return Record{}, err
	}
	schema, err := decodeObject(r.Schema)
	if err != nil {
		return Record{}, err
	}
	return r.RowRecord.record(details, meta, schema, r.NamespaceName, r.RegistryState, r.HeadCreatedAt, r.VersionCreatedAt), nil
}

// record is the entry as a lookup of this version shows it: details, meta and schema decoded,
// the namespace's name and the registry's state current, the version made at updatedAt.
func (r RowRecord) record(details, meta, schema map[string]any, namespaceName, registryState string, createdAt, updatedAt int64) Record {
	return Record{
		RecordID: r.RecordID, RegistryID: r.RegistryID, NamespaceID: r.NamespaceID, NamespaceName: namespaceName,
		RegistryName: r.RegistryName, RegistryState: registryState, Schema: nonNil(schema), RecordName: r.RecordName,
		Description: r.Description, Details: nonNil(details), Meta: nonNil(meta), TTL: r.TTL, State: r.State,
		ValidTill: msTimePtr(r.ValidTill), CreatedBy: r.CreatedBy, Genesis: r.Genesis, CreatedAt: msTime(createdAt),
		UpdatedAt: msTime(updatedAt), Version: r.Version, VersionCount: r.VersionCount, Digest: r.Digest,
		ProofType: r.ProofType,
	}
}

// MaxDetails bounds a record's details, measured as canonical JSON (docs/operator-guide.md, Limits).
const MaxDetails = 64 << 10

// canonicalDetails is canonicalText for a record's details, refusing more than MaxDetails
// bytes; at prefixes the message (naming the record of a batch).
func canonicalDetails(details map[string]any, at string) (string, error) {
	text, err := canonicalText(details)
	if err != nil {
		return "", invalid.With("%sdetails: %v", at, err)
	}
	if len(text) > MaxDetails {
		return "", invalid.With("%sdetails are %d bytes; at most %d (64 KiB) are allowed", at, len(text), MaxDetails)
	}
	return text, nil
}

// sealRecord gives the row a new version, digest and proof type. details and meta are the
// values of r.Details and r.Meta; freshDetails and freshMeta, when not nil, are their canonical
// text as this write made it, which the digest takes as it is rather than canonicalizing again.
// (Text read back from Postgres is JSONB's rendering, not canonical: it is never passed here.)
func sealRecord(r *RowRecord, details, meta map[string]any, freshDetails, freshMeta *string, st stamp) error {
	r.Version = newVersion()
	r.ProofType = proof.ProofType(recVersionRow{}.kind(), st.year)
	var err error
	r.Digest, err = r.record(details, meta, nil, "", "", 0, 0).Fields().DigestCanonical(freshDetails, freshMeta)
	return err
}

// registryForWrite locks a registry head for a record write and checks it is live
// (RegistryWritable).
func (s *Store) registryForWrite(tx *gorm.DB, namespaceID, registryName string) (regHeadRow, error) {
	var g regHeadRow
	if err := tx.Raw(`SELECT * FROM registries WHERE namespace_id = ? AND registry_name = ?`+s.d.forUpdate(), namespaceID, registryName).Take(&g).Error; err != nil {
		return g, translate(err, "registry")
	}
	return g, RegistryWritable(g.State)
}

// AddRecords adds up to MaxBatch records to a live registry in one transaction: all or none.
// A name already in the registry, or twice in the batch, is ErrNameTaken naming it; a refusal
// of one record's content names it as records[i] (name).
func (s *Store) AddRecords(ctx context.Context, namespaceID, registryName, creatorDID string, in []RecordInput) ([]AddedRecord, error) {
	var out []AddedRecord
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var err error
		out, err = s.addRecordsTx(tx, namespaceID, registryName, creatorDID, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.noteRecordWrites(len(out))
	return out, nil
}

// AddRecord adds one record to a live registry and returns it as a lookup of the version it
// wrote shows it.
func (s *Store) AddRecord(ctx context.Context, namespaceID, registryName, creatorDID string, in RecordInput) (Record, error) {
	var out Record
	err := s.tx(ctx, func(tx *gorm.DB) error {
		g, heads, err := s.insertRecordsTx(tx, namespaceID, registryName, creatorDID, []RecordInput{in}, false)
		if err != nil {
			return err
		}
		nsName, err := namespaceNameTx(tx, namespaceID)
		if err != nil {
			return err
		}
		schema, err := decodeObject(g.Schema)
		if err != nil {
			return err
		}
		h := heads[0]
		out = h.record(in.Details, in.Meta, schema, nsName, g.State, h.CreatedAt, h.UpdatedAt)
		return nil
	})
	if err != nil {
		return Record{}, err
	}
	s.noteRecordWrites(1)
	return out, nil
}

// addRecordsTx is AddRecords inside the caller's transaction.
func (s *Store) addRecordsTx(tx *gorm.DB, namespaceID, registryName, creatorDID string, in []RecordInput) ([]AddedRecord, error) {
	_, heads, err := s.insertRecordsTx(tx, namespaceID, registryName, creatorDID, in, true)
	if err != nil {
		return nil, err
	}
	out := make([]AddedRecord, len(heads))
	for i, h := range heads {
		out[i] = AddedRecord{RecordName: h.RecordName, RecordID: h.RecordID, Digest: h.Digest, Version: h.Version}
	}
	return out, nil
}

// insertRecordsTx writes new records (heads, first versions and the registry's count) in the
// caller's transaction and returns the locked registry and the heads written. batch names a
// refused record as records[i] (name) in the message.
func (s *Store) insertRecordsTx(tx *gorm.DB, namespaceID, registryName, creatorDID string, in []RecordInput, batch bool) (regHeadRow, []recHeadRow, error) {
	var g regHeadRow
	if len(in) == 0 || len(in) > MaxBatch {
		return g, nil, invalid.With("a batch holds 1 to %d records, got %d", MaxBatch, len(in))
	}
	seen := make(map[string]struct{}, len(in))
	names := make([]string, len(in))
	for i, r := range in {
		if _, dup := seen[r.RecordName]; dup {
			return g, nil, ErrNameTaken.With("record %q appears twice in the batch", r.RecordName)
		}
		seen[r.RecordName] = struct{}{}
		names[i] = r.RecordName
	}
	heads := make([]recHeadRow, len(in))
	g, err := s.registryForWrite(tx, namespaceID, registryName)
	if err != nil {
		return g, nil, err
	}
	// The time of the new versions is read once the registry's lock is held, so that it never
	// runs against the order in which the registry's writers commit and are logged.
	st := s.stamp()
	var taken []string
	if err := tx.Model(&recHeadRow{}).Where("registry_id = ? AND record_name IN ?", g.RegistryID, names).Limit(1).Pluck("record_name", &taken).Error; err != nil {
		return g, nil, translate(err, "record names")
	}
	if len(taken) > 0 {
		return g, nil, ErrNameTaken.With("record %q already exists in the registry", taken[0])
	}
	for i, r := range in {
		at := ""
		if batch {
			at = fmt.Sprintf("records[%d] (%s): ", i, r.RecordName)
		}
		details, err := canonicalDetails(r.Details, at)
		if err != nil {
			return g, nil, err
		}
		meta, err := canonicalText(r.Meta)
		if err != nil {
			return g, nil, err
		}
		state := r.State
		if state == "" {
			state = StateLive
		}
		h := &heads[i]
		*h = recHeadRow{RowRecord: RowRecord{
			RecordID: newUUID(), RegistryID: g.RegistryID, NamespaceID: namespaceID, RegistryName: registryName,
			RecordName: r.RecordName, CreatedBy: creatorDID, Genesis: st.text, VersionCount: 1,
			Description: r.Description, Details: details, Meta: meta, TTL: ttlOr(r.TTL, DefaultTTL), State: state,
			ValidTill: timeMSPtr(r.ValidTill),
		}, CreatedAt: st.ms, UpdatedAt: st.ms, SearchText: SearchText(r.Details)}
		if err := sealRecord(&h.RowRecord, nil, nil, &h.Details, &h.Meta, st); err != nil {
			return g, nil, err
		}
	}
	if err := tx.CreateInBatches(heads, 500).Error; err != nil {
		if err = translate(err, "add records"); IsConflict(err) {
			return g, nil, ErrNameTaken.With("a record of the batch was added concurrently")
		}
		return g, nil, err
	}
	versions := make([]recVersionRow, len(heads))
	for i := range heads {
		versions[i] = recVersionRow{RowRecord: heads[i].RowRecord, CreatedAt: st.ms}
	}
	if err := appendVersions(tx, versions); err != nil {
		return g, nil, err
	}
	drafts := 0
	for _, h := range heads {
		if h.State == StateDraft {
			drafts++
		}
	}
	if err := tx.Exec(`UPDATE registries SET record_count = record_count + ?, draft_count = draft_count + ? WHERE registry_id = ?`,
		len(in), drafts, g.RegistryID).Error; err != nil {
		return g, nil, translate(err, "count records")
	}
	return g, heads, nil
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// UpdateRecord makes a new version of a record of a live registry (ifMatch as for
// UpdateNamespace). A patch that changes nothing returns the current version. Action changes
// the state as lifecycle.go allows (publishing only from draft: ErrNotDraft), and a revoked
// record refuses every change (ErrRecordRevoked). The answer is the version this call wrote
// (or found), never one a concurrent writer made after it.
func (s *Store) UpdateRecord(ctx context.Context, namespaceID, registryName, recordName, ifMatch string, p RecordPatch) (Record, error) {
	var out Record
	err := s.tx(ctx, func(tx *gorm.DB) error {
		g, err := s.registryForWrite(tx, namespaceID, registryName)
		if err != nil {
			return err
		}
		var h recHeadRow
		if err := tx.Raw(`SELECT * FROM records WHERE registry_id = ? AND record_name = ?`+s.d.forUpdate(), g.RegistryID, recordName).Take(&h).Error; err != nil {
			return translate(err, "record")
		}
		if ifMatch != "" && ifMatch != h.Version {
			return ErrStaleVersion
		}
		next := h.RowRecord
		if p.Details != nil {
			if next.Details, err = canonicalDetails(p.Details, ""); err != nil {
				return err
			}
		}
		if p.Description != nil {
			next.Description = *p.Description
		}
		if p.Meta != nil {
			if next.Meta, err = canonicalText(p.Meta); err != nil {
				return err
			}
		}
		if p.TTL != nil {
			next.TTL = *p.TTL
		}
		if p.ClearValidTo {
			next.ValidTill = nil
		} else if p.ValidTill != nil {
			next.ValidTill = timeMSPtr(p.ValidTill)
		}
		if p.Action != "" {
			if next.State, err = recordLifecycle.next(h.State, p.Action); err != nil {
				return err
			}
		}
		if h.State == StateRevoked && !sameRecord(next, h.RowRecord) {
			return ErrRecordRevoked
		}
		details := p.Details
		if details == nil {
			if details, err = decodeObject(next.Details); err != nil {
				return err
			}
		}
		meta := p.Meta
		if meta == nil {
			if meta, err = decodeObject(next.Meta); err != nil {
				return err
			}
		}
		updatedAt := h.UpdatedAt
		if !sameRecord(next, h.RowRecord) {
			st := s.stamp()
			next.VersionCount = h.VersionCount + 1
			var freshDetails, freshMeta *string
			if p.Details != nil {
				freshDetails = &next.Details
			}
			if p.Meta != nil {
				freshMeta = &next.Meta
			}
			if err := sealRecord(&next, details, meta, freshDetails, freshMeta, st); err != nil {
				return err
			}
			res := tx.Model(&recHeadRow{}).Where("record_id = ? AND version = ?", h.RecordID, h.Version).Updates(map[string]any{
				"version": next.Version, "version_count": next.VersionCount, "description": next.Description,
				"details": next.Details, "meta": next.Meta, "ttl": next.TTL, "state": next.State, "valid_till": next.ValidTill,
				"digest": next.Digest, "proof_type": next.ProofType, "updated_at": st.ms, "search_text": SearchText(details),
			})
			if res.Error != nil {
				return translate(res.Error, "update record")
			}
			if res.RowsAffected != 1 {
				return ErrStaleVersion
			}
			if err := appendVersions(tx, []recVersionRow{{RowRecord: next, CreatedAt: st.ms}}); err != nil {
				return err
			}
			if h.State == StateDraft && next.State != StateDraft { // published: the record is public from now on
				if err := tx.Exec(`UPDATE registries SET draft_count = draft_count - 1 WHERE registry_id = ?`, g.RegistryID).Error; err != nil {
					return translate(err, "count drafts")
				}
				if err := addToCounter(tx, counterRecords, 1); err != nil {
					return err
				}
			}
			updatedAt = st.ms
		}
		schema, err := decodeObject(g.Schema)
		if err != nil {
			return err
		}
		nsName, err := namespaceNameTx(tx, namespaceID)
		if err != nil {
			return err
		}
		out = next.record(details, meta, schema, nsName, g.State, h.CreatedAt, updatedAt)
		return nil
	})
	if err != nil {
		return Record{}, err
	}
	s.noteRecordWrites(1)
	return out, nil
}

func sameRecord(a, b RowRecord) bool {
	eqTill := (a.ValidTill == nil) == (b.ValidTill == nil) && (a.ValidTill == nil || *a.ValidTill == *b.ValidTill)
	return eqTill && a.Details == b.Details && a.Description == b.Description && a.Meta == b.Meta && a.TTL == b.TTL && a.State == b.State
}

// GetRecord reads a record at the selected version. It is the hottest read of the service,
// so it goes to database/sql directly: the latest version from the head row (no history join),
// older ones from the history.
func (s *Store) GetRecord(ctx context.Context, nsRef, registryName, recordName string, sel VersionSel) (Record, error) {
	cond, arg := namespaceRefClause(nsRef)
	if sel.latest() && cond == namespaceIDClause {
		r, err := s.d.readLatest(ctx, s, arg, registryName, recordName)
		if errors.Is(err, ErrNotFound) {
			return Record{}, fmt.Errorf("record %q: %w", recordName, ErrNotFound)
		}
		if err != nil {
			return Record{}, translate(err, "record")
		}
		return r.record()
	}
	src := "r" // the latest version is the head row itself
	join := ""
	args := []any{registryName, recordName, arg}
	tail := ""
	switch {
	case sel.latest():
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
		return Record{}, fmt.Errorf("record %q: %w", recordName, ErrNotFound)
	}
	if err != nil {
		return Record{}, translate(err, "record")
	}
	return r.record()
}

// RecordVersions lists a record's version ids, newest first; its draft versions only
// withDrafts (for the namespace's owner and delegates: drafts are private).
func (s *Store) RecordVersions(ctx context.Context, recordID string, withDrafts bool) ([]string, error) {
	var out []string
	q := s.rdb(ctx).Model(&recVersionRow{}).Where("record_id = ?", recordID)
	if !withDrafts {
		q = q.Where("state <> ?", StateDraft)
	}
	err := q.Order("version_count DESC").Pluck("version", &out).Error
	return out, translate(err, "record versions")
}
