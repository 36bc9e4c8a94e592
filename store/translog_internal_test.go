package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/translog/logstore"
)

// preWriteTables stands in for the tables that today's writes touch and a database migrated to
// an older schema lacks: the log queue (0007), the counters of the statistics (0011) and the
// version rows' log queue positions (0013). Writes
// then work there as they did in that release; drop removes the stand-ins before the database
// is upgraded.
func preWriteTables(t *testing.T, s *Store) (drop func()) {
	t.Helper()
	seq := "seq INTEGER PRIMARY KEY"
	if s.Dialect() == DialectPostgres {
		seq = "seq BIGSERIAL PRIMARY KEY"
	}
	var made []string
	for name, ddl := range map[string]string{
		"log_queue":    `CREATE TABLE log_queue (` + seq + `, version TEXT NOT NULL, leaf TEXT NOT NULL)`,
		"svc_counters": `CREATE TABLE svc_counters (name TEXT NOT NULL, shard INTEGER NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (name, shard))`,
		"watch_subscriptions": `CREATE TABLE watch_subscriptions (subscription_id TEXT PRIMARY KEY, watch_type TEXT NOT NULL,
			target_id TEXT NOT NULL, namespace_id TEXT NOT NULL)`,
	} {
		if tableExistsForTest(t, s, name) {
			continue
		}
		if err := s.db.Exec(ddl).Error; err != nil {
			t.Fatal(err)
		}
		made = append(made, name)
	}
	var columns [][2]string // table, column
	for _, c := range [][3]string{{"namespace_versions", "log_seq", "BIGINT"}, {"registry_versions", "log_seq", "BIGINT"},
		{"record_versions", "log_seq", "BIGINT"}, {"registries", "draft_count", "BIGINT NOT NULL DEFAULT 0"},
		{"namespaces", "state", "TEXT NOT NULL DEFAULT 'live'"}, {"namespace_versions", "state", "TEXT NOT NULL DEFAULT 'live'"},
		{"records", "deleted_reason", "TEXT NOT NULL DEFAULT ''"}, {"namespaces", "deleted_reason", "TEXT NOT NULL DEFAULT ''"},
		{"registries", "deleted_reason", "TEXT NOT NULL DEFAULT ''"}} {
		if s.db.Exec(`SELECT `+c[1]+` FROM `+c[0]+` LIMIT 0`).Error == nil {
			continue
		}
		if err := s.db.Exec(`ALTER TABLE ` + c[0] + ` ADD COLUMN ` + c[1] + ` ` + c[2]).Error; err != nil {
			t.Fatal(err)
		}
		columns = append(columns, [2]string{c[0], c[1]})
	}
	return func() {
		t.Helper()
		for _, name := range made {
			if err := s.db.Exec(`DROP TABLE ` + name).Error; err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range columns {
			if err := s.db.Exec(`ALTER TABLE ` + c[0] + ` DROP COLUMN ` + c[1]).Error; err != nil {
				t.Fatal(err)
			}
		}
	}
}

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
			drop := preWriteTables(t, s)
			u, err := s.EnsureUser(ctx, "old@example.com")
			if err != nil {
				t.Fatal(err)
			}
			ns, err := s.CreateNamespace(ctx, u, "did:web:old", directory.NamespaceInput{Name: "Old Co"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:old", directory.RegistryInput{RegistryName: "r", Tag: directory.TagCustom}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.AddRecords(ctx, ns.NamespaceID, "r", "did:web:old", []directory.RecordInput{
				{RecordName: "a", Details: map[string]any{"n": 1.0}},
				{RecordName: "draft", Details: map[string]any{"n": 2.0}, State: directory.StateDraft},
				{RecordName: "b", Details: map[string]any{"n": 3.0}},
			}); err != nil {
				t.Fatal(err)
			}
			desc := "second"
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "a", "", directory.RecordPatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: &desc}); err != nil {
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
			// directory.Record a's second version was "made" before everything, yet it follows its first
			// (it ties with it and comes before b, made a second later).
			if len(written) != 6 {
				t.Fatalf("%d versions written", len(written))
			}
			want := []logstore.Queued{written[0], written[1], written[2], written[4], written[3], written[5]}
			if !slices.EqualFunc(got, want, func(a, b logstore.Queued) bool { return a.Version == b.Version && string(a.Leaf) == string(b.Leaf) }) {
				t.Fatalf("backfilled queue:\n%s\nwant\n%s", leavesText(got), leavesText(want))
			}
			// New versions follow the backfill.
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "b", "", directory.RecordPatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			after, err := s.LogQueuedLeaves(ctx)
			if err != nil || len(after) != len(want)+1 {
				t.Fatalf("queue after a new version: %d, %v", len(after), err)
			}
			// Migration 17 left the draft out of the counts anyone sees, and counts it once
			// published.
			reg, err := s.GetRegistry(ctx, ns.NamespaceID, "r", directory.VersionSel{})
			st, serr := s.Stats(ctx)
			if err != nil || serr != nil || reg.RecordCount != 2 || st.Records != 2 {
				t.Fatalf("after migration: record_count %d, stats %+v (%v, %v); want the 2 records that are not drafts", reg.RecordCount, st, err, serr)
			}
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "r", "draft", "", directory.RecordPatch{Action: directory.ActionPublish}); err != nil {
				t.Fatal(err)
			}
			reg, err = s.GetRegistry(ctx, ns.NamespaceID, "r", directory.VersionSel{})
			st, serr = s.Stats(ctx)
			if err != nil || serr != nil || reg.RecordCount != 3 || st.Records != 3 {
				t.Fatalf("after publishing: record_count %d, stats %+v (%v, %v)", reg.RecordCount, st, err, serr)
			}
		})
	}
}

