// The key changes of the DeDi publishers (docs/dedi-files.md, "Key changes are logged"): an
// accepted manifest whose key set differs from the publisher's last logged one becomes a
// transparency-log leaf of kind dedi-keys (translog/leaf), queued by the transaction that
// records the manifest (RecordDediCrawl), and a row of dedi_key_changes (migration 0021), from
// which a log restart queues it again.

package store

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/translog/leaf"
)

type dediKeyChangeRow struct {
	Seq       int64  `gorm:"column:seq;primaryKey"`
	Domain    string `gorm:"column:domain"`
	Digest    string `gorm:"column:digest"`
	Leaf      string `gorm:"column:leaf"`
	CreatedAt int64  `gorm:"column:created_at;autoCreateTime:false"`
	LogSeq    *int64 `gorm:"column:log_seq"`
}

func (dediKeyChangeRow) TableName() string { return "dedi_key_changes" }

// DediKeyChange is a logged key change of a publisher.
type DediKeyChange struct {
	Domain string
	Leaf   string // the leaf text
	// Index is the leaf's log index; -1 while it waits for the integrator.
	Index int64
}

// logKeyChange queues l for the log and keeps it, when its key set differs from the last one
// logged for its domain (or none was): in the caller's transaction. It reports whether it did.
func logKeyChange(tx *gorm.DB, now int64, l leaf.KeysLeaf) (bool, error) {
	var last []dediKeyChangeRow
	if err := tx.Where("domain = ?", l.Domain).Order("seq DESC").Limit(1).Find(&last).Error; err != nil {
		return false, translate(err, "dedi key changes")
	}
	if len(last) == 1 {
		prev, err := leaf.ParseKeys([]byte(last[0].Leaf))
		if err != nil {
			return false, fmt.Errorf("store: the last key change of %s: %w", l.Domain, err)
		}
		if slices.Equal(prev.Keys, leaf.SortKeys(l.Keys)) {
			return false, nil
		}
	}
	text, err := l.Canonical()
	if err != nil {
		return false, err
	}
	q := logQueueRow{Version: l.Digest, Leaf: string(text)}
	if err := tx.Create(&q).Error; err != nil {
		return false, translate(err, "log queue")
	}
	if q.Seq == 0 {
		return false, fmt.Errorf("store: the log queue gave the key change of %s no position", l.Domain)
	}
	row := dediKeyChangeRow{Domain: l.Domain, Digest: l.Digest, Leaf: string(text), CreatedAt: now, LogSeq: &q.Seq}
	return true, translate(tx.Create(&row).Error, "dedi key changes")
}

// DediKeyChanges returns the logged key changes of domain, oldest first, with their log
// indices once integrated.
func (s *Store) DediKeyChanges(ctx context.Context, domain string) ([]DediKeyChange, error) {
	var rows []struct {
		Domain, Leaf               string
		LogSeq, SeqStart, IdxStart *int64
		SeqEnd                     *int64
	}
	err := s.db.WithContext(ctx).Raw(`SELECT k.domain, k.leaf, k.log_seq, r.seq_start, r.seq_end, r.idx_start
		FROM dedi_key_changes k
		LEFT JOIN log_runs r ON r.seq_start = (SELECT MAX(seq_start) FROM log_runs WHERE seq_start <= k.log_seq)
		WHERE k.domain = ? ORDER BY k.seq`, domain).Scan(&rows).Error
	if err != nil {
		return nil, translate(err, "dedi key changes")
	}
	out := make([]DediKeyChange, len(rows))
	for i, r := range rows {
		out[i] = DediKeyChange{Domain: r.Domain, Leaf: r.Leaf, Index: -1}
		if r.LogSeq != nil && r.SeqStart != nil && *r.SeqEnd >= *r.LogSeq {
			out[i].Index = *r.IdxStart + (*r.LogSeq - *r.SeqStart)
		}
	}
	return out, nil
}
