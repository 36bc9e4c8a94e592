package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
)

// Verification results.
const (
	ResultSuccess = "success"
	ResultFailed  = "failed"
)

// VerificationLog is one attempt to verify a lookup response.
type VerificationLog struct {
	ID          string
	LookupType  string // namespace, registry or record
	VerifiedID  string // id of the entry the submitted response names ("" when it names none)
	NamespaceID string // the entry in this directory, when identified
	RegistryID  string
	RecordID    string
	UserID      string
	VerifiedBy  string // the caller's DID
	Result      string
	Reason      string // why it failed (kept in the log, not shown in the verify answer)
	Request     map[string]any
	CreatedAt   time.Time
}

type verificationLogRow struct {
	ID          string  `gorm:"column:id;primaryKey"`
	LookupType  string  `gorm:"column:lookup_type"`
	VerifiedID  string  `gorm:"column:verified_id"`
	NamespaceID *string `gorm:"column:namespace_id"`
	RegistryID  *string `gorm:"column:registry_id"`
	RecordID    *string `gorm:"column:record_id"`
	UserID      string  `gorm:"column:user_id"`
	VerifiedBy  string  `gorm:"column:verified_by"`
	Result      string  `gorm:"column:result"`
	Reason      string  `gorm:"column:reason"`
	Request     string  `gorm:"column:request"`
	CreatedAt   int64   `gorm:"column:created_at"`
}

func (verificationLogRow) TableName() string { return "verification_logs" }

// Bounds of one verification log row (bytes): what callers submit must not drive the size of
// the log. Callers keep to them (the server stores what the check compared, shortened); a row
// beyond them is refused with directory.ErrInvalid and nothing is written.
const (
	MaxLogVerifiedID = 256
	MaxLogReason     = 1 << 10
	MaxLogRequest    = 4 << 10
)

// AddVerificationLog records an attempt and returns it with its id and time. It returns once
// the row is written: concurrent attempts are written together in one statement (a small
// group commit), so that the log keeps up with many verifications at once.
func (s *Store) AddVerificationLog(ctx context.Context, l VerificationLog) (VerificationLog, error) {
	req, err := directory.CanonicalText(l.Request)
	if err != nil {
		return l, err
	}
	switch {
	case len(l.VerifiedID) > MaxLogVerifiedID:
		return l, directory.Invalid.With("verification log: verified_id of %d bytes (at most %d)", len(l.VerifiedID), MaxLogVerifiedID)
	case len(l.Reason) > MaxLogReason:
		return l, directory.Invalid.With("verification log: reason of %d bytes (at most %d)", len(l.Reason), MaxLogReason)
	case len(req) > MaxLogRequest:
		return l, directory.Invalid.With("verification log: request of %d bytes (at most %d)", len(req), MaxLogRequest)
	}
	l.ID = directory.NewUUID()
	now := s.nowMS()
	l.CreatedAt = msTime(now)
	w := logWrite{args: []any{l.ID, l.LookupType, l.VerifiedID, nullable(l.NamespaceID), nullable(l.RegistryID), nullable(l.RecordID),
		l.UserID, l.VerifiedBy, l.Result, l.Reason, req, now}, done: make(chan error, 1)}
	s.logOnce.Do(func() { go s.writeLogs() })
	select {
	case s.logQueue <- w:
	case <-s.closed:
		return l, fmt.Errorf("verification log: the store is closed")
	case <-ctx.Done():
		return l, ctx.Err()
	}
	return l, <-w.done // wait even if ctx ends: the row is on its way
}

// logWrite is one log row waiting to be written.
type logWrite struct {
	args []any
	done chan error
}

const logColumns = 12

