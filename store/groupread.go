package store

import (
	"context"
	"database/sql"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/groupread"
)

// groupKind is one kind of grouped read, a concern's hot read (lookupbatch.go, logentry.go):
// its name, and how one statement reads a group of keys on a database.
type groupKind[K, V any] struct {
	what string
	read func(ctx context.Context, db *sql.DB, keys []K, found func(i int, v V) error) error
}

// readerOf is the target's group reader of kind, made on first use.
func readerOf[K, V any](t *readTarget, kind *groupKind[K, V]) *groupread.Reader[K, V] {
	if g, ok := t.groups.Load(kind); ok {
		return g.(*groupread.Reader[K, V])
	}
	g := groupread.New(kind.what, t.closed, directory.ErrNotFound, func(ctx context.Context, keys []K, found func(int, V) error) error {
		ctx, release := t.guard(ctx)
		defer release()
		return kind.read(ctx, t.sqlDB, keys, found)
	})
	// A reader starts its goroutines on first use: the one that loses the race is dropped.
	got, _ := t.groups.LoadOrStore(kind, g)
	return got.(*groupread.Reader[K, V])
}
