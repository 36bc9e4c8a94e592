package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

var t0 = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// TestIngestLifecycle: a publisher's file is indexed; an unchanged publisher costs one 304
// per document and makes no version; a changed record gets a new version, a removed one stops
// answering as live with its versions kept; a key rotated with overlap keeps the file live;
// removing the old key withdraws the file; going dark past next_update makes it stale, the
// data still served.
func TestIngestLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "pub.test", c.Now())
		p.registry("keys", rec("a", map[string]any{"id": "a", "n": 1.0}), rec("b", map[string]any{"id": "b"}))
		sent := p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(ctx, "pub.test"); err != nil {
			t.Fatal(err)
		}
		svc := newService(s, o, c)

		rep := mustCrawl(t, svc, "pub.test")
		if rep.Outcome != "authentic" || rep.Files["keys"].Outcome != "authentic" || rep.NewVersions != 3 {
			t.Fatalf("first crawl: %s", describe(rep))
		}
		a, err := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{})
		if err != nil || a.Details["n"] != 1.0 || a.State != directory.StateLive {
			t.Fatalf("lookup of a: %+v, %v", a, err)
		}
		f := fileState(t, s, "pub.test", "keys")
		if !bytes.Equal(f.Bytes, sent["keys"]) || f.State != store.OriginLive || f.Kid != "key-1" || f.RecordCount != 2 {
			t.Fatalf("the stored file is not the one served: %+v", f.State)
		}

		// Unchanged: one 304 per document, no version.
		c.Add(time.Minute)
		before := o.notMod.Load()
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Requests != 2 || o.notMod.Load()-before != 2 || rep.NewVersions != 0 || rep.Outcome != "authentic" {
			t.Fatalf("unchanged crawl: %s, 304s %d", describe(rep), o.notMod.Load()-before)
		}

		// A record changes, another leaves the file.
		c.Add(time.Minute)
		p.files["keys"].Records = []dedi.Record{rec("a", map[string]any{"id": "a", "n": 2.0})}
		p.publish(t, c.Now())
		rep = mustCrawl(t, svc, "pub.test")
		if rep.NewVersions != 2 {
			t.Fatalf("change crawl: %s", describe(rep))
		}
		a2, _ := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{})
		if a2.Details["n"] != 2.0 || a2.Version == a.Version {
			t.Fatalf("a did not get a new version: %+v", a2)
		}
		if old, err := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{VersionID: a.Version}); err != nil || old.Details["n"] != 1.0 {
			t.Fatalf("a's first version: %+v, %v", old, err)
		}
		b, _ := s.GetRecord(ctx, "pub.test", "keys", "b", directory.VersionSel{})
		if b.State != directory.StateSuspended {
			t.Fatalf("b left the file but reads %s", b.State)
		}

		// Rotation with overlap: the manifest lists both keys, the files are signed by the new.
		c.Add(time.Minute)
		k2, _ := dedi.GenerateKey("key-2")
		oldKey := p.keys[0]
		p.keys = []dedi.PrivateKey{oldKey, k2}
		p.fileKey, p.signer = k2, k2
		p.publish(t, c.Now())
		if rep = mustCrawl(t, svc, "pub.test"); rep.Files["keys"].State != store.OriginLive {
			t.Fatalf("rotation: %s", describe(rep))
		}
		// The old key removed while a file is still signed with it: withdrawn.
		c.Add(time.Minute)
		p.keys = []dedi.PrivateKey{k2}
		p.fileKey = oldKey
		p.publish(t, c.Now())
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Files["keys"].Outcome != "not_authenticated" || fileState(t, s, "pub.test", "keys").State != store.OriginWithdrawn {
			t.Fatalf("old key removed: %s", describe(rep))
		}
		if g, _ := s.GetRegistry(ctx, "pub.test", "keys", directory.VersionSel{}); g.State != directory.StateInactive {
			t.Fatalf("a withdrawn registry reads %s", g.State)
		}
		if a3, err := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{}); err != nil || a3.Version != a2.Version {
			t.Fatalf("a withdrawal lost the accepted data: %+v, %v (want version %s)", a3, err, a2.Version)
		}
		// Re-signed with the new key: live again.
		c.Add(time.Minute)
		p.fileKey = k2
		p.publish(t, c.Now())
		if rep = mustCrawl(t, svc, "pub.test"); rep.Files["keys"].State != store.OriginLive {
			t.Fatalf("re-signed: %s", describe(rep))
		}
		if g, _ := s.GetRegistry(ctx, "pub.test", "keys", directory.VersionSel{}); g.State != directory.StateLive {
			t.Fatalf("a re-signed registry reads %s", g.State)
		}

		// Dark past next_update: stale, still served.
		o.dark("pub.test")
		c.Add(25 * time.Hour)
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Outcome != "unavailable_authority" || fileState(t, s, "pub.test", "keys").State != store.OriginStale {
			t.Fatalf("dark: %s", describe(rep))
		}
		if a4, err := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{}); err != nil || a4.Details["n"] != 2.0 {
			t.Fatalf("stale data is not served: %+v, %v", a4, err)
		}
		pub, _ := s.DediPublisher(ctx, "pub.test")
		if pub.Status != store.DediFailed || pub.LastSuccess == nil {
			t.Fatalf("publisher after going dark: %+v", pub)
		}

		// Removed and added again: the namespace indexed before is taken back, no conflict.
		if _, err := s.RemoveDediPublisher(ctx, "pub.test"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddDediPublisher(ctx, "pub.test"); err != nil {
			t.Fatal(err)
		}
		c.Add(time.Minute)
		p.publish(t, c.Now())
		if rep = mustCrawl(t, svc, "pub.test"); rep.Outcome != "authentic" || rep.Files["keys"].State != store.OriginLive {
			t.Fatalf("added again: %s", describe(rep))
		}
		if again, _ := s.DediPublisher(ctx, "pub.test"); again.NamespaceID != pub.NamespaceID {
			t.Fatalf("added again into namespace %q, was %q", again.NamespaceID, pub.NamespaceID)
		}
		if a5, _ := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{}); a5.Version != a2.Version {
			t.Fatal("adding the publisher again made a new version of an unchanged record")
		}
	})
}

// TestIngestConflict: a domain a local namespace verified is not ingested.
func TestIngestConflict(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "held.test", c.Now())
		p.registry("keys", rec("a", map[string]any{"id": "a"}))
		p.publish(t, c.Now())
		u, _ := s.EnsureUser(ctx, "local@example.com")
		ns, err := s.CreateNamespace(ctx, u, "did:web:x", directory.NamespaceInput{Name: "local"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.ClaimDomain(ns.NamespaceID, "held.test", store.MethodSelfDNS, "", c.Now().Add(time.Hour))
		}); err != nil {
			t.Fatal(err)
		}
		_, _ = s.AddDediPublisher(ctx, "held.test")
		rep := mustCrawl(t, newService(s, o, c), "held.test")
		if rep.Outcome != "conflict" {
			t.Fatalf("crawl of a locally verified domain: %s", describe(rep))
		}
		if _, err := s.GetRegistry(ctx, "held.test", "keys", directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("the publisher's registry was indexed into the local namespace: %v", err)
		}
		if pub, _ := s.DediPublisher(ctx, "held.test"); pub.Status != store.DediConflict {
			t.Fatalf("status %q", pub.Status)
		}
	})
}