// writeLogs writes queued log rows, taking whatever is queued at once (up to 200 rows) into one
// INSERT; a failed batch is retried row by row so that each caller learns its own outcome.
func (s *Store) writeLogs() {
	for {
		var batch []logWrite
		select {
		case w := <-s.logQueue:
			batch = append(batch, w)
		case <-s.closed:
			for { // answer whoever is still queued
				select {
				case w := <-s.logQueue:
					w.done <- fmt.Errorf("verification log: the store is closed")
				default:
					return
				}
			}
		}
	more:
		for len(batch) < 200 {
			select {
			case w := <-s.logQueue:
				batch = append(batch, w)
			default:
				break more
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := s.insertLogs(ctx, batch); err != nil && len(batch) > 1 {
			for _, w := range batch {
				w.done <- s.insertLogs(ctx, []logWrite{w})
			}
		} else {
			for _, w := range batch {
				w.done <- err
			}
		}
		cancel()
	}
}

func (s *Store) insertLogs(ctx context.Context, batch []logWrite) error {
	var b strings.Builder
	b.WriteString(`INSERT INTO verification_logs (id, lookup_type, verified_id, namespace_id, registry_id, record_id, user_id,
		verified_by, result, reason, request, created_at) VALUES `)
	args := make([]any, 0, len(batch)*logColumns)
	for i, w := range batch {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?)")
		args = append(args, w.args...)
	}
	err := s.db.WithContext(quiet(ctx)).Exec(b.String(), args...).Error
	return translate(err, "verification log")
}

// VerificationLogs returns a page of the attempts on one entry, newest first, and how many
// there are in all. onlyUserID, when set, keeps the attempts of that user only.
func (s *Store) VerificationLogs(ctx context.Context, lookupType, entryID, onlyUserID string, page, pageSize int) ([]VerificationLog, int64, error) {
	q := s.rdb(ctx).Model(&verificationLogRow{}).Where("lookup_type = ? AND verified_id = ?", lookupType, entryID)
	if onlyUserID != "" {
		q = q.Where("user_id = ?", onlyUserID)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, translate(err, "verification logs")
	}
	var rows []verificationLogRow
	if err := q.Order("created_at DESC, id DESC").Offset((page - 1) * pageSize).Limit(pageSize).Find(&rows).Error; err != nil {
		return nil, 0, translate(err, "verification logs")
	}
	out := make([]VerificationLog, len(rows))
	for i, r := range rows {
		req, err := directory.DecodeObject(r.Request)
		if err != nil {
			return nil, 0, err
		}
		out[i] = VerificationLog{ID: r.ID, LookupType: r.LookupType, VerifiedID: r.VerifiedID, NamespaceID: deref(r.NamespaceID),
			RegistryID: deref(r.RegistryID), RecordID: deref(r.RecordID), UserID: r.UserID, VerifiedBy: r.VerifiedBy,
			Result: r.Result, Reason: r.Reason, Request: req, CreatedAt: msTime(r.CreatedAt)}
	}
	return out, total, nil
}

// StoredVersion is what the directory holds for one version of an entry.
type StoredVersion struct {
	NamespaceID string
	RegistryID  string
	RecordID    string
	Digest      string
	ProofType   string
	Draft       bool // a record's draft version: private to its namespace's owner and delegates
}

// EntryVersion finds the version of the entry (of the kind, by its id) and returns its stored
// digest. directory.ErrNotFound when the entry or that version does not exist. Versions never change once
// written, so found versions are remembered (a bounded cache).
func (s *Store) EntryVersion(ctx context.Context, kind proof.Kind, entryID, version string) (StoredVersion, error) {
	key := kind.String() + "\x00" + entryID + "\x00" + version
	if v, ok := s.versions.Get(key); ok {
		return v, nil
	}
	v, err := s.entryVersion(ctx, kind, entryID, version)
	if err == nil {
		s.versions.Set(key, v)
	}
	return v, err
}

func (s *Store) entryVersion(ctx context.Context, kind proof.Kind, entryID, version string) (StoredVersion, error) {
	var q string
	switch kind {
	case proof.KindNamespace:
		q = `SELECT namespace_id, '' AS registry_id, '' AS record_id, digest, proof_type, 'live' AS state FROM namespace_versions WHERE namespace_id = ? AND version = ?`
	case proof.KindRegistry:
		q = `SELECT namespace_id, registry_id, '' AS record_id, digest, proof_type, 'live' AS state FROM registry_versions WHERE registry_id = ? AND version = ?`
	case proof.KindRecord:
		q = `SELECT namespace_id, registry_id, record_id, digest, proof_type, state FROM record_versions WHERE record_id = ? AND version = ?`
	default:
		return StoredVersion{}, directory.Invalid.With("unknown entry kind %v", kind)
	}
	var v StoredVersion
	var state string
	err := s.rawRow(ctx, q, []any{entryID, version}, &v.NamespaceID, &v.RegistryID, &v.RecordID, &v.Digest, &v.ProofType, &state)
	v.Draft = state == directory.StateDraft
	if errors.Is(err, sql.ErrNoRows) {
		return StoredVersion{}, fmt.Errorf("%s %q version %q: %w", kind, entryID, version, directory.ErrNotFound)
	}
	return v, translate(err, kind.String()+" version")
}

// EntryExists tells whether an entry of the kind exists (any version).
func (s *Store) EntryExists(ctx context.Context, kind proof.Kind, entryID string) (bool, error) {
	var q string
	switch kind {
	case proof.KindNamespace:
		q = `SELECT COUNT(*) FROM namespaces WHERE namespace_id = ?`
	case proof.KindRegistry:
		q = `SELECT COUNT(*) FROM registries WHERE registry_id = ?`
	case proof.KindRecord:
		q = `SELECT COUNT(*) FROM records WHERE record_id = ?`
	default:
		return false, directory.Invalid.With("unknown entry kind %v", kind)
	}
	var n int64
	err := s.rdb(ctx).Raw(q, entryID).Scan(&n).Error
	return n > 0, translate(err, kind.String())
}
