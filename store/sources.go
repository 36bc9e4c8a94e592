package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/translog/leaf"
)

// Statuses of a verification source.
const (
	SourceActive = "active"
	SourceGrace  = "grace"
)

// Refusals of ClaimDomain; each also matches ErrConflict.
var (
	ErrDomainTaken        = directory.Conflict.With("the domain is already verified by another namespace")
	ErrNamespaceHasDomain = directory.Conflict.With("the namespace already has another verified domain")
)

type sourceRow struct {
	ID            string  `gorm:"column:id;primaryKey"`
	NamespaceID   string  `gorm:"column:namespace_id"`
	Domain        string  `gorm:"column:domain"`
	Method        string  `gorm:"column:method"`
	RequestID     *string `gorm:"column:request_id"`
	Status        string  `gorm:"column:status"`
	VerifiedAt    int64   `gorm:"column:verified_at"`
	LastCheckedAt int64   `gorm:"column:last_checked_at"`
	NextCheckAt   int64   `gorm:"column:next_check_at"`
	GraceUntil    *int64  `gorm:"column:grace_until"`
	LastError     string  `gorm:"column:last_error"`
	CreatedAt     int64   `gorm:"column:created_at"`
}

func (sourceRow) TableName() string { return "domain_sources" }

func (r sourceRow) source() Source {
	return Source{ID: r.ID, NamespaceID: r.NamespaceID, Domain: r.Domain, Method: r.Method, RequestID: deref(r.RequestID),
		Status: r.Status, GraceUntil: msTimePtr(r.GraceUntil)}
}

// Source is one way a namespace holds its verified domain (a method, and for delegated sources
// the request).
type Source struct {
	ID          string
	NamespaceID string
	Domain      string
	Method      string
	RequestID   string
	Status      string
	GraceUntil  *time.Time
	TXT         string // the generated value (self sources; ClaimDueSources)
	TargetID    string // the attesting namespace (delegated sources; ClaimDueSources)
}

// DomainHolder returns the namespace that holds the verified domain ("" when none).
func (s *Store) DomainHolder(ctx context.Context, domain string) (string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Model(&RowNamespace{}).Where("domain = ?", domain).Pluck("namespace_id", &ids).Error
	if err != nil || len(ids) == 0 {
		return "", translate(err, "domain holder")
	}
	return ids[0], nil
}

// ClaimDomain gives the namespace the domain and records an active source of method for it
// (requestID: the delegated request, else ""), next checked at nextCheck. A domain held by
// another namespace is ErrDomainTaken (the unique index decides races), a namespace holding
// another domain is ErrNamespaceHasDomain. When the namespace did not hold the domain yet, the
// same transaction logs the gain (a domain leaf of method: domainleaves.go); another source for
// a domain it holds logs nothing.
func (t *Tx) ClaimDomain(namespaceID, domain, method, requestID string, nextCheck time.Time) error {
	res := t.db.Exec(`UPDATE namespaces SET domain = ? WHERE namespace_id = ? AND domain IS NULL`, domain, namespaceID)
	if err := translate(res.Error, "claim domain"); err != nil {
		if directory.IsConflict(err) {
			return ErrDomainTaken
		}
		return err
	}
	gained := res.RowsAffected > 0
	if !gained {
		var held []*string
		if err := t.db.Model(&RowNamespace{}).Where("namespace_id = ?", namespaceID).Pluck("domain", &held).Error; err != nil {
			return translate(err, "namespace")
		}
		if len(held) == 0 {
			return fmt.Errorf("namespace %q: %w", namespaceID, directory.ErrNotFound)
		}
		if held[0] == nil || *held[0] != domain {
			return ErrNamespaceHasDomain
		}
	}
	now := t.s.nowMS()
	row := sourceRow{ID: directory.NewUUID(), NamespaceID: namespaceID, Domain: domain, Method: method, RequestID: nullable(requestID),
		Status: SourceActive, VerifiedAt: now, LastCheckedAt: now, NextCheckAt: nextCheck.UnixMilli(), CreatedAt: now}
	err := t.db.Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "namespace_id"}, {Name: "domain"}, {Name: "method"}},
		DoUpdates: clause.Assignments(map[string]any{"status": SourceActive, "verified_at": now, "last_checked_at": now,
			"next_check_at": row.NextCheckAt, "grace_until": nil, "last_error": "", "request_id": row.RequestID}),
	}).Create(&row).Error
	if err := translate(err, "verification source"); err != nil || !gained {
		return err
	}
	t.logDomainChange(namespaceID, domain, method, leaf.DomainGained)
	return nil
}

