package store

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/translog/leaf"
)

// TestRestartLogQueuesDomainChanges: a log restart queues the domain leaves again, as they
// were logged and in the order they were written among the versions, and each gets its new
// index.
func TestRestartLogQueuesDomainChanges(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openForTest(t, d)
			clock := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
			s.now = func() time.Time { return clock }
			ns := newPeople(t, s, "Acme")
			clock = clock.Add(time.Second)
			if err := s.MarkVerified(ctx, ns.NamespaceID, "acme.example", MethodSelfDNS, time.Hour); err != nil {
				t.Fatal(err)
			}
			clock = clock.Add(time.Second)
			addNamed(t, s, ctx, ns.NamespaceID, "a", 2, "")
			clock = clock.Add(time.Second)
			if err := s.InTx(ctx, func(tx *Tx) error {
				if _, err := tx.DeleteSources(ns.NamespaceID, "acme.example"); err != nil {
					return err
				}
				released, _, err := tx.ReleaseDomain(ns.NamespaceID, "acme.example", MethodSelfDNS)
				if err == nil && !released {
					err = errors.New("not released")
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			queued, err := s.DomainChanges(ctx, "acme.example")
			if err != nil || len(queued) != 2 {
				t.Fatalf("domain changes %+v %v", queued, err)
			}
			digest := proof.DigestBytes([]byte(queued[0].Text))
			if pending, err := s.LogPending(ctx, digest); err != nil || !pending {
				t.Fatalf("a queued domain change: pending %v %v", pending, err)
			}
			first := integrateAll(t, s, 2)
			if pending, err := s.LogPending(ctx, digest); err != nil || pending {
				t.Fatalf("an integrated domain change: pending %v %v", pending, err)
			}
			if len(first) != 6 { // namespace, registry, gained, 2 records, lost
				t.Fatalf("%d leaves integrated, want 6", len(first))
			}
			if _, err := s.RestartLog(ctx, "new.example/log"); err != nil {
				t.Fatal(err)
			}
			again := integrateAll(t, s, 4)
			if !slices.Equal(again, first) {
				t.Fatalf("the new log's order %v, the old %v", again, first)
			}
			changes, err := s.DomainChanges(ctx, "acme.example")
			if err != nil || len(changes) != 2 || changes[0].Leaf.Change != leaf.DomainGained || changes[1].Leaf.Change != leaf.DomainLost ||
				changes[0].Index != 2 || changes[1].Index != 5 || changes[0].Leaf.Time != "2026-11-27T20:00:01.000Z" {
				t.Fatalf("domain changes after the restart: %+v %v", changes, err)
			}
			for _, c := range changes {
				if again[c.Index] != proof.DigestBytes([]byte(c.Text)) {
					t.Fatalf("leaf %d is %s, want the domain change %s", c.Index, again[c.Index], c.Text)
				}
			}
		})
	}
}

// TestConcurrentClaimsLogOneGain: claims of one domain at once, by one namespace through
// several methods and by other namespaces, give the domain to one namespace and log one gain.
func TestConcurrentClaimsLogOneGain(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openForTest(t, d)
			u, err := s.EnsureUser(ctx, "owner@example.com")
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, name := range []string{"a", "b", "c"} {
				ns, err := s.CreateNamespace(ctx, u, "did:web:example.com", directory.NamespaceInput{Name: name})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, ns.NamespaceID)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 12)
			for round := 0; round < 2; round++ {
				for _, id := range ids {
					for _, m := range []string{MethodSelfDNS, MethodSelfHTTP} {
						wg.Add(1)
						go func() {
							defer wg.Done()
							errs <- s.MarkVerified(ctx, id, "race.example", m, time.Hour)
						}()
					}
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil && !errors.Is(err, ErrDomainTaken) {
					t.Fatalf("a claim: %v", err)
				}
			}
			holder, err := s.DomainHolder(ctx, "race.example")
			if err != nil || holder == "" {
				t.Fatalf("holder %q %v", holder, err)
			}
			changes, err := s.DomainChanges(ctx, "race.example")
			if err != nil || len(changes) != 1 || changes[0].Leaf.NamespaceID != holder || changes[0].Leaf.Change != leaf.DomainGained {
				t.Fatalf("domain changes %+v %v, holder %s", changes, err, holder)
			}
		})
	}
}

