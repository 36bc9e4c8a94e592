package store

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/translog/logstore"
)

// LogCosigned returns the latest cosigned checkpoint.
func (s *Store) LogCosigned(ctx context.Context) (logstore.Cosigned, error) {
	var rows []struct {
		Cosigned     string `gorm:"column:cosigned"`
		CosignedSize int64  `gorm:"column:cosigned_size"`
	}
	if err := s.db.WithContext(ctx).Table("log_state").Select("cosigned, cosigned_size").Where("id = 1").Find(&rows).Error; err != nil {
		return logstore.Cosigned{}, fmt.Errorf("store: log cosigned checkpoint: %w", err)
	}
	if len(rows) == 0 {
		return logstore.Cosigned{}, fmt.Errorf("store: log cosigned checkpoint: no log state")
	}
	return logstore.Cosigned{Size: rows[0].CosignedSize, Text: rows[0].Cosigned}, nil
}

// SaveLogCosigned keeps c as the latest cosigned checkpoint when it is larger than the one
// stored (instances witnessing at once never move it back); it reports whether it did.
func (s *Store) SaveLogCosigned(ctx context.Context, c logstore.Cosigned) (bool, error) {
	// The log's tables are shown by no cached lookup: the write is not reported to OnCommit.
	ctx = context.WithValue(ctx, txWritesKey{}, new(txWrites))
	res := s.db.WithContext(ctx).Table("log_state").Where("id = 1 AND cosigned_size < ?", c.Size).
		Updates(map[string]any{"cosigned": c.Text, "cosigned_size": c.Size})
	if res.Error != nil {
		return false, fmt.Errorf("store: save log cosigned checkpoint: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}
