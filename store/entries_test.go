package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/store"
)

const creator = "did:web:localhost%3A8080:tester"

// clock is a settable time source for versions and as_on tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func ptr[T any](v T) *T { return &v }

// acmePeople makes the namespace Acme, owned by a new user, with a registry "people" of any
// details.
func acmePeople(t *testing.T, s *store.Store) directory.Namespace {
	t.Helper()
	ctx := context.Background()
	ns, err := s.CreateNamespace(ctx, newOwner(t, s), creator, directory.NamespaceInput{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom,
		Schema: map[string]any{"type": "object"}}); err != nil {
		t.Fatal(err)
	}
	return ns
}

func newOwner(t *testing.T, s *store.Store) store.User {
	t.Helper()
	u, err := s.EnsureUser(context.Background(), fmt.Sprintf("owner-%d@example.com", time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func checkDigest(t *testing.T, what string, fields interface{ Digest() (string, error) }, want string) {
	t.Helper()
	got, err := fields.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("%s: stored digest %s, recomputed %s", what, want, got)
	}
}

func TestNamespaceLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		owner := newOwner(t, s)
		ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "Acme", Description: "first", Meta: map[string]any{"k": 1.5}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(ns.NamespaceID, "did:svc:") || ns.VersionCount != 1 || ns.TTL != directory.DefaultTTL || ns.OwnerID != owner.ID {
			t.Fatalf("created = %+v", ns)
		}
		if len(ns.Version) != 34 || !strings.HasPrefix(ns.Version, "0x") {
			t.Fatalf("version %q is not 0x + 32 hex digits", ns.Version)
		}
		if k, year, err := proof.ParseProofType(ns.ProofType); err != nil || k != proof.KindNamespace || year != ns.UpdatedAt.Year() {
			t.Fatalf("proof type %q: %v", ns.ProofType, err)
		}
		checkDigest(t, "v1", ns.Fields(), ns.Digest)

		v2, err := s.UpdateNamespace(ctx, ns.NamespaceID, ns.Version, directory.NamespacePatch{Description: ptr("second")})
		if err != nil {
			t.Fatal(err)
		}
		if v2.VersionCount != 2 || v2.Version == ns.Version || v2.Description != "second" || v2.Name != "Acme" || v2.Genesis != ns.Genesis {
			t.Fatalf("v2 = %+v", v2)
		}
		checkDigest(t, "v2", v2.Fields(), v2.Digest)

		// A stale If-Match writes nothing.
		if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, ns.Version, directory.NamespacePatch{Description: ptr("third")}); !errors.Is(err, directory.ErrPrecondition) {
			t.Fatalf("stale update = %v, want ErrPrecondition", err)
		}
		// A patch that changes nothing makes no version.
		same, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: ptr("second")})
		if err != nil || same.Version != v2.Version {
			t.Fatalf("no-op update = %+v, %v", same, err)
		}
		versions, err := s.NamespaceVersions(ctx, ns.NamespaceID)
		if err != nil || len(versions) != 2 || versions[0] != v2.Version || versions[1] != ns.Version {
			t.Fatalf("versions = %v, %v", versions, err)
		}
		old, err := s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{VersionID: ns.Version})
		if err != nil || old.Description != "first" || old.Digest != ns.Digest {
			t.Fatalf("old version = %+v, %v", old, err)
		}
		if _, err := s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{VersionID: "0x" + strings.Repeat("0", 32)}); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("unknown version = %v", err)
		}
		if _, err := s.GetNamespace(ctx, "did:svc:nope", directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("unknown namespace = %v", err)
		}
		role, err := s.MemberRole(ctx, ns.NamespaceID, owner.ID)
		if err != nil || role != directory.RoleOwner {
			t.Fatalf("owner role = %q, %v", role, err)
		}
	})
}

