package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/cases"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

func fromMS(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// searchRecord is what the oracle knows of a seeded record.
type searchRecord struct {
	i                         int
	id, name, registry, state string
	last, city, zip           string
	updated                   int64
}

// TestSearchMatchesABruteForceOracle seeds 3,000 records (three batches, so that whole batches
// share one updated_at, then some updates) and checks search answers, totals and pages
// against a brute-force oracle, with the Postgres walk's chunk sizes at their defaults and
// small enough that every path runs: a walk that ends the search, a walk that finds more than
// SearchCountLimit matches, an exact count from the indexes, and a broad search whose page
// comes from a walk continued past its budget.
func TestSearchMatchesABruteForceOracle(t *testing.T) {
	lasts := []string{"Lovelace", "Hopper", "Turing", "Liskov"}
	words := []string{"ΣΊΣΥΦΟΣ", "σίσυφος", "Straße", "STRASSE"} // pairs that fold alike
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns, err := s.CreateNamespace(ctx, newOwner(t, s), creator, directory.NamespaceInput{Name: "Search Co"})
		if err != nil {
			t.Fatal(err)
		}
		for _, reg := range []struct {
			name string
			qa   bool
		}{{"open", true}, {"closed", false}} {
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: reg.name, Tag: directory.TagCustom,
				Schema: map[string]any{"type": "object"}, QueryAllowed: ptr(reg.qa)}); err != nil {
				t.Fatal(err)
			}
		}
		batches := map[string][]directory.RecordInput{}
		for i := range 3000 {
			reg := "open"
			if i%3 == 2 {
				reg = "closed"
			}
			state := directory.StateLive
			if i%10 == 0 {
				state = "draft"
			}
			batches[reg] = append(batches[reg], directory.RecordInput{RecordName: fmt.Sprintf("rec-%04d", i), State: state, Details: map[string]any{
				"name": map[string]any{"last": lasts[i%len(lasts)]}, "city": fmt.Sprintf("City-%d", i%50),
				"zip": fmt.Sprintf("%05d", i), "tags": []any{"common", fmt.Sprintf("t%d", i%7)}, "word": words[i%len(words)]}})
		}
		for _, reg := range []string{"open", "closed"} {
			for from := 0; from < len(batches[reg]); from += 1000 {
				if _, err := s.AddRecords(ctx, ns.NamespaceID, reg, creator, batches[reg][from:min(from+1000, len(batches[reg]))]); err != nil {
					t.Fatal(err)
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
		for _, n := range []int{7, 700, 1500, 2998} { // a few newer updates, out of insertion order
			reg := "open"
			if n%3 == 2 {
				reg = "closed"
			}
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, reg, fmt.Sprintf("rec-%04d", n), "", directory.RecordPatch{Description: ptr("updated")}); err != nil {
				t.Fatal(err)
			}
		}
		// The oracle's copy, in result order (updated_at newest first, then record_id).
		var all []searchRecord
		for _, reg := range []string{"open", "closed"} {
			r, err := s.GetRegistry(ctx, ns.NamespaceID, reg, directory.VersionSel{})
			if err != nil {
				t.Fatal(err)
			}
			for page := 1; ; page++ {
				recs, _, err := s.ListRecords(ctx, r.RegistryID, store.ListOptions{Sort: "id", Page: page, Size: 1000, WithDrafts: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) == 0 {
					break
				}
				for _, rec := range recs {
					var i int
					fmt.Sscanf(rec.RecordName, "rec-%d", &i)
					all = append(all, searchRecord{i: i, id: rec.RecordID, name: rec.RecordName, registry: reg, state: rec.State,
						last: lasts[i%len(lasts)], city: fmt.Sprintf("City-%d", i%50), zip: fmt.Sprintf("%05d", i), updated: rec.UpdatedAt.UnixMilli()})
				}
			}
		}
		if len(all) != 3000 {
			t.Fatalf("oracle holds %d records", len(all))
		}
		slices.SortFunc(all, func(a, b searchRecord) int {
			if a.updated != b.updated {
				return int(b.updated - a.updated)
			}
			return strings.Compare(a.id, b.id)
		})
		fold := cases.Fold()
		has := func(v, part string) bool { return strings.Contains(fold.String(v), fold.String(part)) }
		cases := []struct {
			name     string
			fields   []store.FieldFilter
			record   string
			registry string
			from     int64
			match    func(r searchRecord) bool
		}{
			{"every record (broad)", []store.FieldFilter{{Path: "tags", Value: "COMM"}}, "", "", 0, func(searchRecord) bool { return true }},
			{"a quarter", []store.FieldFilter{{Path: "name.last", Value: "lovel"}}, "", "", 0, func(r searchRecord) bool { return r.last == "Lovelace" }},
			{"two paths", []store.FieldFilter{{Path: "name.last", Value: "o"}, {Path: "city", Value: "city-1"}}, "", "", 0,
				func(r searchRecord) bool { return has(r.last, "o") && has(r.city, "city-1") }},
			{"selective", []store.FieldFilter{{Path: "zip", Value: "02345"}}, "", "", 0, func(r searchRecord) bool { return r.zip == "02345" }},
			{"none", []store.FieldFilter{{Path: "zip", Value: "99999"}}, "", "", 0, func(searchRecord) bool { return false }},
			{"record name", nil, "REC-01", "", 0, func(r searchRecord) bool { return has(r.name, "rec-01") }},
			{"record name, broad", []store.FieldFilter{{Path: "tags", Value: "t"}}, "rec-", "", 0, func(searchRecord) bool { return true }},
			{"registry name", []store.FieldFilter{{Path: "tags", Value: "t3"}}, "", "LOSE", 0, func(r searchRecord) bool { return r.registry == "closed" && r.i%7 == 3 }},
			{"updated since", []store.FieldFilter{{Path: "tags", Value: "common"}}, "", "", all[3].updated,
				func(r searchRecord) bool { return r.updated >= all[3].updated }},
			{"case folding: final sigma (broad)", []store.FieldFilter{{Path: "word", Value: "ΊΣΥΦΟς"}}, "", "", 0, func(r searchRecord) bool { return r.i%4 < 2 }},
			{"case folding: sharp s (short)", []store.FieldFilter{{Path: "word", Value: "ß"}}, "", "", 0, func(r searchRecord) bool { return r.i%4 >= 2 }},
			{"case folding: sharp s and a zip", []store.FieldFilter{{Path: "word", Value: "STRAßE"}, {Path: "zip", Value: "01"}}, "", "", 0,
				func(r searchRecord) bool { return r.i%4 >= 2 && has(r.zip, "01") }},
			{"case folding: sigma, selective", []store.FieldFilter{{Path: "WORD", Value: "σίσυφοσ"}, {Path: "zip", Value: "0234"}}, "", "", 0,
				func(r searchRecord) bool { return r.i%4 < 2 && has(r.zip, "0234") }},
		}
		for _, walk := range []struct{ first, budget int }{{0, 0}, {50, 300}, {200, 2500}} {
			if walk.first > 0 {
				t.Cleanup(store.SetSearchWalk(walk.first, walk.budget))
			}
			for _, c := range cases {
				for _, member := range []bool{false, true} {
					var want []string
					for _, r := range all {
						if (member || r.registry == "open" && r.state == directory.StateLive) && c.match(r) {
							want = append(want, r.id)
						}
					}
					for _, pg := range []struct{ page, size int }{{1, 20}, {3, 7}, {12, 100}, {60, 20}} {
						name := fmt.Sprintf("walk %d/%d, %s, member %v, page %d/%d", walk.first, walk.budget, c.name, member, pg.page, pg.size)
						res, err := s.Search(ctx, ns.NamespaceID, store.SearchOptions{Fields: c.fields, RecordName: c.record, RegistryName: c.registry, Member: member,
							From: fromMS(c.from), Page: pg.page, Size: pg.size})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						wantTotal, wantExact := int64(len(want)), true
						if len(want) > store.SearchCountLimit {
							wantTotal, wantExact = store.SearchCountLimit, false
						}
						if res.Total != wantTotal || res.TotalExact != wantExact {
							t.Fatalf("%s: total %d exact %v, want %d %v", name, res.Total, res.TotalExact, wantTotal, wantExact)
						}
						from := min((pg.page-1)*pg.size, len(want))
						wantPage := want[from:min(from+pg.size, len(want))]
						got := make([]string, len(res.Records))
						for i, r := range res.Records {
							got[i] = r.RecordID
						}
						if !slices.Equal(got, wantPage) {
							t.Fatalf("%s: page of %d records differs from the oracle's %d", name, len(got), len(wantPage))
						}
					}
				}
			}
		}
	})
}

