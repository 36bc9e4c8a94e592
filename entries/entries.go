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

// Caller is the authenticated user an operation acts for: its id, the API key its request
// presented ("" for a user's own background work, such as a CSV job), and its DID, which the
// versions it creates name as their creator. Every write reads what the caller may do in its
// own transaction, after the locks that order it (store.Tx.NamespaceForWrite): a key revoked
// or a role lost while the request was under way refuses the write.
type Caller struct {
	UserID string
	KeyID  string
	DID    string
}

// principal is the caller as the store's write authorization knows it.
func (c Caller) principal() store.Principal { return store.Principal{UserID: c.UserID, KeyID: c.KeyID} }

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
