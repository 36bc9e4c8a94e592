package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// A record reads as expired when live past its valid_till, and as revoked in a revoked
// registry; the record query and search filter on the state a record reads as.
func TestEffectiveStates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns := lifecycleFixture(t, s) // draft, a, b, c in people
		past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		for name, p := range map[string]directory.RecordPatch{
			"a": {ValidTill: &past}, "b": {ValidTill: &future}, "c": {Action: directory.ActionSuspend},
		} {
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", name, "", p); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, directory.RecordInput{RecordName: "gone", Details: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "gone", "", directory.RecordPatch{Action: directory.ActionRevoke}); err != nil {
			t.Fatal(err)
		}
		// A suspended record past its valid_till reads as suspended: expiry applies to live ones.
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "c", "", directory.RecordPatch{ValidTill: &past}); err != nil {
			t.Fatal(err)
		}
		reg, err := s.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{})
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		want := map[string]string{"draft": directory.StateDraft, "a": directory.StateExpired, "b": directory.StateLive,
			"c": directory.StateSuspended, "gone": directory.StateRevoked}
		check := func(want map[string]string) {
			t.Helper()
			for name, state := range want {
				r, err := s.GetRecord(ctx, ns.NamespaceID, "people", name, directory.VersionSel{})
				if err != nil || r.EffectiveState(now) != state {
					t.Errorf("lookup of %s reads as %s (%v), want %s", name, r.EffectiveState(now), err, state)
				}
			}
			for _, state := range directory.EffectiveRecordStates {
				var names, searched []string
				for name, st := range want {
					if st == state {
						names = append(names, name)
					}
				}
				recs, total, err := s.ListRecords(ctx, reg.RegistryID, store.ListOptions{State: state, Page: 1, Size: 100, WithDrafts: true})
				if err != nil {
					t.Fatal(err)
				}
				var listed []string
				for _, r := range recs {
					listed = append(listed, r.RecordName)
					if r.EffectiveState(now) != state {
						t.Errorf("the %s query lists %s, which reads as %s", state, r.RecordName, r.EffectiveState(now))
					}
				}
				res, err := s.Search(ctx, ns.NamespaceID, store.SearchOptions{State: state, Member: true, Page: 1, Size: 100})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res.Records {
					searched = append(searched, r.RecordName)
				}
				slices.Sort(names)
				slices.Sort(listed)
				slices.Sort(searched)
				if !slices.Equal(listed, names) || total != int64(len(names)) || !slices.Equal(searched, names) {
					t.Errorf("state %s: the query lists %v (total %d), search finds %v; want %v", state, listed, total, searched, names)
				}
			}
		}
		check(want)
		// Anonymous searches and queries see every state but drafts.
		res, err := s.Search(ctx, ns.NamespaceID, store.SearchOptions{Page: 1, Size: 100})
		if err != nil || res.Total != 4 {
			t.Fatalf("an anonymous search finds %d records (%v), want the 4 that are not drafts", res.Total, err)
		}
		for _, o := range []store.ListOptions{{}, {State: directory.StateDraft}} {
			o.Page, o.Size = 1, 100
			recs, total, err := s.ListRecords(ctx, reg.RegistryID, o)
			if err != nil || total != int64(len(recs)) || total != map[string]int64{"": 4, directory.StateDraft: 0}[o.State] {
				t.Fatalf("an anonymous query of state %q lists %d of %d (%v); drafts are private", o.State, len(recs), total, err)
			}
		}
		// Revoking the registry revokes every record as it reads; the versions keep their states.
		if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Action: directory.ActionRevoke}); err != nil {
			t.Fatal(err)
		}
		for name := range want {
			want[name] = directory.StateRevoked
		}
		check(want)
		if r, err := s.GetRecord(ctx, ns.NamespaceID, "people", "b", directory.VersionSel{}); err != nil || r.State != directory.StateLive {
			t.Fatalf("b in the revoked registry holds %s (%v), want its own state live", r.State, err)
		}
	})
}
