package store

import (
	"context"
	"fmt"

	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
)

const keyNetworkGenesis = "network_genesis"

type setting struct {
	Key   string `gorm:"column:key;primaryKey"`
	Value string `gorm:"column:value"`
}

func (setting) TableName() string { return "settings" }

// ensureNetworkGenesis fixes the deployment's network_genesis once: BLAKE2b-256 of a genesis
// statement naming a fresh random nonce and the time. Concurrent first runs agree on one value
// (insert-if-absent, then read back).
func (s *Store) ensureNetworkGenesis(ctx context.Context) (string, error) {
	statement := fmt.Sprintf("svc anchor log genesis %s %s", directory.NewUUID(), proof.FormatTime(s.now()))
	row := setting{Key: keyNetworkGenesis, Value: proof.NetworkGenesis(statement)}
	db := s.db.WithContext(ctx)
	if err := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&row).Error; err != nil {
		return "", translate(err, "network genesis")
	}
	return s.NetworkGenesis(ctx)
}

// NetworkGenesis returns the deployment's anchoring network identifier ("0x" + 64 hex digits).
func (s *Store) NetworkGenesis(ctx context.Context) (string, error) {
	var row setting
	if err := s.db.WithContext(ctx).Where("key = ?", keyNetworkGenesis).Take(&row).Error; err != nil {
		return "", translate(err, "network genesis")
	}
	return row.Value, nil
}
