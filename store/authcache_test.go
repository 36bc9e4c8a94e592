package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// With the authentication cache on, revoking a key and disabling a user through the store take
// effect at once.
func TestAuthCacheHonoursRevocationAndDisable(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s, err := store.Open(ctx, storetest.URL(t, d), nil, store.Options{AuthCacheTTL: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			k1, _, _ := s.CreateAPIKey(ctx, "a@example.com")
			k2, _, _ := s.CreateAPIKey(ctx, "a@example.com")
			for _, k := range []string{k1, k2} {
				if _, err := s.Authenticate(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.RevokeAPIKey(ctx, k1); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Authenticate(ctx, k1); !errors.Is(err, directory.ErrNotFound) {
				t.Fatalf("revoked key still authenticates from the cache: %v", err)
			}
			if err := s.SetUserDisabled(ctx, "a@example.com", true); err != nil {
				t.Fatal(err)
			}
			if u, err := s.Authenticate(ctx, k2); err != nil || !u.Disabled {
				t.Fatalf("disabled user served from the cache: %+v %v", u, err)
			}
		})
	}
}
