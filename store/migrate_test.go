package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
)

// legacyBookkeeping is the table the hand-written runner of the previous release kept, as it
// created it, and its rows (version, name without the number, applied_at in Unix ms).
const legacyBookkeeping = `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    BIGINT PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at BIGINT NOT NULL)`

var legacyNames = map[int64]string{1: "init", 2: "log_request_text", 3: "query_search", 4: "list_keys"}

// buildLegacyDatabase makes the database the previous release left behind after applying
// migrations 1..upTo: the same schema (the migration files kept their SQL), its bookkeeping
// table with those versions, no goose table, and the network genesis.
func buildLegacyDatabase(t *testing.T, s *Store, upTo int64) {
	t.Helper()
	ctx := context.Background()
	fsys, err := s.migrationSources()
	if err != nil {
		t.Fatal(err)
	}
	var later []int64
	for v := upTo + 1; v <= 100; v++ {
		later = append(later, v)
	}
	// Versioning disabled: goose runs the files and keeps no bookkeeping of its own.
	p, err := goose.NewProvider(s.d.goose(), s.sqlDB, fsys, goose.WithDisableGlobalRegistry(true),
		goose.WithDisableVersioning(true), goose.WithExcludeVersions(later))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := p.Up(ctx); err != nil || int64(len(res)) != upTo {
		t.Fatalf("legacy schema: applied %d, %v; want %d", len(res), err, upTo)
	}
	if _, err := s.sqlDB.ExecContext(ctx, legacyBookkeeping); err != nil {
		t.Fatal(err)
	}
	for v := int64(1); v <= upTo; v++ {
		if _, err := s.sqlDB.ExecContext(ctx, s.d.rebind(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
			v, legacyNames[v], time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).UnixMilli()+v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.ensureNetworkGenesis(ctx); err != nil {
		t.Fatal(err)
	}
	if has := tableExistsForTest(t, s, versionTable); has {
		t.Fatalf("the legacy database already has %s", versionTable)
	}
}

func tableExistsForTest(t *testing.T, s *Store, name string) bool {
	t.Helper()
	ctx := context.Background()
	tx, err := s.sqlDB.BeginTx(ctx, &sql.TxOptions{ReadOnly: s.Dialect() == DialectPostgres})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	has, err := s.tableExists(ctx, tx, name)
	if err != nil {
		t.Fatal(err)
	}
	return has
}

// snapshot is everything the upgrade must leave as it was.
type snapshot struct {
	Genesis    string
	Namespace  directory.Namespace
	NSFirst    directory.Namespace
	Registry   directory.Registry
	Records    []directory.Record
	RecFirst   directory.Record
	RecVersion []string
}

func takeSnapshot(t *testing.T, s *Store, nsID, firstNSVersion, firstRecVersion string) snapshot {
	t.Helper()
	ctx := context.Background()
	var sn snapshot
	var err error
	if sn.Genesis, err = s.NetworkGenesis(ctx); err != nil {
		t.Fatal(err)
	}
	if sn.Namespace, err = s.GetNamespace(ctx, nsID, directory.VersionSel{}); err != nil {
		t.Fatal(err)
	}
	if sn.NSFirst, err = s.GetNamespace(ctx, nsID, directory.VersionSel{VersionID: firstNSVersion}); err != nil {
		t.Fatal(err)
	}
	if sn.Registry, err = s.GetRegistry(ctx, nsID, "people", directory.VersionSel{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "bob", "carol"} {
		r, err := s.GetRecord(ctx, nsID, "people", name, directory.VersionSel{})
		if err != nil {
			t.Fatalf("lookup %s: %v", name, err)
		}
		sn.Records = append(sn.Records, r)
	}
	if sn.RecFirst, err = s.GetRecord(ctx, nsID, "people", "alice", directory.VersionSel{VersionID: firstRecVersion}); err != nil {
		t.Fatal(err)
	}
	if sn.RecVersion, err = s.RecordVersions(ctx, sn.Records[0].RecordID, true); err != nil {
		t.Fatal(err)
	}
	return sn
}

// checkDigests recomputes every digest of the snapshot from its fields.
func checkDigests(t *testing.T, sn snapshot) {
	t.Helper()
	check := func(what, stored string, compute func() (string, error)) {
		got, err := compute()
		if err != nil || got != stored {
			t.Errorf("%s: stored digest %s, recomputed %s (%v)", what, stored, got, err)
		}
	}
	check("namespace", sn.Namespace.Digest, sn.Namespace.Fields().Digest)
	check("first namespace version", sn.NSFirst.Digest, sn.NSFirst.Fields().Digest)
	check("registry", sn.Registry.Digest, sn.Registry.Fields().Digest)
	check("first record version", sn.RecFirst.Digest, sn.RecFirst.Fields().Digest)
	for _, r := range sn.Records {
		check("record "+r.RecordName, r.Digest, r.Fields().Digest)
	}
}

// TestMigrateUpgradesPreviousReleaseInPlace: a database made by the previous release (the
// hand-written runner's schema_migrations, no goose table) is adopted, brought to the latest
// version, and answers every lookup exactly as before, digests included.
func TestMigrateUpgradesPreviousReleaseInPlace(t *testing.T) {
	for _, d := range []dialect{sqliteDialect{}, postgresDialect{}} {
		dialect := d.name()
		st := &Store{d: d}
		fsys, err := st.migrationSources()
		if err != nil {
			t.Fatal(err)
		}
		files, err := fs.Glob(fsys, "*.sql")
		if err != nil {
			t.Fatal(err)
		}
		// The highest migration number (numbers may have gaps: one taken by neither dialect's
		// files is a number given to work that landed later).
		latest, applied := 0, len(files)+len(st.goMigrations())
		for _, f := range files {
			if n, err := strconv.Atoi(strings.SplitN(f, "_", 2)[0]); err == nil && n > latest {
				latest = n
			}
		}
		for _, m := range st.goMigrations() {
			latest = max(latest, int(m.Version))
		}
		// 4: the previous release's full schema; 3: an older one, one migration behind.
		for _, upTo := range []int64{4, 3} {
			t.Run(fmt.Sprintf("%s/from_%d", dialect, upTo), func(t *testing.T) {
				ctx := context.Background()
				url := testdb.URL(t, dialect)
				old, err := Open(ctx, url, nil, Options{})
				if err != nil {
					t.Fatal(err)
				}
				buildLegacyDatabase(t, old, upTo)
				dropStandIns := preWriteTables(t, old)

				u, err := old.EnsureUser(ctx, "owner@example.com")
				if err != nil {
					t.Fatal(err)
				}
				ns, err := old.CreateNamespace(ctx, u, "did:web:example.com", directory.NamespaceInput{Name: "Acme", Description: "first"})
				if err != nil {
					t.Fatal(err)
				}
				desc := "second -- with a dash; and $$"
				if _, err := old.UpdateNamespace(ctx, ns.NamespaceID, ns.Version, directory.NamespacePatch{Description: &desc}); err != nil {
					t.Fatal(err)
				}
				if _, err := old.CreateRegistry(ctx, ns.NamespaceID, "did:web:example.com", directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom}); err != nil {
					t.Fatal(err)
				}
				added, err := old.AddRecords(ctx, ns.NamespaceID, "people", "did:web:example.com", []directory.RecordInput{
					{RecordName: "alice", Details: map[string]any{"name": "Alice", "n": 1.5, "tags": []any{"a", "b"}}},
					{RecordName: "bob", Details: map[string]any{"name": "Bob -- the builder"}, Meta: map[string]any{"k": "v"}},
					{RecordName: "carol", Details: map[string]any{"nested": map[string]any{"x": true}}},
				})
				if err != nil {
					t.Fatal(err)
				}
				alice, err := old.GetRecord(ctx, ns.NamespaceID, "people", "alice", directory.VersionSel{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := old.UpdateRecord(ctx, ns.NamespaceID, "people", "alice", alice.Version,
					directory.RecordPatch{Details: map[string]any{"name": "Alice B.", "n": 2}}); err != nil {
					t.Fatal(err)
				}
				before := takeSnapshot(t, old, ns.NamespaceID, ns.Version, added[0].Version)
				checkDigests(t, before)
				dropStandIns()
				if err := old.Close(); err != nil {
					t.Fatal(err)
				}

				// The new release starts on that database.
				s, err := Open(ctx, url, nil, Options{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				// Reading the version first neither fails nor disturbs the upgrade.
				if v, err := s.SchemaVersion(ctx); err != nil || v != int(upTo) {
					t.Fatalf("schema version before upgrade = %d, %v; want %d", v, err, upTo)
				}
				n, err := s.Migrate(ctx)
				if err != nil {
					t.Fatalf("upgrade: %v", err)
				}
				if want := applied - int(upTo); n != want { // 1..upTo have no gaps
					t.Fatalf("upgrade applied %d migrations, want %d", n, want)
				}
				if v, err := s.SchemaVersion(ctx); err != nil || v != latest {
					t.Fatalf("schema version after upgrade = %d, %v; want %d", v, err, latest)
				}
				// The statistics start from the rows the old release wrote.
				if st, err := s.Stats(ctx); err != nil || st != (Stats{Users: 1, Namespaces: 1, Registries: 1, Records: 3}) {
					t.Fatalf("stats after upgrade = %+v, %v; want 1 user, 1 namespace, 1 registry, 3 records", st, err)
				}
				after := takeSnapshot(t, s, ns.NamespaceID, ns.Version, added[0].Version)
				if !reflect.DeepEqual(before, after) {
					t.Fatalf("lookups changed across the upgrade:\nbefore %+v\nafter  %+v", before, after)
				}
				checkDigests(t, after)
				if n, err := s.Migrate(ctx); err != nil || n != 0 {
					t.Fatalf("second migrate applied %d, %v; want 0, nil", n, err)
				}
				// The upgraded database still takes writes.
				if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", "did:web:example.com",
					[]directory.RecordInput{{RecordName: "dave", Details: map[string]any{"name": "Dave"}}}); err != nil {
					t.Fatalf("write after upgrade: %v", err)
				}
				// The lifecycle states fit the widened CHECKs (migration 14), which still refuse
				// any other state.
				if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "bob", "", directory.RecordPatch{Action: directory.ActionSuspend}); err != nil {
					t.Fatalf("suspend after upgrade: %v", err)
				}
				if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "carol", "", directory.RecordPatch{Action: directory.ActionRevoke}); err != nil {
					t.Fatalf("revoke after upgrade: %v", err)
				}
				if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Action: directory.ActionArchive}); err != nil {
					t.Fatalf("archive after upgrade: %v", err)
				}
				for _, table := range []string{"records", "record_versions", "registries", "registry_versions"} {
					if _, err := s.sqlDB.ExecContext(ctx, s.d.rebind(`UPDATE `+table+` SET state = ?`), "bogus"); err == nil {
						t.Fatalf("%s took the state bogus after the upgrade", table)
					}
				}
			})
		}
	}
}

// Migrations whose statements hold "--" inside literals and ";" inside bodies, written as goose
// asks (a statement with a ";" that ends a line inside it between StatementBegin/End). The
// previous runner cut every line at "--" and split at every line-final ";".
var splitterMigration = map[string]string{
	DialectPostgres: `-- +goose Up
CREATE TABLE splitter_check (id INTEGER PRIMARY KEY, v TEXT NOT NULL);
INSERT INTO splitter_check (id, v) VALUES (1, '--'), (2, 'a--b'); -- a trailing comment
-- +goose StatementBegin
INSERT INTO splitter_check (id, v) VALUES (3, 'a -- b;
-- not a comment;
c');
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION splitter_fn(x TEXT) RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
    r TEXT; -- a comment inside the body
BEGIN
    r := x || ' -- kept;';
    RETURN r;
END;
$$;
-- +goose StatementEnd
-- +goose StatementBegin
DO $body$
BEGIN
    INSERT INTO splitter_check (id, v) VALUES (4, splitter_fn('do'));
END;
$body$;
-- +goose StatementEnd
`,
	DialectSQLite: `-- +goose Up
CREATE TABLE splitter_check (id INTEGER PRIMARY KEY, v TEXT NOT NULL);
-- +goose StatementBegin
CREATE TRIGGER splitter_trigger AFTER INSERT ON splitter_check WHEN NEW.id = 3
BEGIN
    INSERT INTO splitter_check (id, v) VALUES (4, 'do -- kept;'); -- a comment inside the body
END;
-- +goose StatementEnd
INSERT INTO splitter_check (id, v) VALUES (1, '--'), (2, 'a--b'); -- a trailing comment
-- +goose StatementBegin
INSERT INTO splitter_check (id, v) VALUES (3, 'a -- b;
-- not a comment;
c');
-- +goose StatementEnd
`,
}

// TestMigrationsKeepLiteralsAndBodies: a migration after the product's own, with "--" in
// literals, a ";" inside a literal and a function body (Postgres $$, SQLite trigger), applies
// and leaves exactly the values it wrote.
func TestMigrationsKeepLiteralsAndBodies(t *testing.T) {
	for _, dialect := range []string{DialectSQLite, DialectPostgres} {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, testdb.URL(t, dialect), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			own, err := s.migrationSources()
			if err != nil {
				t.Fatal(err)
			}
			fsys := fstest.MapFS{}
			files, _ := fs.Glob(own, "*.sql")
			for _, f := range files {
				b, err := fs.ReadFile(own, f)
				if err != nil {
					t.Fatal(err)
				}
				fsys[f] = &fstest.MapFile{Data: b}
			}
			fsys["9001_splitter_check.sql"] = &fstest.MapFile{Data: []byte(splitterMigration[dialect])}
			n, err := s.migrate(ctx, fsys)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(files) + len(s.goMigrations()) + 1; n != want {
				t.Fatalf("applied %d migrations, want %d", n, want)
			}
			rows, err := s.sqlDB.QueryContext(ctx, `SELECT id, v FROM splitter_check ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			got := map[int]string{}
			for rows.Next() {
				var id int
				var v string
				if err := rows.Scan(&id, &v); err != nil {
					t.Fatal(err)
				}
				got[id] = v
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			want := map[int]string{1: "--", 2: "a--b", 3: "a -- b;\n-- not a comment;\nc", 4: "do -- kept;"}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("rows = %#v, want %#v", got, want)
			}
			if v, err := s.SchemaVersion(ctx); err != nil || v != 9001 {
				t.Fatalf("schema version = %d, %v; want 9001", v, err)
			}
		})
	}
}
