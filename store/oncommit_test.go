package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// OnCommit observers are called once per committed write, after it committed (another
// connection already sees it), and never for a read, a refused write or a write that changed
// nothing.
func TestOnCommitReportsCommittedWritesOnly(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s, dbURL := storetest.OpenURL(t, d)
			other, err := store.Open(ctx, dbURL, nil, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()

			var (
				mu    sync.Mutex
				calls int
				probe func()
			)
			s.OnCommit(func() {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if probe != nil {
					probe()
				}
			})
			expect := func(want int, what string) {
				t.Helper()
				mu.Lock()
				defer mu.Unlock()
				if calls != want {
					t.Fatalf("%s: OnCommit called %d times, want %d", what, calls, want)
				}
				calls, probe = 0, nil
			}

			u, err := s.EnsureUser(ctx, "o@example.com")
			if err != nil {
				t.Fatal(err)
			}
			expect(1, "a new user")
			if _, err := s.EnsureUser(ctx, "o@example.com"); err != nil {
				t.Fatal(err)
			}
			expect(0, "an existing user (insert that changed nothing)")

			ns, err := s.CreateNamespace(ctx, u, "did:web:x:o", directory.NamespaceInput{Name: "n"})
			if err != nil {
				t.Fatal(err)
			}
			expect(1, "create namespace")

			if _, err := s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Members(ctx, ns.NamespaceID); err != nil {
				t.Fatal(err)
			}
			expect(0, "reads")

			desc := "changed"
			if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "not-the-version", directory.NamespacePatch{Description: &desc}); !errors.Is(err, directory.ErrPrecondition) {
				t.Fatalf("stale If-Match: %v", err)
			}
			expect(0, "an update refused by its precondition")

			// Called after the commit: another connection sees the change from the observer.
			mu.Lock()
			var seen string
			probe = func() {
				got, err := other.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{})
				if err != nil {
					t.Error(err)
				}
				seen = got.Description
			}
			mu.Unlock()
			if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			expect(1, "update namespace")
			if seen != desc {
				t.Fatalf("the observer ran before the commit: another connection saw description %q", seen)
			}

			in := directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}}
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:x:o", in); err != nil {
				t.Fatal(err)
			}
			expect(1, "create registry")
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:x:o", in); !errors.Is(err, directory.ErrConflict) {
				t.Fatalf("a second registry of the name: %v", err)
			}
			expect(0, "a create refused as a conflict (rolled back)")

			// Single statements outside a transaction.
			if err := s.AllowDomain(ctx, "*.example"); err != nil {
				t.Fatal(err)
			}
			expect(1, "allow a domain")
			if err := s.DisallowDomain(ctx, "nothing.example"); err != nil && !errors.Is(err, directory.ErrNotFound) {
				t.Fatal(err)
			}
			expect(0, "a delete that matched nothing")
		})
	}
}

// The writes that change nothing an answer is made of (the verification log, the log's
// compaction, the planner's statistics) are not committed writes to OnCommit's observers: a
// verification or a maintenance run does not empty the lookup cache.
func TestQuietWritesAreNotCommits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, err := s.EnsureUser(ctx, "quiet@example.com")
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		calls := 0
		s.OnCommit(func() { mu.Lock(); calls++; mu.Unlock() })
		count := func() int { mu.Lock(); defer mu.Unlock(); return calls }
		if _, err := s.AddVerificationLog(ctx, store.VerificationLog{LookupType: "record", VerifiedID: "rec-1", UserID: u.ID,
			VerifiedBy: "did:web:x:v", Result: store.ResultSuccess, Request: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		if err := s.CompactLog(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 0 {
			t.Fatalf("%d commits reported for quiet writes", n)
		}
		if _, err := s.EnsureUser(ctx, "loud@example.com"); err != nil {
			t.Fatal(err)
		}
		if n := count(); n == 0 {
			t.Fatal("a real write was not reported: the test sees nothing")
		}
	})
}
