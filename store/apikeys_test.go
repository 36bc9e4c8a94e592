package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// A key's use is noted (last_used_at) as bookkeeping: no commit is reported for it, so the
// lookup cache, emptied on every reported commit, keeps what it holds.
func TestKeyUseIsQuietBookkeeping(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, err := s.EnsureUser(ctx, "a@example.com")
		if err != nil {
			t.Fatal(err)
		}
		k, err := s.CreateOwnAPIKey(ctx, store.Principal{UserID: u.ID}, "ci")
		if err != nil {
			t.Fatal(err)
		}
		var commits atomic.Int64
		s.OnCommit(func() { commits.Add(1) })
		if _, err := s.Authenticate(ctx, k.Key); err != nil {
			t.Fatal(err)
		}
		if n := commits.Load(); n != 0 {
			t.Fatalf("noting a key's use reported %d commits", n)
		}
		keys, err := s.APIKeys(ctx, u.ID)
		if err != nil || len(keys) != 1 || keys[0].LastUsedAt == nil || keys[0].Prefix != k.Key[:12] || keys[0].Name != "ci" {
			t.Fatalf("%+v %v", keys, err)
		}
		// Revoked through the owner's operation: not found at once, and not again.
		if err := s.RevokeOwnAPIKey(ctx, u.ID, k.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, k.Key); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("revoked key: %v", err)
		}
		if err := s.RevokeOwnAPIKey(ctx, u.ID, k.ID); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("second revocation: %v", err)
		}
	})
}
