// Package entries is the application layer of the directory's publish side: one call per
// operation (create and update namespaces and registries, add and update records, change their
// states), each running its authorization, the registry schema's validation and its write in
// one transaction of the store. The rules are package directory's; the store persists; the
// server binds a request, calls one of these, and renders the result.
package entries

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
)

// Store is what the operations need of the store: a transaction.
type Store interface {
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
}

// Caller is the authenticated user an operation acts for: its id, and its DID, which the
// versions it creates name as their creator.
type Caller struct {
	UserID string
	DID    string
}

// Service runs the operations.
type Service struct {
	st      Store
	schemas *recordschema.Cache
}

// New builds the service over st; schemas caches compiled registry schemas.
func New(st Store, schemas *recordschema.Cache) *Service {
	if schemas == nil {
		schemas = recordschema.NewCache(10_000)
	}
	return &Service{st: st, schemas: schemas}
}

// stale refuses a write whose If-Match (ifMatch, "" for none) is not the current version.
func stale(ifMatch, current string) error {
	if ifMatch != "" && ifMatch != current {
		return directory.ErrStaleVersion
	}
	return nil
}

// batchAt names record i of a batch in a refusal's message.
func batchAt(i int, name string) string { return fmt.Sprintf("records[%d] (%s): ", i, name) }
