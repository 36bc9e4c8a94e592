package store_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

func TestDediSources(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		added, err := s.AddDediPublisher(ctx, "pub.example")
		if err != nil || !added {
			t.Fatalf("add = %v, %v", added, err)
		}
		if added, err = s.AddDediPublisher(ctx, "pub.example"); err != nil || added {
			t.Fatalf("second add = %v, %v; want false, nil", added, err)
		}
		now := time.Now()
		due, err := s.ClaimDueDediPublishers(ctx, now.Add(time.Second), now.Add(time.Hour), 10)
		if err != nil || len(due) != 1 || due[0] != "pub.example" {
			t.Fatalf("claim = %v, %v", due, err)
		}
		if due, _ = s.ClaimDueDediPublishers(ctx, now.Add(time.Second), now.Add(time.Hour), 10); len(due) != 0 {
			t.Fatalf("a leased publisher was claimed again: %v", due)
		}
		raw := []byte(`{"a":1}`)
		err = s.RecordDediCrawl(ctx, "pub.example", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true,
			NextCrawl: now.Add(time.Minute), Manifest: &store.DediManifest{URL: "https://pub.example/.well-known/dedi.index.json", ETag: `"e1"`,
				Bytes: raw, SHA256: "sha-256:x", Kid: "k1", FetchedAt: now, UpdatedAt: now, NextUpdate: now.Add(time.Hour)}})
		if err != nil {
			t.Fatal(err)
		}
		err = s.InTx(ctx, func(tx *store.Tx) error {
			return tx.PutDediFile(store.DediFile{Domain: "pub.example", Registry: "r1", URL: "https://pub.example/r1.json", State: store.OriginLive,
				Bytes: raw, SHA256: "sha-256:y", Kid: "k1", FetchedAt: now, UpdatedAt: now, NextUpdate: now.Add(time.Hour), RecordCount: 3})
		})
		if err != nil {
			t.Fatal(err)
		}
		// Again (an upsert): the times are the file's, not the write's.
		upd := now.Add(-48 * time.Hour)
		err = s.InTx(ctx, func(tx *store.Tx) error {
			return tx.PutDediFile(store.DediFile{Domain: "pub.example", Registry: "r1", URL: "https://pub.example/r1.json", State: store.OriginLive,
				Bytes: raw, SHA256: "sha-256:y", Kid: "k1", FetchedAt: now, UpdatedAt: upd, NextUpdate: now.Add(time.Hour), RecordCount: 3})
		})
		if f, _ := s.DediFile(ctx, "pub.example", "r1"); err != nil || f.UpdatedAt.UnixMilli() != upd.UnixMilli() {
			t.Fatalf("updated_at after an upsert: %v, %v; want %v", f.UpdatedAt, err, upd)
		}
		p, err := s.DediPublisher(ctx, "pub.example")
		if err != nil || p.Status != store.DediOK || p.LastSuccess == nil || !bytes.Equal(p.Manifest.Bytes, raw) || p.FileCount != 1 || p.Manifest.ETag != `"e1"` {
			t.Fatalf("publisher = %+v, %v", p, err)
		}
		if err := s.MarkDediFile(ctx, "pub.example", "r1", store.OriginStale, "unavailable_authority", "dark", "", ""); err != nil {
			t.Fatal(err)
		}
		f, err := s.DediFile(ctx, "pub.example", "r1")
		if err != nil || f.State != store.OriginStale || !bytes.Equal(f.Bytes, raw) || f.RecordCount != 3 {
			t.Fatalf("file = %+v, %v", f, err)
		}
		// What a lookup shows of the file: everything but its bytes, which are not read.
		if st, err := s.DediFileState(ctx, "pub.example", "r1"); err != nil || st.Bytes != nil || st.SHA256 != f.SHA256 || st.State != f.State {
			t.Fatalf("file state = %+v, %v", st, err)
		}
		all, err := s.DediPublishers(ctx)
		if err != nil || len(all) != 1 || all[0].FileCount != 1 {
			t.Fatalf("publishers = %+v, %v", all, err)
		}
		if removed, err := s.RemoveDediPublisher(ctx, "pub.example"); err != nil || !removed {
			t.Fatalf("remove = %v, %v", removed, err)
		}
		if _, err := s.DediFile(ctx, "pub.example", "r1"); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("a removed publisher's file: %v", err)
		}
		if _, err := s.DediPublisher(ctx, "pub.example"); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("a removed publisher: %v", err)
		}

		if added, err := s.AddDediList(ctx, "https://lists.example/domains.txt"); err != nil || !added {
			t.Fatalf("add list = %v, %v", added, err)
		}
		if err := s.RecordDediList(ctx, "https://lists.example/domains.txt", "h1", "ok"); err != nil {
			t.Fatal(err)
		}
		ls, err := s.DediLists(ctx)
		if err != nil || len(ls) != 1 || ls[0].Head != "h1" || ls[0].FetchedAt == nil {
			t.Fatalf("lists = %+v, %v", ls, err)
		}
		if removed, err := s.RemoveDediList(ctx, "https://lists.example/domains.txt"); err != nil || !removed {
			t.Fatalf("remove list = %v, %v", removed, err)
		}
	})
}