// MarkVerified is ClaimDomain in a transaction of its own, next checked interval from now by
// the store's clock.
func (s *Store) MarkVerified(ctx context.Context, namespaceID, domain, method string, interval time.Duration) error {
	return s.InTx(ctx, func(tx *Tx) error {
		return tx.ClaimDomain(namespaceID, domain, method, "", s.now().Add(interval))
	})
}

// SelfVerifiedDomain returns the namespace's verified domain when it holds it through a self
// source (DNS or HTTP), else "".
func (s *Store) SelfVerifiedDomain(ctx context.Context, namespaceID string) (string, error) {
	return (&Tx{s: s, db: s.db.WithContext(ctx)}).SelfVerifiedDomain(namespaceID)
}

// SelfVerifiedDomain is Store.SelfVerifiedDomain in the transaction.
func (t *Tx) SelfVerifiedDomain(namespaceID string) (string, error) {
	var ds []string
	err := t.db.Raw(`SELECT n.domain FROM namespaces n JOIN domain_sources d
		ON d.namespace_id = n.namespace_id AND d.domain = n.domain
		WHERE n.namespace_id = ? AND d.method IN (?, ?) LIMIT 1`, namespaceID, MethodSelfDNS, MethodSelfHTTP).Scan(&ds).Error
	if err != nil || len(ds) == 0 {
		return "", translate(err, "self verification")
	}
	return ds[0], nil
}

// LockNamespace locks the namespace row until the transaction ends (Postgres; SQLite's
// immediate transaction already holds the write lock), so that a concurrent change of its
// domain or its verification waits for the transaction, or the transaction sees it.
func (t *Tx) LockNamespace(namespaceID string) error {
	return t.s.d.lockNamespace(t.db, namespaceID)
}

// LockSources reads (and locks until the transaction ends) the namespace's sources for the domain.
func (t *Tx) LockSources(namespaceID, domain string) ([]Source, error) {
	var rows []sourceRow
	if err := t.db.Raw(`SELECT * FROM domain_sources WHERE namespace_id = ? AND domain = ? ORDER BY created_at, id`+t.s.d.forUpdate(),
		namespaceID, domain).Scan(&rows).Error; err != nil {
		return nil, translate(err, "sources")
	}
	out := make([]Source, len(rows))
	for i, r := range rows {
		out[i] = r.source()
	}
	return out, nil
}

// DeleteSources deletes the namespace's sources for the domain; it returns how many went.
func (t *Tx) DeleteSources(namespaceID, domain string) (int64, error) {
	res := t.db.Where("namespace_id = ? AND domain = ?", namespaceID, domain).Delete(&sourceRow{})
	return res.RowsAffected, translate(res.Error, "remove sources")
}

