package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// The entry a write answers with is exactly what a lookup of that version shows, field for
// field (as JSON, the form the API gives), and its digest recomputes from its fields.
func TestWriteAnswersEqualTheirLookups(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		same := func(what string, answer, lookup any, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: lookup: %v", what, err)
			}
			a, _ := json.Marshal(answer)
			l, _ := json.Marshal(lookup)
			if string(a) != string(l) {
				t.Fatalf("%s: the answer differs from the lookup of its version\nanswer: %s\nlookup: %s", what, a, l)
			}
		}
		owner := newOwner(t, s)
		ns, err := s.CreateNamespace(ctx, owner, creator, directory.NamespaceInput{Name: "n", Description: "d",
			Meta: map[string]any{"k": 1, "z": []any{"a", 2.5}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{VersionID: ns.Version})
		same("create namespace", ns, got, err)
		checkDigest(t, "create namespace", ns.Fields(), ns.Digest)

		reg, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom,
			Schema: map[string]any{"type": "object", "required": []any{"email"}}, Meta: map[string]any{"m": true}, TTL: ptr(int64(60))})
		if err != nil {
			t.Fatal(err)
		}
		gotReg, err := s.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{VersionID: reg.Version})
		same("create registry", reg, gotReg, err)
		checkDigest(t, "create registry", reg.Fields(), reg.Digest)

		// The namespace's version, registry count and name as they are after the registry.
		ns, err = s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Name: ptr("renamed"), Meta: map[string]any{"k": 2}})
		if err != nil {
			t.Fatal(err)
		}
		got, err = s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{VersionID: ns.Version})
		same("update namespace", ns, got, err)
		checkDigest(t, "update namespace", ns.Fields(), ns.Digest)
		unchanged, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Name: ptr("renamed")})
		if err != nil || unchanged.Version != ns.Version {
			t.Fatalf("a patch that changes nothing: %v, version %s, want %s", err, unchanged.Version, ns.Version)
		}
		same("namespace patch that changes nothing", unchanged, got, nil)

		till := time.Date(2030, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
		rec, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, directory.RecordInput{RecordName: "alice", Description: "a",
			Details: map[string]any{"email": "a@example.com", "n": 1e21, "nested": map[string]any{"b": []any{1, "x"}}},
			Meta:    map[string]any{"src": "t"}, ValidTill: &till, State: directory.StateDraft})
		if err != nil {
			t.Fatal(err)
		}
		gotRec, err := s.GetRecord(ctx, ns.NamespaceID, "people", "alice", directory.VersionSel{VersionID: rec.Version})
		same("add record", rec, gotRec, err)
		checkDigest(t, "add record", rec.Fields(), rec.Digest)

		reg, err = s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Description: ptr("d2"), QueryAllowed: ptr(false)})
		if err != nil {
			t.Fatal(err)
		}
		gotReg, err = s.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{VersionID: reg.Version})
		same("update registry", reg, gotReg, err)
		checkDigest(t, "update registry", reg.Fields(), reg.Digest)

		for _, p := range []struct {
			what  string
			patch directory.RecordPatch
		}{
			{"update record details", directory.RecordPatch{Details: map[string]any{"email": "b@example.com", "k": []any{}}}},
			{"update record meta and ttl", directory.RecordPatch{Meta: map[string]any{}, TTL: ptr(int64(5))}},
			{"clear valid_till", directory.RecordPatch{ClearValidTo: true}},
			{"publish record", directory.RecordPatch{Action: directory.ActionPublish}},
			{"record patch that changes nothing", directory.RecordPatch{TTL: ptr(int64(5))}},
		} {
			rec, err = s.UpdateRecord(ctx, ns.NamespaceID, "people", "alice", "", p.patch)
			if err != nil {
				t.Fatalf("%s: %v", p.what, err)
			}
			gotRec, err = s.GetRecord(ctx, ns.NamespaceID, "people", "alice", directory.VersionSel{VersionID: rec.Version})
			same(p.what, rec, gotRec, err)
			checkDigest(t, p.what, rec.Fields(), rec.Digest)
		}
		latest, err := s.GetRecord(ctx, ns.NamespaceID, "people", "alice", directory.VersionSel{})
		same("latest record", rec, latest, err)
	})
}
