package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// The statistics count what the writes created, once each: a user seen again, an update, a new
// version or a failed write adds nothing; concurrent writers lose no count.
func TestStatsCountWhatWritesCreate(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		want := store.Stats{}
		check := func(step string) {
			t.Helper()
			got, err := s.Stats(ctx)
			if err != nil || got != want {
				t.Fatalf("%s: stats %+v, %v; want %+v", step, got, err, want)
			}
		}
		check("empty")
		u, err := s.EnsureUser(ctx, "a@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.EnsureUser(ctx, "A@example.com"); err != nil { // the same user
			t.Fatal(err)
		}
		if _, _, err := s.CreateAPIKey(ctx, "b@example.com"); err != nil {
			t.Fatal(err)
		}
		want.Users = 2
		check("users")
		ns, err := s.CreateNamespace(ctx, u, creator, directory.NamespaceInput{Name: "n"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", creator, []directory.RecordInput{
			{RecordName: "a", Details: map[string]any{"n": 1.0}},
			{RecordName: "d", Details: map[string]any{"n": 2.0}, State: directory.StateDraft},
		}); err != nil {
			t.Fatal(err)
		}
		want.Namespaces, want.Registries, want.Records = 1, 1, 1
		check("created (the draft is not counted: drafts are private)")
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "d", "", directory.RecordPatch{Details: map[string]any{"n": 3.0}}); err != nil {
			t.Fatal(err)
		}
		check("a draft updated")
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "d", "", directory.RecordPatch{Action: directory.ActionPublish}); err != nil {
			t.Fatal(err)
		}
		want.Records = 2
		check("the draft published")
		desc := "second"
		if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: &desc}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, "r", "", directory.RegistryPatch{Description: &desc}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "a", "", directory.RecordPatch{Details: map[string]any{"n": 9.0}}); err != nil {
			t.Fatal(err)
		}
		check("updates")
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", creator, []directory.RecordInput{
			{RecordName: "x", Details: map[string]any{"n": 1.0}}, {RecordName: "a", Details: map[string]any{"n": 1.0}}}); err == nil {
			t.Fatal("a batch naming an existing record was accepted")
		}
		check("failed write")
		var g errgroup.Group
		for w := range 8 {
			g.Go(func() error {
				for i := range 10 {
					if _, err := s.AddRecord(ctx, ns.NamespaceID, "r", creator, directory.RecordInput{RecordName: fmt.Sprintf("w%d-%d", w, i), Details: map[string]any{}}); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		want.Records += 80
		check("concurrent writers")
	})
}

// On Postgres a writer never waits for another transaction's counter row: while one
// transaction holds the shard its write took, 40 writes to another namespace, each free to
// start on any shard, all finish (with one shard of 16 held, a writer that waited for it would
// hang here with a chance of 1 - (15/16)^40 ≈ 92%), and once the held one commits every count is
// there.
func TestStatsWritersDoNotWaitForEachOthersCounter(t *testing.T) {
	s := storetest.Open(t, store.DialectPostgres)
	ctx := context.Background()
	u, err := s.EnsureUser(ctx, "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var nsIDs []string
	for _, name := range []string{"held", "free"} {
		ns, err := s.CreateNamespace(ctx, u, creator, directory.NamespaceInput{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom}); err != nil {
			t.Fatal(err)
		}
		nsIDs = append(nsIDs, ns.NamespaceID)
	}
	took, release, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- s.InTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.AddRecords(nsIDs[0], "r", store.Principal{}, creator, []directory.RecordInput{{RecordName: "held", Details: map[string]any{}}}); err != nil {
				return err
			}
			close(took)
			<-release
			return nil
		})
	}()
	<-took
	for i := range 40 {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := s.AddRecords(wctx, nsIDs[1], "r", creator, []directory.RecordInput{{RecordName: fmt.Sprintf("free-%d", i), Details: map[string]any{}}})
		cancel()
		if err != nil {
			close(release)
			t.Fatalf("write %d while another transaction holds a counter shard: %v", i, err)
		}
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	got, err := s.Stats(ctx)
	if err != nil || got.Records != 41 {
		t.Fatalf("stats %+v, %v; want 41 records", got, err)
	}
}