// ReleaseDomain clears the namespace's domain when no source for it remains; it reports whether
// it cleared it and whether the namespace still holds the domain through a source. A release
// logs the loss in the same transaction (a domain leaf of method, the method of the source
// whose removal released the domain: domainleaves.go). With method "" (a domain held by no
// source, as an origin-hosted namespace's) the loss takes the method of the binding's logged
// gain; a binding whose gain was never logged and that had no source logs nothing.
func (t *Tx) ReleaseDomain(namespaceID, domain, method string) (released, still bool, err error) {
	var n int64
	if err := t.db.Model(&sourceRow{}).Where("namespace_id = ? AND domain = ?", namespaceID, domain).Count(&n).Error; err != nil {
		return false, false, translate(err, "sources")
	}
	if n > 0 {
		return false, true, nil
	}
	res := t.db.Exec(`UPDATE namespaces SET domain = NULL WHERE namespace_id = ? AND domain = ?`, namespaceID, domain)
	if res.Error != nil {
		return false, false, translate(res.Error, "clear domain")
	}
	if res.RowsAffected == 0 {
		return false, false, nil
	}
	if method == "" {
		if method, err = gainedMethod(t.db, namespaceID, domain); err != nil {
			return false, false, err
		}
	}
	if method != "" {
		t.logDomainChange(namespaceID, domain, method, leaf.DomainLost)
	}
	return true, false, nil
}

// ClaimDueSources leases up to limit sources whose next check is at or before now: their next
// check moves to leaseUntil, so that with several instances on one database each due source is
// checked by one of them (Postgres: FOR UPDATE SKIP LOCKED; SQLite: one writer at a time).
// Self sources come with their generated value, delegated ones with their attesting namespace.
func (s *Store) ClaimDueSources(ctx context.Context, now, leaseUntil time.Time, limit int) ([]Source, error) {
	var rows []sourceRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Raw(`SELECT * FROM domain_sources WHERE next_check_at <= ? ORDER BY next_check_at, id LIMIT ?`+s.d.forUpdateSkipLocked(), now.UnixMilli(), limit).
			Scan(&rows).Error; err != nil {
			return translate(err, "due sources")
		}
		if len(rows) == 0 {
			return nil
		}
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		return translate(tx.Model(&sourceRow{}).Where("id IN ?", ids).Update("next_check_at", leaseUntil.UnixMilli()).Error, "lease sources")
	})
	if err != nil {
		return nil, err
	}
	out := make([]Source, 0, len(rows))
	for _, r := range rows {
		src := r.source()
		switch r.Method {
		case MethodDelegated:
			if req, err := s.GetRequest(ctx, src.RequestID); err == nil {
				src.TargetID = req.TargetNamespaceID
			}
		default:
			var cs []challengeRow
			if err := s.db.WithContext(ctx).Where("namespace_id = ? AND domain = ?", r.NamespaceID, r.Domain).Find(&cs).Error; err == nil && len(cs) > 0 {
				src.TXT = cs[0].TXT
			}
		}
		out = append(out, src)
	}
	return out, nil
}

// LockSource reads (and locks until the transaction ends) a source; found is false when it is
// gone.
func (t *Tx) LockSource(id string) (src Source, found bool, err error) {
	var row sourceRow
	if err := t.db.Raw(`SELECT * FROM domain_sources WHERE id = ?`+t.s.d.forUpdate(), id).Take(&row).Error; err != nil {
		if err = translate(err, "source"); errors.Is(err, directory.ErrNotFound) {
			return Source{}, false, nil
		}
		return Source{}, false, err
	}
	return row.source(), true, nil
}

// SourceCheck is the stored result of a check of a source.
type SourceCheck struct {
	Status      string
	CheckedAt   time.Time
	NextCheckAt time.Time
	GraceUntil  *time.Time // nil: none
	LastError   string
}

// RecordSourceCheck stores the result of a check of the source.
func (t *Tx) RecordSourceCheck(id string, c SourceCheck) error {
	var grace any // NULL unless set
	if c.GraceUntil != nil {
		grace = c.GraceUntil.UnixMilli()
	}
	return translate(t.db.Model(&sourceRow{}).Where("id = ?", id).Updates(map[string]any{"status": c.Status,
		"last_checked_at": c.CheckedAt.UnixMilli(), "next_check_at": c.NextCheckAt.UnixMilli(), "grace_until": grace,
		"last_error": c.LastError}).Error, "source")
}

// DeleteSource deletes one source.
func (t *Tx) DeleteSource(id string) error {
	return translate(t.db.Where("id = ?", id).Delete(&sourceRow{}).Error, "remove source")
}