func TestPageWindow(t *testing.T) {
	for _, tc := range []struct {
		offset, size int
		total        int64
		limit, off   int
		reversed     bool
	}{
		{0, 20, 100, 20, 0, false},
		{40, 20, 100, 20, 40, false},
		{60, 20, 100, 20, 20, true},
		{80, 20, 100, 20, 0, true},
		{90, 20, 95, 5, 0, true},
		{99_980, 20, 100_000, 20, 0, true},
		{50_000, 100, 100_000, 100, 50_000, false},
		{50_001, 100, 100_000, 100, 49_899, true},
	} {
		limit, off, rev := store.PageWindow(tc.offset, tc.size, tc.total)
		if limit != tc.limit || off != tc.off || rev != tc.reversed {
			t.Errorf("pageWindow(%d, %d, %d) = %d, %d, %v; want %d, %d, %v", tc.offset, tc.size, tc.total, limit, off, rev, tc.limit, tc.off, tc.reversed)
		}
	}
}

// TestRecordPagesFromEitherEnd: every page of every sort (pages in the second half are read
// backwards) equals the same slice of the whole list read forwards in one page.
func TestRecordPagesFromEitherEnd(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns, err := s.CreateNamespace(ctx, newOwner(t, s), creator, directory.NamespaceInput{Name: "Pages Co"})
		if err != nil {
			t.Fatal(err)
		}
		reg, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}})
		if err != nil {
			t.Fatal(err)
		}
		for b := range 3 { // three batches: records of one batch share updated_at
			var in []directory.RecordInput
			for i := range 83 {
				state := directory.StateLive
				if (b+i)%4 == 0 {
					state = "draft"
				}
				in = append(in, directory.RecordInput{RecordName: fmt.Sprintf("n-%02d-%d", (i*37)%83, b), State: state, Details: map[string]any{}})
			}
			if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", creator, in); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3 * time.Millisecond)
		}
		for _, sortBy := range []string{"date", "name", "id", "status"} {
			// The owner's view, drafts included, and everyone else's (without them).
			for _, filter := range []store.ListOptions{{WithDrafts: true}, {State: "draft", WithDrafts: true}, {Name: "-1", WithDrafts: true}, {}, {Name: "-1"}} {
				o := filter
				o.Sort, o.Page, o.Size = sortBy, 1, 1000
				whole, total, err := s.ListRecords(ctx, reg.RegistryID, o)
				if err != nil || int64(len(whole)) != total || total == 0 {
					t.Fatalf("%s %+v: %d of %d, %v", sortBy, filter, len(whole), total, err)
				}
				for _, size := range []int{7, 20, 100} {
					for page := 1; (page-1)*size < int(total)+size; page++ {
						o.Page, o.Size = page, size
						recs, n, err := s.ListRecords(ctx, reg.RegistryID, o)
						if err != nil || n != total {
							t.Fatalf("%s page %d/%d: total %d, %v", sortBy, page, size, n, err)
						}
						from := min((page-1)*size, len(whole))
						want := whole[from:min(from+size, len(whole))]
						if len(recs) != len(want) {
							t.Fatalf("%s %+v page %d/%d: %d records, want %d", sortBy, filter, page, size, len(recs), len(want))
						}
						for i := range recs {
							if recs[i].RecordID != want[i].RecordID {
								t.Fatalf("%s %+v page %d/%d: record %d is %s, want %s", sortBy, filter, page, size, i, recs[i].RecordName, want[i].RecordName)
							}
						}
					}
				}
			}
		}
	})
}

