package store_test

import (
	"context"
	"fmt"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
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
		ns, err := s.CreateNamespace(ctx, u, creator, store.NamespaceInput{Name: "n"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, store.RegistryInput{RegistryName: "r", Tag: store.TagCustom}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", creator, []store.RecordInput{
			{RecordName: "a", Details: map[string]any{"n": 1.0}},
			{RecordName: "d", Details: map[string]any{"n": 2.0}, State: store.StateDraft},
		}); err != nil {
			t.Fatal(err)
		}
		want.Namespaces, want.Registries, want.Records = 1, 1, 2
		check("created")
		desc := "second"
		if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", store.NamespacePatch{Description: &desc}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, "r", "", store.RegistryPatch{Description: &desc}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "a", "", store.RecordPatch{Details: map[string]any{"n": 9.0}}); err != nil {
			t.Fatal(err)
		}
		check("updates")
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", creator, []store.RecordInput{
			{RecordName: "x", Details: map[string]any{"n": 1.0}}, {RecordName: "a", Details: map[string]any{"n": 1.0}}}); err == nil {
			t.Fatal("a batch naming an existing record was accepted")
		}
		check("failed write")
		var g errgroup.Group
		for w := range 8 {
			g.Go(func() error {
				for i := range 10 {
					if _, err := s.AddRecord(ctx, ns.NamespaceID, "r", creator, store.RecordInput{RecordName: fmt.Sprintf("w%d-%d", w, i), Details: map[string]any{}}); err != nil {
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