// TestOriginNamespaceBindingIsLogged: the namespace made for a DeDi publisher holds the
// publisher's domain by its files served over HTTPS: the binding is logged as gained over HTTP
// in the transaction that makes the namespace (after its version), and its release, which
// has no source to name a method, logs the loss with the gain's method. Taking back the
// namespace of a publisher added again logs nothing.
func TestOriginNamespaceBindingIsLogged(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openForTest(t, d)
			sys, err := s.EnsureUser(ctx, "system@example.com")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.AddDediPublisher(ctx, "pub.example"); err != nil {
				t.Fatal(err)
			}
			var id string
			origin := func() {
				t.Helper()
				if err := s.InTx(ctx, func(tx *Tx) error {
					id, err = tx.OriginNamespace("pub.example", sys.ID, "did:web:x")
					return err
				}); err != nil {
					t.Fatal(err)
				}
			}
			origin()
			queued, err := s.LogQueuedLeaves(ctx)
			if err != nil || len(queued) != 2 || leaf.KindOf(queued[0].Leaf) != "namespace" || leaf.KindOf(queued[1].Leaf) != leaf.KindDomain {
				t.Fatalf("queued %d leaves %v", len(queued), err)
			}
			origin() // the same namespace, taken back
			changes, err := s.DomainChanges(ctx, "pub.example")
			if err != nil || len(changes) != 1 || changes[0].Leaf.NamespaceID != id || changes[0].Leaf.Method != MethodSelfHTTP ||
				changes[0].Leaf.Change != leaf.DomainGained {
				t.Fatalf("domain changes %+v %v", changes, err)
			}
			if err := s.InTx(ctx, func(tx *Tx) error {
				released, _, err := tx.ReleaseDomain(id, "pub.example", "")
				if err == nil && !released {
					err = errors.New("not released")
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			changes, err = s.DomainChanges(ctx, "pub.example")
			if err != nil || len(changes) != 2 || changes[1].Leaf.NamespaceID != id || changes[1].Leaf.Method != MethodSelfHTTP ||
				changes[1].Leaf.Change != leaf.DomainLost {
				t.Fatalf("domain changes %+v %v", changes, err)
			}
		})
	}
}

// TestFailedTransactionLogsNoDomainChange: a transaction that claims (or releases) a domain and
// then fails writes no leaf and keeps no change, and the binding stays as it was.
func TestFailedTransactionLogsNoDomainChange(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openForTest(t, d)
			ns := newPeople(t, s, "Acme")
			before, err := s.LogQueueLength(ctx)
			if err != nil {
				t.Fatal(err)
			}
			failed := errors.New("a later step failed")
			if err := s.InTx(ctx, func(tx *Tx) error {
				if err := tx.ClaimDomain(ns.NamespaceID, "acme.example", MethodSelfDNS, "", time.Now().Add(time.Hour)); err != nil {
					return err
				}
				return failed
			}); !errors.Is(err, failed) {
				t.Fatalf("the claim's transaction: %v", err)
			}
			if holder, _ := s.DomainHolder(ctx, "acme.example"); holder != "" {
				t.Fatalf("the failed claim gave the domain to %s", holder)
			}
			if err := s.MarkVerified(ctx, ns.NamespaceID, "acme.example", MethodSelfDNS, time.Hour); err != nil {
				t.Fatal(err)
			}
			if err := s.InTx(ctx, func(tx *Tx) error {
				if _, err := tx.DeleteSources(ns.NamespaceID, "acme.example"); err != nil {
					return err
				}
				if _, _, err := tx.ReleaseDomain(ns.NamespaceID, "acme.example", MethodSelfDNS); err != nil {
					return err
				}
				return failed
			}); !errors.Is(err, failed) {
				t.Fatalf("the release's transaction: %v", err)
			}
			changes, err := s.DomainChanges(ctx, "acme.example")
			n, _ := s.LogQueueLength(ctx)
			if err != nil || len(changes) != 1 || changes[0].Leaf.Change != leaf.DomainGained || n != before+1 {
				t.Fatalf("domain changes %+v %v, %d leaves queued after %d", changes, err, n, before)
			}
			if holder, _ := s.DomainHolder(ctx, "acme.example"); holder != ns.NamespaceID {
				t.Fatalf("the failed release: holder %q", holder)
			}
		})
	}
}