// TestSearchCaseFolds: search compares Unicode case-folded text, the same on both dialects: a
// final sigma matches a capital one, ß matches SS (and the other way round), ſ matches s. Each
// value is searched through the full-text candidates (three characters or more) and, where it
// folds to fewer, through the scan.
func TestSearchCaseFolds(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns, err := s.CreateNamespace(ctx, newOwner(t, s), creator, directory.NamespaceInput{Name: "Fold Co"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom,
			Schema: map[string]any{"type": "object"}}); err != nil {
			t.Fatal(err)
		}
		recs := map[string]map[string]any{
			"sisyphus-upper": {"name": "ΣΊΣΥΦΟΣ", "tags": []any{"ΜΎΘΟΣ"}},
			"sisyphus-lower": {"name": "σίσυφος"},
			"strasse-sharp":  {"name": "Straße", "city": "Gießen"},
			"strasse-upper":  {"name": "STRASSE"},
			"ross":           {"name": "Ross"},
		}
		var in []directory.RecordInput
		for name, d := range recs {
			in = append(in, directory.RecordInput{RecordName: name, Details: d})
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", creator, in); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			fields []store.FieldFilter
			record string
			want   []string
		}{
			{[]store.FieldFilter{{Path: "name", Value: "σίσυφος"}}, "", []string{"sisyphus-lower", "sisyphus-upper"}},
			{[]store.FieldFilter{{Path: "name", Value: "ΣΊΣΥΦΟΣ"}}, "", []string{"sisyphus-lower", "sisyphus-upper"}},
			{[]store.FieldFilter{{Path: "name", Value: "ΊΣΥΦΟς"}}, "", []string{"sisyphus-lower", "sisyphus-upper"}},
			{[]store.FieldFilter{{Path: "tags", Value: "μύθος"}}, "", []string{"sisyphus-upper"}},
			{[]store.FieldFilter{{Path: "name", Value: "straße"}}, "", []string{"strasse-sharp", "strasse-upper"}},
			{[]store.FieldFilter{{Path: "name", Value: "STRASSE"}}, "", []string{"strasse-sharp", "strasse-upper"}},
			{[]store.FieldFilter{{Path: "name", Value: "ß"}}, "", []string{"ross", "strasse-sharp", "strasse-upper"}},
			{[]store.FieldFilter{{Path: "name", Value: "SS"}}, "", []string{"ross", "strasse-sharp", "strasse-upper"}},
			{[]store.FieldFilter{{Path: "name", Value: "roſs"}}, "", []string{"ross"}},
			{[]store.FieldFilter{{Path: "city", Value: "GIESSEN"}}, "", []string{"strasse-sharp"}},
			{[]store.FieldFilter{{Path: "name", Value: "ss"}, {Path: "city", Value: "ieß"}}, "", []string{"strasse-sharp"}},
			{[]store.FieldFilter{{Path: "NAME", Value: "Σ"}}, "", []string{"sisyphus-lower", "sisyphus-upper"}},
			{nil, "STRAſſE", []string{"strasse-sharp", "strasse-upper"}},
			{nil, "ſiſyphuſ", []string{"sisyphus-lower", "sisyphus-upper"}},
		} {
			res, err := s.Search(ctx, ns.NamespaceID, store.SearchOptions{Fields: tc.fields, RecordName: tc.record, Member: true, Page: 1, Size: 20})
			if err != nil {
				t.Fatalf("%+v %q: %v", tc.fields, tc.record, err)
			}
			var got []string
			for _, r := range res.Records {
				got = append(got, r.RecordName)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || res.Total != int64(len(tc.want)) {
				t.Errorf("%+v %q: found %v (total %d), want %v", tc.fields, tc.record, got, res.Total, tc.want)
			}
		}
	})
}