func TestDediOriginNamespaceConflict(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		u, err := s.EnsureUser(ctx, "local@example.com")
		if err != nil {
			t.Fatal(err)
		}
		local, err := s.CreateNamespace(ctx, u, "did:web:x", directory.NamespaceInput{Name: "local"})
		if err != nil {
			t.Fatal(err)
		}
		err = s.InTx(ctx, func(tx *store.Tx) error {
			return tx.ClaimDomain(local.NamespaceID, "taken.example", store.MethodSelfDNS, "", time.Now().Add(time.Hour))
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"taken.example", "free.example"} {
			if _, err := s.AddDediPublisher(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		sys, _ := s.EnsureUser(ctx, "dedi@origin.invalid")
		err = s.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.OriginNamespace("taken.example", sys.ID, "did:web:x")
			return err
		})
		if !errors.Is(err, store.ErrOriginConflict) {
			t.Fatalf("a locally verified domain was ingested: %v", err)
		}
		var id string
		err = s.InTx(ctx, func(tx *store.Tx) (err error) {
			id, err = tx.OriginNamespace("free.example", sys.ID, "did:web:x")
			return err
		})
		if err != nil || id == "" {
			t.Fatalf("origin namespace = %q, %v", id, err)
		}
		if got, err := s.ResolveNamespace(ctx, "free.example"); err != nil || got != id {
			t.Fatalf("the origin namespace does not answer by its domain: %q, %v", got, err)
		}
		// The reverse: a local namespace cannot verify the origin's domain.
		err = s.InTx(ctx, func(tx *store.Tx) error {
			return tx.ClaimDomain(local.NamespaceID, "free.example", store.MethodSelfDNS, "", time.Now().Add(time.Hour))
		})
		if err == nil {
			t.Fatal("a local namespace claimed an origin-hosted domain")
		}
		origins, err := s.OriginNamespaces(ctx)
		if err != nil || origins[id] != "free.example" {
			t.Fatalf("origins = %v, %v", origins, err)
		}
	})
}

