package store

import (
	"context"
	"fmt"

	"gorm.io/gorm/clause"
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
		return fmt.Errorf("allow-list entry %q: %w", pattern, ErrNotFound)
	}
	return nil
}

// AllowedDomainPatterns lists the global registry, sorted.
func (s *Store) AllowedDomainPatterns(ctx context.Context) ([]string, error) {
	var out []string
	err := s.db.WithContext(ctx).Model(&allowRow{}).Order("pattern").Pluck("pattern", &out).Error
	return out, translate(err, "allow-list")
}
