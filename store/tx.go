package store

import (
	"context"

	"gorm.io/gorm"
)

// Tx is a handle on one transaction, for callers that compose several writes of the store
// atomically (the verification workflow): everything its methods write lands when the function
// given to InTx returns nil, and nothing does otherwise. A Tx is used by one goroutine and only
// inside that function.
type Tx struct {
	s  *Store
	db *gorm.DB
}

// InTx runs fn in one transaction (on SQLite an immediate one, which holds the write lock; on
// Postgres the methods that say so lock their rows until it ends).
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	return s.tx(ctx, func(db *gorm.DB) error { return fn(&Tx{s: s, db: db}) })
}

// RegistryID returns the id of the namespace's registry of that name ("" when there is none).
func (t *Tx) RegistryID(namespaceID, registryName string) (string, error) {
	var ids []string
	err := t.db.Model(&regHeadRow{}).Where("namespace_id = ? AND registry_name = ?", namespaceID, registryName).
		Limit(1).Pluck("registry_id", &ids).Error
	if err != nil || len(ids) == 0 {
		return "", translate(err, "registry")
	}
	return ids[0], nil
}

// CreateRegistry is Store.CreateRegistry in the transaction; it returns the registry's id.
func (t *Tx) CreateRegistry(namespaceID, creatorDID string, in RegistryInput) (string, error) {
	h, err := t.s.createRegistryTx(t.db, namespaceID, creatorDID, in)
	return h.RegistryID, err
}

// AddRecords is Store.AddRecords in the transaction.
func (t *Tx) AddRecords(namespaceID, registryName, creatorDID string, in []RecordInput) ([]AddedRecord, error) {
	return t.s.addRecordsTx(t.db, namespaceID, registryName, creatorDID, in)
}
