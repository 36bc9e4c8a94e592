package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
)

// TestMigrationRefoldsSearchText: a database written by a release that lowercased its search
// text (schema 4) finds case-folded matches once migrated: the migration re-renders every
// record's search text (and, on SQLite, builds the full-text index from it).
func TestMigrationRefoldsSearchText(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, testdb.URL(t, d), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			fsys, err := s.migrationSources()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.migrateTo(ctx, fsys, 4); err != nil {
				t.Fatal(err)
			}
			if v, err := s.SchemaVersion(ctx); err != nil || v != 4 {
				t.Fatalf("schema %d, %v", v, err)
			}
			dropLogQueue := preWriteTables(t, s)
			u, err := s.EnsureUser(ctx, "old@example.com")
			if err != nil {
				t.Fatal(err)
			}
			ns, err := s.CreateNamespace(ctx, u, "did:web:old", directory.NamespaceInput{Name: "Old Co"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:old", directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom,
				Schema: map[string]any{"type": "object"}}); err != nil {
				t.Fatal(err)
			}
			details := map[string]map[string]any{
				"sharp":   {"street": "Hauptstraße 1"},
				"upper":   {"street": "HAUPTSTRASSE 2"},
				"sigma":   {"name": "ΣΊΣΥΦΟΣ"},
				"final":   {"name": "σίσυφος"},
				"unmoved": {"name": "Ada"},
			}
			var in []directory.RecordInput
			for name, d := range details {
				in = append(in, directory.RecordInput{RecordName: name, Details: d})
			}
			added, err := s.AddRecords(ctx, ns.NamespaceID, "r", "did:web:old", in)
			if err != nil {
				t.Fatal(err)
			}
			// The text as the earlier release wrote it.
			for _, a := range added {
				old := directory.SearchTextWith(details[a.RecordName], strings.ToLower)
				if err := s.db.Exec(`UPDATE records SET search_text = ? WHERE record_id = ?`, old, a.RecordID).Error; err != nil {
					t.Fatal(err)
				}
			}
			dropLogQueue()
			if applied, err := s.Migrate(ctx); err != nil || applied == 0 {
				t.Fatalf("migrate: %d applied, %v", applied, err)
			}
			find := func(path, value string) []string {
				t.Helper()
				res, err := s.Search(ctx, ns.NamespaceID, SearchOptions{Fields: []FieldFilter{{Path: path, Value: value}}, Member: true, Page: 1, Size: 20})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, r := range res.Records {
					got = append(got, r.RecordName)
				}
				slices.Sort(got)
				return got
			}
			for _, tc := range []struct {
				path, value string
				want        []string
			}{
				{"street", "hauptstrasse", []string{"sharp", "upper"}},
				{"street", "STRAßE", []string{"sharp", "upper"}},
				{"name", "σίσυφος", []string{"final", "sigma"}},
				{"name", "ΣΊΣΥΦΟΣ", []string{"final", "sigma"}},
				{"name", "ada", []string{"unmoved"}},
			} {
				if got := find(tc.path, tc.value); !slices.Equal(got, tc.want) {
					t.Errorf("%s ~ %q after migration: %v, want %v", tc.path, tc.value, got, tc.want)
				}
			}
			// Records written after the migration are found as they are written.
			if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", "did:web:old", []directory.RecordInput{{RecordName: "new", Details: map[string]any{"street": "Weißstraße"}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "unmoved", "", directory.RecordPatch{Details: map[string]any{"name": "GROSS"}}); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				path, value string
				want        []string
			}{
				{"street", "WEISSSTRASSE", []string{"new"}},
				{"name", "ada", nil},
				{"name", "groß", []string{"unmoved"}},
			} {
				if got := find(tc.path, tc.value); !slices.Equal(got, tc.want) {
					t.Errorf("%s ~ %q after writes: %v, want %v", tc.path, tc.value, got, tc.want)
				}
			}
		})
	}
}

// TestSQLiteFullTextIndexStaysInStep: the full-text index follows inserts, updates and a
// rolled-back batch, and survives VACUUM (it is keyed by the records' rowid): FTS5's own
// integrity check against the records passes and every record is found by its value.
func TestSQLiteFullTextIndexStaysInStep(t *testing.T) {
	ctx := context.Background()
	s := openForTest(t, testdb.SQLite)
	u, err := s.EnsureUser(ctx, "fts@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := s.CreateNamespace(ctx, u, "did:web:fts", directory.NamespaceInput{Name: "FTS Co"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:fts", directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom,
		Schema: map[string]any{"type": "object"}}); err != nil {
		t.Fatal(err)
	}
	code := map[string]string{}
	add := func(names ...string) error {
		var in []directory.RecordInput
		for _, n := range names {
			in = append(in, directory.RecordInput{RecordName: n, Details: map[string]any{"code": "K-" + n}})
		}
		_, err := s.AddRecords(ctx, ns.NamespaceID, "r", "did:web:fts", in)
		if err == nil {
			for _, n := range names {
				code[n] = "k-" + n
			}
		}
		return err
	}
	if err := add("alpha", "bravo", "charlie"); err != nil {
		t.Fatal(err)
	}
	if err := add("delta", "alpha"); err == nil { // rolled back: alpha exists
		t.Fatal("duplicate name accepted")
	}
	if err := add("echo", "foxtrot"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "bravo", "", directory.RecordPatch{Details: map[string]any{"code": "K-ZULU"}}); err != nil {
		t.Fatal(err)
	}
	code["bravo"] = "k-zulu"
	check := func(when string) {
		t.Helper()
		if err := s.db.Exec(`INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)`).Error; err != nil {
			t.Fatalf("%s: full-text index out of step: %v", when, err)
		}
		for name, c := range code {
			res, err := s.Search(ctx, ns.NamespaceID, SearchOptions{Fields: []FieldFilter{{Path: "code", Value: c}}, Member: true, Page: 1, Size: 20})
			if err != nil || len(res.Records) != 1 || res.Records[0].RecordName != name {
				t.Fatalf("%s: code %q finds %+v, %v; want %s", when, c, res.Records, err, name)
			}
		}
		res, err := s.Search(ctx, ns.NamespaceID, SearchOptions{Fields: []FieldFilter{{Path: "code", Value: "k-bravo"}}, Member: true, Page: 1, Size: 20})
		if err != nil || res.Total != 0 {
			t.Fatalf("%s: the old text of an updated record is still found: %d, %v", when, res.Total, err)
		}
	}
	check("after writes")
	if err := s.db.Exec(`VACUUM`).Error; err != nil {
		t.Fatal(err)
	}
	check("after VACUUM")
}
