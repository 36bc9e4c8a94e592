// The changes of the domain bindings (docs/transparency-log.md, "Domain leaves"): each time a
// namespace gains or loses its verified domain (ClaimDomain, ReleaseDomain: sources.go), the
// transaction that changes namespaces.domain queues a transparency-log leaf of kind domain
// (translog/leaf) and keeps it in domain_changes (migration 0028), from which a log restart
// queues it again. The leaf's id in the log queue is the BLAKE2b-256 of its text.

package store

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
)

type domainChangeRow struct {
	Seq         int64  `gorm:"column:seq;primaryKey"`
	Domain      string `gorm:"column:domain"`
	NamespaceID string `gorm:"column:namespace_id"`
	Method      string `gorm:"column:method"`
	Change      string `gorm:"column:change"`
	Digest      string `gorm:"column:digest"`
	Leaf        string `gorm:"column:leaf"`
	CreatedAt   int64  `gorm:"column:created_at;autoCreateTime:false"`
	LogSeq      *int64 `gorm:"column:log_seq"`
}

func (domainChangeRow) TableName() string { return "domain_changes" }

// DomainChange is a logged change of a domain binding.
type DomainChange struct {
	Leaf leaf.DomainLeaf
	Text string // the leaf text
	// Index is the leaf's log index; -1 while it waits for the integrator.
	Index int64
}

// logDomainChange queues the leaf of a binding's change (change leaf.DomainGained or
// leaf.DomainLost of domain by namespaceID, held by method) for the log and keeps it: in the
// transaction that made the change, after its other writes, timed then by the store's clock.
// So the leaf follows the versions the transaction wrote, in the queue and in time, and a log
// restart, which numbers a domain change by its time after the versions of its millisecond,
// queues it where it was.
func (t *Tx) logDomainChange(namespaceID, domain, method, change string) {
	t.last = append(t.last, func(db *gorm.DB) error {
		return writeDomainChange(db, t.s.nowMS(), namespaceID, domain, method, change)
	})
}

// writeDomainChange queues and keeps the leaf of a binding's change (logDomainChange).
func writeDomainChange(tx *gorm.DB, now int64, namespaceID, domain, method, change string) error {
	l, err := leaf.NewDomainLeaf(domain, namespaceID, method, change, msTime(now))
	if err != nil {
		return fmt.Errorf("store: the %s leaf of %s: %w", change, domain, err)
	}
	text, err := l.Canonical()
	if err != nil {
		return err
	}
	digest := proof.DigestBytes(text)
	q := logQueueRow{Version: digest, Leaf: string(text)}
	if err := tx.Create(&q).Error; err != nil {
		return translate(err, "log queue")
	}
	if q.Seq == 0 {
		return fmt.Errorf("store: the log queue gave the domain change of %s no position", domain)
	}
	row := domainChangeRow{Domain: domain, NamespaceID: namespaceID, Method: method, Change: change, Digest: digest,
		Leaf: string(text), CreatedAt: now, LogSeq: &q.Seq}
	return translate(tx.Create(&row).Error, "domain changes")
}

// gainedMethod returns the method of the last logged gain of domain by namespaceID ("" when
// none was logged).
func gainedMethod(tx *gorm.DB, namespaceID, domain string) (string, error) {
	var methods []string
	err := tx.Model(&domainChangeRow{}).Where("domain = ? AND namespace_id = ? AND change = ?", domain, namespaceID, leaf.DomainGained).
		Order("seq DESC").Limit(1).Pluck("method", &methods).Error
	if err != nil || len(methods) == 0 {
		return "", translate(err, "domain changes")
	}
	return methods[0], nil
}

// DomainChanges returns the logged changes of domain's binding, oldest first, with their log
// indices once integrated.
func (s *Store) DomainChanges(ctx context.Context, domain string) ([]DomainChange, error) {
	var rows []struct {
		Leaf                       string
		LogSeq, SeqStart, IdxStart *int64
		SeqEnd                     *int64
	}
	err := s.db.WithContext(ctx).Raw(`SELECT c.leaf, c.log_seq, r.seq_start, r.seq_end, r.idx_start
		FROM domain_changes c
		LEFT JOIN log_runs r ON r.seq_start = (SELECT MAX(seq_start) FROM log_runs WHERE seq_start <= c.log_seq)
		WHERE c.domain = ? ORDER BY c.seq`, domain).Scan(&rows).Error
	if err != nil {
		return nil, translate(err, "domain changes")
	}
	out := make([]DomainChange, len(rows))
	for i, r := range rows {
		l, err := leaf.ParseDomain([]byte(r.Leaf))
		if err != nil {
			return nil, fmt.Errorf("store: a domain change of %s: %w", domain, err)
		}
		out[i] = DomainChange{Leaf: l, Text: r.Leaf, Index: -1}
		if r.LogSeq != nil && r.SeqStart != nil && *r.SeqEnd >= *r.LogSeq {
			out[i].Index = *r.IdxStart + (*r.LogSeq - *r.SeqStart)
		}
	}
	return out, nil
}
