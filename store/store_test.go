package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

func TestMigrateIsIdempotentAndFixesNetworkGenesis(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		v, err := s.SchemaVersion(ctx)
		if err != nil || v < 1 {
			t.Fatalf("schema version = %d, %v; want >= 1", v, err)
		}
		g1, err := s.NetworkGenesis(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(g1) != 66 || !strings.HasPrefix(g1, "0x") {
			t.Fatalf("network genesis %q is not 0x + 64 hex digits", g1)
		}
		n, err := s.Migrate(ctx)
		if err != nil || n != 0 {
			t.Fatalf("second migrate applied %d, %v; want 0, nil", n, err)
		}
		g2, _ := s.NetworkGenesis(ctx)
		if g1 != g2 {
			t.Fatalf("network genesis changed across migrations: %s then %s", g1, g2)
		}
	})
}

func TestConcurrentMigrationsOnOneDatabase(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			url := storetest.URL(t, d)
			ctx := context.Background()
			const n = 4
			stores := make([]*store.Store, n)
			for i := range stores {
				s, err := store.Open(ctx, url, nil, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				stores[i] = s
			}
			var wg sync.WaitGroup
			applied := make([]int, n)
			errs := make([]error, n)
			for i, s := range stores {
				wg.Add(1)
				go func() {
					defer wg.Done()
					applied[i], errs[i] = s.Migrate(ctx)
				}()
			}
			wg.Wait()
			total := 0
			for i := range stores {
				if errs[i] != nil {
					t.Fatalf("migrator %d: %v", i, errs[i])
				}
				total += applied[i]
			}
			if want := store.MigrationsAvailable(t, stores[0]); total != want {
				t.Fatalf("migrations applied %d times in all, want exactly %d (once each)", total, want)
			}
			g := map[string]bool{}
			for _, s := range stores {
				x, err := s.NetworkGenesis(ctx)
				if err != nil {
					t.Fatal(err)
				}
				g[x] = true
			}
			if len(g) != 1 {
				t.Fatalf("stores disagree on the network genesis: %v", g)
			}
		})
	}
}

func TestAPIKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key, u, err := s.CreateAPIKey(ctx, "  Alice@Example.COM ")
		if err != nil {
			t.Fatal(err)
		}
		if u.Email != "alice@example.com" || u.ProfileID == "" {
			t.Fatalf("user = %+v", u)
		}
		if err := store.ParseAPIKey(key); err != nil || len(key) != 47 {
			t.Fatalf("key %q: %v", key, err)
		}
		got, err := s.Authenticate(ctx, key)
		if err != nil || got.ID != u.ID || got.Disabled {
			t.Fatalf("authenticate = %+v, %v", got, err)
		}
		key2, u2, err := s.CreateAPIKey(ctx, "alice@example.com")
		if err != nil || u2.ID != u.ID || key2 == key {
			t.Fatalf("second key for the same user: %v, %v", u2, err)
		}

		tests := []struct {
			name string
			key  string
			want error
		}{
			{"empty", "", store.ErrMalformedKey},
			{"no prefix", strings.TrimPrefix(key, "svc_"), store.ErrMalformedKey},
			{"short", key[:30], store.ErrMalformedKey},
			{"bad alphabet", key[:46] + "*", store.ErrMalformedKey},
			{"unknown", "svc_" + strings.Repeat("A", 43), directory.ErrNotFound},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if _, err := s.Authenticate(ctx, tc.key); !errors.Is(err, tc.want) {
					t.Fatalf("Authenticate(%q) = %v, want %v", tc.key, err, tc.want)
				}
			})
		}

		if err := s.RevokeAPIKey(ctx, key); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Authenticate(ctx, key); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("revoked key authenticates: %v", err)
		}
		if err := s.RevokeAPIKey(ctx, key); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("second revoke = %v, want ErrNotFound", err)
		}
		if _, err := s.Authenticate(ctx, key2); err != nil {
			t.Fatalf("the other key stopped working: %v", err)
		}

		if err := s.SetUserDisabled(ctx, "ALICE@example.com", true); err != nil {
			t.Fatal(err)
		}
		got, err = s.Authenticate(ctx, key2)
		if err != nil || !got.Disabled {
			t.Fatalf("disabled user: %+v, %v", got, err)
		}
		if err := s.SetUserDisabled(ctx, "nobody@example.com", true); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("disable unknown user = %v", err)
		}
		if _, _, err := s.CreateAPIKey(ctx, "not an email"); !errors.Is(err, directory.ErrInvalid) {
			t.Fatalf("bad email = %v, want ErrInvalid", err)
		}
	})
}

func TestConcurrentKeyCreationMakesOneUser(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var wg sync.WaitGroup
		ids := make([]string, 8)
		errs := make([]error, 8)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, u, err := s.CreateAPIKey(ctx, "race@example.com")
				ids[i], errs[i] = u.ID, err
			}()
		}
		wg.Wait()
		for i := range ids {
			if errs[i] != nil {
				t.Fatalf("create %d: %v", i, errs[i])
			}
			if ids[i] != ids[0] {
				t.Fatalf("two users for one email: %s and %s", ids[0], ids[i])
			}
		}
	})
}

func TestProfileKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, err := s.EnsureUser(ctx, "bob@example.com")
		if err != nil {
			t.Fatal(err)
		}
		const mb = "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"
		if err := s.AddProfileKey(ctx, "bob@example.com", mb); err != nil {
			t.Fatal(err)
		}
		if err := s.AddProfileKey(ctx, "bob@example.com", mb); !errors.Is(err, directory.ErrConflict) {
			t.Fatalf("duplicate key = %v, want ErrConflict", err)
		}
		if err := s.AddProfileKey(ctx, "nobody@example.com", mb); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("unknown user = %v, want ErrNotFound", err)
		}
		keys, err := s.ProfileKeys(ctx, u.ID)
		if err != nil || len(keys) != 1 || keys[0] != mb {
			t.Fatalf("keys = %v, %v", keys, err)
		}
		byProfile, err := s.UserByProfileID(ctx, u.ProfileID)
		if err != nil || byProfile.ID != u.ID {
			t.Fatalf("by profile = %+v, %v", byProfile, err)
		}
		if _, err := s.UserByProfileID(ctx, "nope"); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("unknown profile = %v", err)
		}
	})
}

func TestAllowList(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, p := range []string{"example.com", "*.example.org", "example.com"} {
			if err := s.AllowDomain(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.AllowedDomainPatterns(ctx)
		if err != nil || strings.Join(got, ",") != "*.example.org,example.com" {
			t.Fatalf("patterns = %v, %v", got, err)
		}
		if err := s.DisallowDomain(ctx, "example.com"); err != nil {
			t.Fatal(err)
		}
		if err := s.DisallowDomain(ctx, "example.com"); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("second disallow = %v", err)
		}
	})
}
