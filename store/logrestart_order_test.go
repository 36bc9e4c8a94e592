package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

// migration0007Order is the statement by which migration 0007 queued the versions of a
// database made before the log, and by which RestartLog queued them until the restart wrote
// the leaves in Go: here without its INSERT, as the reference the restart must agree with (the
// released migrations keep it as it was).
const migration0007Order = `
	SELECT version, leaf FROM (
	    SELECT version, MAX(created_at) OVER (PARTITION BY namespace_id ORDER BY version_count) AS t,
	           1 AS rank, version_count,
	           '{"digest":"' || digest || '","kind":"namespace","namespace_id":"' || namespace_id ||
	           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}' AS leaf
	      FROM namespace_versions
	    UNION ALL
	    SELECT version, MAX(created_at) OVER (PARTITION BY registry_id ORDER BY version_count),
	           2, version_count,
	           '{"digest":"' || digest || '","kind":"registry","namespace_id":"' || namespace_id ||
	           '","registry_id":"' || registry_id ||
	           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}'
	      FROM registry_versions
	    UNION ALL
	    SELECT version, MAX(created_at) OVER (PARTITION BY record_id ORDER BY version_count),
	           3, version_count,
	           '{"digest":"' || digest || '","kind":"record","namespace_id":"' || namespace_id ||
	           '","record_id":"' || record_id || '","registry_id":"' || registry_id ||
	           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}'
	      FROM record_versions WHERE state <> 'draft'
	) AS v
	ORDER BY t, rank, version_count, version`

// RestartLog queues the versions in the order, and with the leaves, of migration 0007's
// statement, on a history that makes the order differ from the order of the writes: a clock
// that goes back (an entry's later version keeps its place after the earlier one; another
// entry written at an earlier time goes first), versions written at the same moment (kind, then
// version_count, then version decide), and draft versions (not logged, and not counted for
// their record's time). The leaves are also the ones the writes queued, byte for byte, and
// more than one page of them is queued.
func TestRestartLogOrderIsMigration0007s(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			at := t0
			s, err := Open(ctx, testdb.URL(t, d), nil, Options{Now: func() time.Time { return at }})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			write := func(when time.Duration, f func()) { at = t0.Add(when); f() }
			desc := func(s string) *string { return &s }
			var a directory.Namespace
			write(0, func() { a = newPeople(t, s, "Acme") })
			write(0, func() { addNamed(t, s, ctx, a.NamespaceID, "same-time", 4, "") })
			write(10*time.Second, func() { updateRecord(t, s, a, "same-time-0", directory.RecordPatch{Description: desc("later")}) })
			write(-5*time.Second, func() {
				updateRecord(t, s, a, "same-time-0", directory.RecordPatch{Description: desc("clock went back")})
			})
			write(-5*time.Second, func() { newPeople(t, s, "Earlier") })
			write(30*time.Second, func() { addNamed(t, s, ctx, a.NamespaceID, "draft", 2, directory.StateDraft) })
			write(31*time.Second, func() { updateRecord(t, s, a, "draft-0", directory.RecordPatch{Description: desc("still a draft")}) })
			write(2*time.Second, func() { updateRecord(t, s, a, "draft-0", directory.RecordPatch{Action: directory.ActionPublish}) })
			// At one moment, new records and then a namespace's second version: the namespace
			// goes first (the kind decides before version_count).
			write(40*time.Second, func() { addNamed(t, s, ctx, a.NamespaceID, "with-namespace", 2, "") })
			write(40*time.Second, func() {
				if _, err := s.UpdateNamespace(ctx, a.NamespaceID, "", directory.NamespacePatch{Description: desc("second")}); err != nil {
					t.Fatal(err)
				}
			})
			for k := 0; k*directory.MaxBatch <= logRestartPage; k++ { // more than a page of the restart's
				write(3*time.Second, func() { addNamed(t, s, ctx, a.NamespaceID, fmt.Sprint("bulk", k), directory.MaxBatch, "") })
			}
			written, err := s.LogQueuedLeaves(ctx)
			if err != nil {
				t.Fatal(err)
			}

			var want []logQueueRead
			if err := s.db.Raw(migration0007Order).Scan(&want).Error; err != nil {
				t.Fatal(err)
			}
			if _, err := s.RestartLog(ctx, "new.example/log"); err != nil {
				t.Fatal(err)
			}
			got, err := s.LogQueuedLeaves(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(got) != len(written) {
				t.Fatalf("%d queued by the restart, %d by migration 0007's order, %d by the writes", len(got), len(want), len(written))
			}
			for i := range want {
				if got[i].Version != want[i].Version || string(got[i].Leaf) != want[i].Leaf {
					t.Fatalf("position %d: the restart queued %s %s, migration 0007's order %s %s", i, got[i].Version, got[i].Leaf, want[i].Version, want[i].Leaf)
				}
			}
			// The history's order is not the writes' (else this test would show nothing).
			if slices.EqualFunc(got, written, func(a, b logstore.Queued) bool { return a.Version == b.Version }) {
				t.Fatal("the restart's order is the order of the writes: the history does not test the creation order")
			}
			byVersion := map[string]string{}
			for _, q := range written {
				byVersion[q.Version] = string(q.Leaf)
			}
			for _, q := range got {
				if byVersion[q.Version] != string(q.Leaf) {
					t.Fatalf("version %s: the restart queued %s, its write %s", q.Version, q.Leaf, byVersion[q.Version])
				}
				if _, err := leaf.Parse(q.Leaf); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func updateRecord(t *testing.T, s *Store, ns directory.Namespace, name string, p directory.RecordPatch) {
	t.Helper()
	if _, err := s.UpdateRecord(context.Background(), ns.NamespaceID, "people", name, "", p); err != nil {
		t.Fatal(fmt.Errorf("update %s: %w", name, err))
	}
}
