package store

import (
	"context"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// Tx is a handle on one transaction, for callers that compose several writes of the store
// atomically (the application's operations, the verification workflow): everything its methods
// write lands when the function given to InTx returns nil, and nothing does otherwise. A Tx is
// used by one goroutine and only inside that function.
type Tx struct {
	s  *Store
	db *gorm.DB
	// recordWrites counts the record versions written, for the planner statistics (analyze.go).
	recordWrites int
	// last are the writes that go after every other write of the transaction, in order, once
	// the function given to InTx returned nil (the domain leaves: domainleaves.go).
	last []func(db *gorm.DB) error
}

// InTx runs fn in one transaction (on SQLite an immediate one, which holds the write lock; on
// Postgres the methods that say so lock their rows until it ends).
func (s *Store) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	t := &Tx{s: s}
	err := s.tx(ctx, func(db *gorm.DB) error {
		t.db, t.recordWrites, t.last = db, 0, nil
		if err := fn(t); err != nil {
			return err
		}
		for _, w := range t.last {
			if err := w(db); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && t.recordWrites > 0 && s.recordsWritten != nil {
		s.recordsWritten(t.recordWrites)
	}
	return err
}

// Stamp is the moment of a write in this transaction, at the store's clock. A write takes it
// after the locks that order it, so that versions' times never run against their commit order.
func (t *Tx) Stamp() directory.Stamp { return t.s.stamp() }