func leavesText(qs []logstore.Queued) string {
	var s string
	for _, q := range qs {
		s += string(q.Leaf) + "\n"
	}
	return s
}

// CompactLog gives back, on Postgres, the space of the queue rows that integrations removed:
// the store does not wait for autovacuum (which may be off) to reuse it. On SQLite it does
// nothing (deleted pages are reused).
func TestCompactLogReclaimsTheQueue(t *testing.T) {
	ctx := context.Background()
	s := openAtForTest(t, testdb.OwnPostgresDatabase(t)) // no other package's session holds rows back
	rows := make([]logQueueRow, 5000)
	for i := range rows {
		rows[i] = logQueueRow{Version: directory.NewVersion(), Leaf: `{"leaf":"x"}`}
	}
	if err := s.db.CreateInBatches(rows, 1000).Error; err != nil {
		t.Fatal(err)
	}
	for {
		n, err := s.IntegrateLog(ctx, 1000, func(*logstore.Batch) (logstore.Update, error) {
			return logstore.Update{Origin: "example.test/log", Checkpoint: "checkpoint"}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	size := func() int64 {
		var n int64
		if err := s.sqlDB.QueryRowContext(ctx, `SELECT pg_relation_size('log_queue')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := size()
	if before == 0 {
		t.Fatal("the queue's table is empty before compaction: the test shows nothing")
	}
	// VACUUM cannot remove rows that a transaction older than their deletion may still see:
	// compaction is tried again while one of this store's own may still be ending (the
	// integrator, too, compacts again and again).
	after := before
	for try := 0; try < 20 && after != 0; try++ {
		if try > 0 {
			time.Sleep(250 * time.Millisecond)
		}
		if err := s.CompactLog(ctx); err != nil {
			t.Fatal(err)
		}
		after = size()
	}
	if after != 0 {
		t.Fatalf("log_queue holds %d bytes after compaction (%d before), want 0", after, before)
	}
	if err := openForTest(t, DialectSQLite).CompactLog(ctx); err != nil {
		t.Fatalf("sqlite: %v", err)
	}
}
