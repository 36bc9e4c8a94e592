package store

import (
	"context"
	"slices"
	"testing"

	"github.com/svc-directory/svc/store/internal/testdb"
)

// preLogQueue stands in for the log queue on a database migrated to a schema before the
// transparency log (which had none), so that writes work there as they did in that release;
// drop removes it again before the database is upgraded.
func preLogQueue(t *testing.T, s *Store) (drop func()) {
	t.Helper()
	seq := "seq INTEGER PRIMARY KEY"
	if s.Dialect() == DialectPostgres {
		seq = "seq BIGSERIAL PRIMARY KEY"
	}
	if err := s.db.Exec(`CREATE TABLE log_queue (` + seq + `, version TEXT NOT NULL, leaf TEXT NOT NULL)`).Error; err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := s.db.Exec(`DROP TABLE log_queue`).Error; err != nil {
			t.Fatal(err)
		}
	}
}

// An upgraded database queues its existing public versions, in creation order (the versions
// of one entry in version order even when the clock went back between them), with the same
// leaves the store queues for new versions, before any new one; drafts stay out.
func TestMigrationBackfillsTheLogQueue(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			clock := int64(1_700_000_000_000)
			s, err := Open(ctx, testdb.URL(t, d), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			fsys, err := s.migrationSources()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.migrateTo(ctx, fsys, 6); err != nil {
				t.Fatal(err)
			}
			drop := preLogQueue(t, s)
			u, err := s.EnsureUser(ctx, "old@example.com")
			if err != nil {
				t.Fatal(err)
			}
			ns, err := s.CreateNamespace(ctx, u, "did:web:old", NamespaceInput{Name: "Old Co"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:old", RegistryInput{RegistryName: "r", Tag: TagCustom}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", "did:web:old", []RecordInput{
				{RecordName: "a", Details: map[string]any{"n": 1.0}},
				{RecordName: "draft", Details: map[string]any{"n": 2.0}, State: StateDraft},
				{RecordName: "b", Details: map[string]any{"n": 3.0}},
			}); err != nil {
				t.Fatal(err)
			}
			desc := "second"
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "a", "", RecordPatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", NamespacePatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			// The leaves the store queued as it wrote, in order, are what the backfill must
			// reproduce; then the times are made distinct and shuffled, one of them going back.
			written, err := s.LogQueuedLeaves(ctx)
			if err != nil {
				t.Fatal(err)
			}
			drop()
			for i, q := range written {
				at := clock + int64(i)*1000
				if i == len(written)-2 { // record a's second version: its clock went back
					at = clock - 5000
				}
				for _, table := range []string{"namespace_versions", "registry_versions", "record_versions"} {
					if err := s.db.Exec(`UPDATE `+table+` SET created_at = ? WHERE version = ?`, at, q.Version).Error; err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			got, err := s.LogQueuedLeaves(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Record a's second version was "made" before everything, yet it follows its first
			// (it ties with it and comes before b, made a second later).
			if len(written) != 6 {
				t.Fatalf("%d versions written", len(written))
			}
			want := []LogQueued{written[0], written[1], written[2], written[4], written[3], written[5]}
			if !slices.EqualFunc(got, want, func(a, b LogQueued) bool { return a.Version == b.Version && string(a.Leaf) == string(b.Leaf) }) {
				t.Fatalf("backfilled queue:\n%s\nwant\n%s", leavesText(got), leavesText(want))
			}
			// New versions follow the backfill.
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "b", "", RecordPatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			after, err := s.LogQueuedLeaves(ctx)
			if err != nil || len(after) != len(want)+1 {
				t.Fatalf("queue after a new version: %d, %v", len(after), err)
			}
		})
	}
}

func leavesText(qs []LogQueued) string {
	var s string
	for _, q := range qs {
		s += string(q.Leaf) + "\n"
	}
	return s
}
