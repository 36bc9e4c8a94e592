package store

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
)

type allowRow struct {
	Pattern   string `gorm:"column:pattern;primaryKey"`
	CreatedAt int64  `gorm:"column:created_at"`
}

func (allowRow) TableName() string { return "domain_allowlist" }

// AllowDomain adds a normalized pattern (example.com or *.example.com) to the global registry.
// Adding an existing pattern is not an error.
func (s *Store) AllowDomain(ctx context.Context, pattern string) error {
	row := allowRow{Pattern: pattern, CreatedAt: s.nowMS()}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&row).Error
	return translate(err, "allow domain")
}

// DisallowDomain removes a pattern; ErrNotFound when it was not there.
func (s *Store) DisallowDomain(ctx context.Context, pattern string) error {
	res := s.db.WithContext(ctx).Where("pattern = ?", pattern).Delete(&allowRow{})
	if res.Error != nil {
		return translate(res.Error, "disallow domain")
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("allow-list entry %q: %w", pattern, directory.ErrNotFound)
	}
	return nil
}

// AllowedDomainPatterns lists the global registry, sorted.
func (s *Store) AllowedDomainPatterns(ctx context.Context) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Model(&allowRow{}).Order("pattern").Pluck("pattern", &out).Error
	return out, translate(err, "allow-list")
}

// allowCandidates lists the patterns that cover a normalized domain: the domain itself and
// "*." followed by each of its parent domains (a "*.example.com" entry covers every subdomain
// of example.com at any depth, not example.com itself).
func allowCandidates(domain string) []string {
	out := []string{domain}
	for d := domain; ; {
		i := strings.IndexByte(d, '.')
		if i < 0 {
			return out
		}
		d = d[i+1:]
		out = append(out, "*."+d)
	}
}

// DomainAllowed reports whether the global registry covers the normalized domain.
func (s *Store) DomainAllowed(ctx context.Context, domain string) (bool, error) {
	return (&Tx{s: s, db: s.db.WithContext(ctx)}).DomainAllowed(domain, false)
}

// DomainAllowed is Store.DomainAllowed in the transaction; lock (Postgres) holds the covering
// entries until the transaction ends, so that a concurrent disallow waits for the write that
// relied on them.
func (t *Tx) DomainAllowed(domain string, lock bool) (bool, error) {
	q := `SELECT pattern FROM domain_allowlist WHERE pattern IN ?`
	if lock {
		q += t.s.d.forShare()
	}
	var found []string
	if err := t.db.Raw(q, allowCandidates(domain)).Scan(&found).Error; err != nil {
		return false, translate(err, "allow-list")
	}
	return len(found) > 0, nil
}