func TestAsOfPicksTheVersionInEffectAtTheEndOfTheDay(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			c := &clock{t: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
			s, err := store.Open(ctx, storetest.URL(t, d), nil, store.Options{Now: c.now})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			owner := newOwner(t, s)
			ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "n", Description: "d1"})
			if err != nil {
				t.Fatal(err)
			}
			c.set(time.Date(2026, 3, 4, 23, 59, 59, 999e6, time.UTC))
			if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: ptr("d2")}); err != nil {
				t.Fatal(err)
			}
			c.set(time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC))
			if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: ptr("d3")}); err != nil {
				t.Fatal(err)
			}
			endOf := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day+1, 0, 0, 0, 0, time.UTC) }
			tests := []struct {
				name string
				day  time.Time
				want string
			}{
				{"before creation", endOf(2026, 3, 3), ""},
				{"creation day sees the last change of that day", endOf(2026, 3, 4), "d2"},
				{"a day without changes", endOf(2026, 3, 5), "d2"},
				{"the day of the third version", endOf(2026, 3, 6), "d3"},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					got, err := s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{Before: tc.day})
					if tc.want == "" {
						if !errors.Is(err, directory.ErrNotFound) {
							t.Fatalf("got %+v, %v; want ErrNotFound", got, err)
						}
						return
					}
					if err != nil || got.Description != tc.want {
						t.Fatalf("got %q, %v; want %q", got.Description, err, tc.want)
					}
					checkDigest(t, tc.name, got.Fields(), got.Digest)
				})
			}
		})
	}
}

func TestRegistriesAndRecords(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		owner := newOwner(t, s)
		ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		schema := map[string]any{"type": "object", "properties": map[string]any{"email": map[string]any{"type": "string"}}}
		reg, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "employees", Tag: directory.TagCustom, Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		if reg.State != directory.StateLive || !reg.QueryAllowed || reg.NamespaceName != "Acme" || reg.RecordCount != 0 {
			t.Fatalf("registry = %+v", reg)
		}
		checkDigest(t, "registry", reg.Fields(), reg.Digest)
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "employees", Tag: directory.TagCustom}); !errors.Is(err, directory.ErrConflict) {
			t.Fatalf("duplicate registry = %v", err)
		}
		nsNow, _ := s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{})
		if nsNow.RegistryCount != 1 || nsNow.VersionCount != 1 {
			t.Fatalf("namespace after one registry: count %d, versions %d", nsNow.RegistryCount, nsNow.VersionCount)
		}

		added, err := s.AddRecords(ctx, ns.NamespaceID, "employees", creator, []directory.RecordInput{
			{RecordName: "alice", Details: map[string]any{"email": "a@example.com"}},
			{RecordName: "bob", Details: map[string]any{"email": "b@example.com"}, State: directory.StateDraft},
		})
		if err != nil || len(added) != 2 {
			t.Fatalf("add = %v, %v", added, err)
		}
		// All or none: one taken name refuses the whole batch.
		_, err = s.AddRecords(ctx, ns.NamespaceID, "employees", creator, []directory.RecordInput{{RecordName: "carol"}, {RecordName: "alice"}})
		if !errors.Is(err, directory.ErrConflict) || !strings.Contains(err.Error(), `"alice"`) {
			t.Fatalf("batch with a taken name = %v", err)
		}
		if _, err := s.GetRecord(ctx, ns.NamespaceID, "employees", "carol", directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("carol was written by a refused batch: %v", err)
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "employees", creator, []directory.RecordInput{{RecordName: "x"}, {RecordName: "x"}}); !errors.Is(err, directory.ErrConflict) {
			t.Fatalf("duplicate in batch = %v", err)
		}

		rec, err := s.GetRecord(ctx, ns.NamespaceID, "employees", "alice", directory.VersionSel{})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Digest != added[0].Digest || rec.RegistryState != directory.StateLive || rec.State != directory.StateLive || rec.Schema["type"] != "object" {
			t.Fatalf("record = %+v", rec)
		}
		checkDigest(t, "record", rec.Fields(), rec.Digest)

		upd, err := s.UpdateRecord(ctx, ns.NamespaceID, "employees", "alice", rec.Version, directory.RecordPatch{Details: map[string]any{"email": "alice@example.com"}})
		if err != nil || upd.VersionCount != 2 || upd.Details["email"] != "alice@example.com" {
			t.Fatalf("update = %+v, %v", upd, err)
		}
		checkDigest(t, "record v2", upd.Fields(), upd.Digest)
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "employees", "alice", rec.Version, directory.RecordPatch{Description: ptr("x")}); !errors.Is(err, directory.ErrPrecondition) {
			t.Fatalf("stale record update = %v", err)
		}
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "employees", "alice", "", directory.RecordPatch{Action: directory.ActionPublish}); !errors.Is(err, directory.ErrNotDraft) {
			t.Fatalf("publish of a live record = %v", err)
		}
		pub, err := s.UpdateRecord(ctx, ns.NamespaceID, "employees", "bob", "", directory.RecordPatch{Action: directory.ActionPublish})
		if err != nil || pub.State != directory.StateLive || pub.VersionCount != 2 {
			t.Fatalf("publish = %+v, %v", pub, err)
		}

		// Inactive registries refuse record writes; the deactivation is a new version.
		off, err := s.UpdateRegistry(ctx, ns.NamespaceID, "employees", "", directory.RegistryPatch{Action: directory.ActionDeactivate})
		if err != nil || off.State != directory.StateInactive || off.VersionCount != 2 || off.RecordCount != 2 {
			t.Fatalf("deactivate = %+v, %v", off, err)
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "employees", creator, []directory.RecordInput{{RecordName: "dave"}}); !errors.Is(err, directory.ErrRegistryInactive) {
			t.Fatalf("add to inactive = %v", err)
		}
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "employees", "alice", "", directory.RecordPatch{Description: ptr("y")}); !errors.Is(err, directory.ErrRegistryInactive) {
			t.Fatalf("update in inactive = %v", err)
		}
		got, _ := s.GetRecord(ctx, ns.NamespaceID, "employees", "alice", directory.VersionSel{})
		if got.RegistryState != directory.StateInactive {
			t.Fatalf("record's registry_state = %q", got.RegistryState)
		}

		rv, err := s.RecordVersions(ctx, rec.RecordID, true)
		if err != nil || len(rv) != 2 || rv[0] != upd.Version {
			t.Fatalf("record versions = %v, %v", rv, err)
		}
		first, err := s.GetRecord(ctx, ns.NamespaceID, "employees", "alice", directory.VersionSel{VersionID: rec.Version})
		if err != nil || first.Details["email"] != "a@example.com" || first.Digest != rec.Digest {
			t.Fatalf("first version = %+v, %v", first, err)
		}
	})
}