// TestDediLeaseRenewal: a crawler renews the lease it holds, and only that one: once the crawl
// is recorded, or another claim took the publisher after the lease ran out, a renewal changes
// nothing.
func TestDediLeaseRenewal(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if _, err := s.AddDediPublisher(ctx, "pub.example"); err != nil {
			t.Fatal(err)
		}
		now := time.Now().Truncate(time.Millisecond)
		lease := now.Add(time.Minute)
		if due, err := s.ClaimDueDediPublishers(ctx, now.Add(time.Second), lease, 10); err != nil || len(due) != 1 {
			t.Fatalf("claim = %v, %v", due, err)
		}
		renewed := lease.Add(time.Minute)
		if ok, err := s.RenewDediLease(ctx, "pub.example", lease, renewed); err != nil || !ok {
			t.Fatalf("renewal of the lease held = %v, %v", ok, err)
		}
		// Not due when the first lease would have run out: the renewal holds it.
		if due, _ := s.ClaimDueDediPublishers(ctx, lease.Add(time.Second), lease.Add(time.Hour), 10); len(due) != 0 {
			t.Fatalf("a renewed lease was claimed: %v", due)
		}
		// A renewal of a lease no longer held (the old one) changes nothing.
		if ok, err := s.RenewDediLease(ctx, "pub.example", lease, renewed.Add(time.Hour)); err != nil || ok {
			t.Fatalf("renewal of a lease not held = %v, %v", ok, err)
		}
		// Past the renewed lease, another claim takes it; the first crawler's renewal fails.
		other := renewed.Add(time.Hour)
		if due, _ := s.ClaimDueDediPublishers(ctx, renewed.Add(time.Second), other, 10); len(due) != 1 {
			t.Fatalf("an expired lease was not claimed: %v", due)
		}
		if ok, _ := s.RenewDediLease(ctx, "pub.example", renewed, renewed.Add(time.Minute)); ok {
			t.Fatal("a lease taken by another claim was renewed")
		}
		// The end of the crawl sets the next crawl; a late renewal does not undo it.
		next := now.Add(3 * time.Hour)
		if err := s.RecordDediCrawl(ctx, "pub.example", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", NextCrawl: next}); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.RenewDediLease(ctx, "pub.example", other, other.Add(time.Hour)); ok {
			t.Fatal("a renewal after the crawl was recorded")
		}
		if p, _ := s.DediPublisher(ctx, "pub.example"); !p.NextCrawl.Equal(next) {
			t.Fatalf("next crawl %v; want %v", p.NextCrawl, next)
		}
	})
}

// TestDediOriginsGeneration: the count of changes of the origin-hosted set moves when a
// namespace is first indexed and when its publisher is removed, after the commit; not for a
// transaction rolled back, nor for a namespace indexed again.
func TestDediOriginsGeneration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if _, err := s.AddDediPublisher(ctx, "pub.example"); err != nil {
			t.Fatal(err)
		}
		owner, err := s.EnsureUser(ctx, "dedi-origin@svc.invalid")
		if err != nil {
			t.Fatal(err)
		}
		g0 := s.OriginsGeneration()
		errRollback := errors.New("rolled back")
		err = s.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.OriginNamespace("pub.example", owner.ID, "did:web:svc.test"); err != nil {
				return err
			}
			if s.OriginsGeneration() != g0 {
				t.Error("the count moved before the commit")
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) || s.OriginsGeneration() != g0 {
			t.Fatalf("a rolled-back transaction: %v, count %d → %d", err, g0, s.OriginsGeneration())
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.OriginNamespace("pub.example", owner.ID, "did:web:svc.test")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		g1 := s.OriginsGeneration()
		if g1 == g0 {
			t.Fatal("the count did not move when the namespace was first indexed")
		}
		if m, _ := s.OriginNamespaces(ctx); len(m) != 1 {
			t.Fatalf("origins %v", m)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			_, err := tx.OriginNamespace("pub.example", owner.ID, "did:web:svc.test")
			return err
		}); err != nil || s.OriginsGeneration() != g1 {
			t.Fatalf("indexed again: %v, count %d → %d", err, g1, s.OriginsGeneration())
		}
		if _, err := s.RemoveDediPublisher(ctx, "pub.example"); err != nil || s.OriginsGeneration() == g1 {
			t.Fatalf("publisher removed: %v, count still %d", err, g1)
		}
	})
}
