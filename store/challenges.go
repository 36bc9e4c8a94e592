package store

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
)

// Verification methods (spec, "Domain verification records"), as stored in sources and challenges.
const (
	MethodSelfDNS   = "self_dns"
	MethodSelfHTTP  = "self_http"
	MethodDelegated = "request_other_namespace"
)

// Challenge is a generated verification value of a namespace for a domain.
type Challenge struct {
	NamespaceID string
	Domain      string
	Method      string
	TXT         string
	CreatedAt   time.Time
}

type challengeRow struct {
	ID          string `gorm:"column:id;primaryKey"`
	NamespaceID string `gorm:"column:namespace_id"`
	Domain      string `gorm:"column:domain"`
	Method      string `gorm:"column:method"`
	TXT         string `gorm:"column:txt"`
	CreatedAt   int64  `gorm:"column:created_at"`
}

func (challengeRow) TableName() string { return "domain_challenges" }

func (r challengeRow) challenge() Challenge {
	return Challenge{NamespaceID: r.NamespaceID, Domain: r.Domain, Method: r.Method, TXT: r.TXT, CreatedAt: msTime(r.CreatedAt)}
}

// EnsureChallenge stores txt as the namespace's verification value for the domain unless one
// exists; it returns the stored challenge and whether it is new.
func (s *Store) EnsureChallenge(ctx context.Context, namespaceID, domain, method, txt string) (Challenge, bool, error) {
	row := challengeRow{ID: directory.NewUUID(), NamespaceID: namespaceID, Domain: domain, Method: method, TXT: txt, CreatedAt: s.nowMS()}
	var created bool
	var got challengeRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "namespace_id"}, {Name: "domain"}}, DoNothing: true}).Create(&row)
		if res.Error != nil {
			return translate(res.Error, "challenge")
		}
		created = res.RowsAffected == 1
		return translate(tx.Where("namespace_id = ? AND domain = ?", namespaceID, domain).Take(&got).Error, "challenge")
	})
	return got.challenge(), created, err
}

// Challenges lists a namespace's verification values, newest first.
func (s *Store) Challenges(ctx context.Context, namespaceID string) ([]Challenge, error) {
	var rows []challengeRow
	if err := s.db.WithContext(ctx).Where("namespace_id = ?", namespaceID).Order("created_at DESC, id DESC").Find(&rows).Error; err != nil {
		return nil, translate(err, "challenges")
	}
	out := make([]Challenge, len(rows))
	for i, r := range rows {
		out[i] = r.challenge()
	}
	return out, nil
}

// DeleteChallenge deletes the namespace's verification value for the domain; it returns how
// many rows went (0 or 1).
func (t *Tx) DeleteChallenge(namespaceID, domain string) (int64, error) {
	res := t.db.Where("namespace_id = ? AND domain = ?", namespaceID, domain).Delete(&challengeRow{})
	return res.RowsAffected, translate(res.Error, "remove challenge")
}