func TestDelegates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		owner := newOwner(t, s)
		ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "n"})
		if err != nil {
			t.Fatal(err)
		}
		if err := inTx(ctx, s, func(tx *store.Tx) error { return tx.AddDelegate(ns.NamespaceID, "Dee@Example.com") }); err != nil {
			t.Fatal(err)
		}
		if err := inTx(ctx, s, func(tx *store.Tx) error { return tx.AddDelegate(ns.NamespaceID, "dee@example.com") }); !errors.Is(err, directory.ErrConflict) {
			t.Fatalf("second add = %v", err)
		}
		ms, err := s.Members(ctx, ns.NamespaceID)
		if err != nil || len(ms) != 2 || ms[0].Role != directory.RoleOwner || ms[1].Email != "dee@example.com" {
			t.Fatalf("members = %+v, %v", ms, err)
		}
		if err := inTx(ctx, s, func(tx *store.Tx) error { return tx.RemoveDelegate(ns.NamespaceID, owner.Email) }); !errors.Is(err, directory.ErrOwner) {
			t.Fatalf("removing the owner = %v", err)
		}
		if err := inTx(ctx, s, func(tx *store.Tx) error { return tx.RemoveDelegate(ns.NamespaceID, "dee@example.com") }); err != nil {
			t.Fatal(err)
		}
		if err := inTx(ctx, s, func(tx *store.Tx) error { return tx.RemoveDelegate(ns.NamespaceID, "dee@example.com") }); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("second remove = %v", err)
		}
	})
}

func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		owner := newOwner(t, s)
		ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "n"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", creator, []directory.RecordInput{{RecordName: "x"}}); err != nil {
			t.Fatal(err)
		}
		const n = 12
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.UpdateRecord(ctx, ns.NamespaceID, "r", "x", "", directory.RecordPatch{Description: ptr(fmt.Sprint("d", i))})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		rec, _ := s.GetRecord(ctx, ns.NamespaceID, "r", "x", directory.VersionSel{})
		vs, _ := s.RecordVersions(ctx, rec.RecordID, true)
		if rec.VersionCount != n+1 || len(vs) != n+1 {
			t.Fatalf("after %d concurrent updates: version_count %d, %d versions; want %d", n, rec.VersionCount, len(vs), n+1)
		}
	})
}

// inTx runs one of the store's transaction methods in a transaction of its own.
func inTx(ctx context.Context, s *store.Store, fn func(tx *store.Tx) error) error {
	return s.InTx(ctx, fn)
}
