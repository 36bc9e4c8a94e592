package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

func nsLeaf(n directory.Namespace) string {
	return fmt.Sprintf(`{"digest":"%s","kind":"namespace","namespace_id":"%s","version":"%s","version_count":%d}`,
		n.Digest, n.NamespaceID, n.Version, n.VersionCount)
}

func regLeaf(r directory.Registry) string {
	return fmt.Sprintf(`{"digest":"%s","kind":"registry","namespace_id":"%s","registry_id":"%s","version":"%s","version_count":%d}`,
		r.Digest, r.NamespaceID, r.RegistryID, r.Version, r.VersionCount)
}

func recLeaf(r directory.Record) string {
	return fmt.Sprintf(`{"digest":"%s","kind":"record","namespace_id":"%s","record_id":"%s","registry_id":"%s","version":"%s","version_count":%d}`,
		r.Digest, r.NamespaceID, r.RecordID, r.RegistryID, r.Version, r.VersionCount)
}

// Every public version is queued for the transparency log by the write that makes it, with its
// canonical leaf, in the order of the writes; record drafts are not.
func TestPublicVersionsAreQueuedForTheLog(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		owner := newOwner(t, s)
		var want []string
		ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "n"})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, nsLeaf(ns))
		reg, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, regLeaf(reg))
		added, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{
			{RecordName: "alice", Details: map[string]any{"n": 1.0}},
			{RecordName: "draft", Details: map[string]any{"n": 2.0}, State: directory.StateDraft},
			{RecordName: "bob", Details: map[string]any{"n": 3.0}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range added {
			if a.RecordName == "draft" {
				continue
			}
			r, err := s.GetRecord(ctx, ns.NamespaceID, "people", a.RecordName, directory.VersionSel{})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, recLeaf(r))
		}
		// A draft edited stays out; publishing it makes a logged version.
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "draft", "", directory.RecordPatch{Details: map[string]any{"n": 4.0}}); err != nil {
			t.Fatal(err)
		}
		pub, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "draft", "", directory.RecordPatch{Action: directory.ActionPublish})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, recLeaf(pub))
		alice, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "alice", "", directory.RecordPatch{Details: map[string]any{"n": 5.0}})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, recLeaf(alice))
		desc := "d"
		reg2, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Description: &desc})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, regLeaf(reg2))
		ns2, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: &desc})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, nsLeaf(ns2))

		queued, err := s.LogQueuedLeaves(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, q := range queued {
			got = append(got, string(q.Leaf))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("queued leaves:\n%q\nwant\n%q", got, want)
		}
		// A failed write queues nothing.
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{
			{RecordName: "carol", Details: map[string]any{"n": 1.0}}, {RecordName: "carol", Details: map[string]any{"n": 1.0}}}); err == nil {
			t.Fatal("a batch naming one record twice was accepted")
		}
		if n, err := s.LogQueueLength(ctx); err != nil || n != int64(len(want)) {
			t.Fatalf("queue length %d, %v; want %d", n, err, len(want))
		}
	})
}

// The leaf text is the RFC 8785 form of the leaf's members, whatever the values hold.
func TestLogLeafIsCanonicalJSON(t *testing.T) {
	for _, l := range []leaf.Leaf{
		{Kind: "namespace", NamespaceID: "did:svc:x", Version: "0x01", VersionCount: 1, Digest: "0xab"},
		{Kind: "registry", NamespaceID: "n\"é\u2028", RegistryID: "r\\", Version: "v", VersionCount: 9007199254740991, Digest: "d"},
		{Kind: "record", NamespaceID: "n", RegistryID: "r", RecordID: "\u0001", Version: "v", VersionCount: 2, Digest: "d"},
	} {
		m := map[string]any{"kind": l.Kind, "namespace_id": l.NamespaceID, "version": l.Version, "version_count": l.VersionCount, "digest": l.Digest}
		if l.Kind != "namespace" {
			m["registry_id"] = l.RegistryID
		}
		if l.Kind == "record" {
			m["record_id"] = l.RecordID
		}
		want, err := proof.Canonicalize(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.Canonical()
		if err != nil || string(got) != string(want) {
			t.Fatalf("leaf %s, %v; want %s", got, err, want)
		}
	}
}

// The age of the log's backlog is the write time of the version at the head of its queue:
// none while nothing waits, the oldest waiting version's time otherwise.
func TestLogOldestWaitingIsTheHeadOfTheQueue(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			c := &clock{t: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
			s, _ := storetest.OpenWith(t, d, store.Options{Now: c.now})
			if _, ok, err := s.LogOldestWaiting(ctx); err != nil || ok {
				t.Fatalf("empty queue: ok %v, %v", ok, err)
			}
			owner := newOwner(t, s)
			ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "n"})
			if err != nil {
				t.Fatal(err)
			}
			t0 := c.now()
			c.set(t0.Add(90 * time.Second))
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom}); err != nil {
				t.Fatal(err)
			}
			if got, ok, err := s.LogOldestWaiting(ctx); err != nil || !ok || !got.Equal(t0) {
				t.Fatalf("oldest = %v, %v, %v; want the namespace's %v", got, ok, err, t0)
			}
			// Integrating the namespace's leaf leaves the registry's at the head.
			n, err := s.IntegrateLog(ctx, 1, func(*logstore.Batch) (logstore.Update, error) {
				return logstore.Update{Origin: "example.test/log", Checkpoint: "checkpoint"}, nil
			})
			if err != nil || n != 1 {
				t.Fatalf("integrate: %d, %v", n, err)
			}
			if got, ok, err := s.LogOldestWaiting(ctx); err != nil || !ok || !got.Equal(t0.Add(90*time.Second)) {
				t.Fatalf("oldest = %v, %v, %v; want the registry's %v", got, ok, err, t0.Add(90*time.Second))
			}
		})
	}
}
