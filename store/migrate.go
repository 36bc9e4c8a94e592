package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
)

// Migrations are goose SQL files embedded per dialect: migrations/<dialect>/NNNN_name.sql, each
// starting with "-- +goose Up". goose splits a file into statements at a ";" that ends a line;
// a statement that holds such a ";" inside it (a $$ function body, say) goes between
// "-- +goose StatementBegin" and "-- +goose StatementEnd" and is sent as it is.
//
//go:embed migrations/postgres/*.sql migrations/sqlite/*.sql
var migrationFS embed.FS

const (
	// versionTable is goose's bookkeeping table.
	versionTable = "goose_db_version"
	// legacyVersionTable is the bookkeeping of the hand-written runner of earlier releases
	// (version BIGINT PRIMARY KEY, name TEXT, applied_at BIGINT); a database that has it and no
	// versionTable is adopted: its applied versions are recorded in versionTable.
	legacyVersionTable = "schema_migrations"
	// migrationLockID is the Postgres advisory lock key every migrator takes, the earlier
	// runner included (it took the same key per transaction), so mixed releases serialize too.
	migrationLockID = 7347001
)

// migrationSources returns the embedded migrations of the store's dialect.
func (s *Store) migrationSources() (fs.FS, error) {
	sub, err := fs.Sub(migrationFS, "migrations/"+s.d.name())
	if err != nil {
		return nil, fmt.Errorf("store: migrations for %s: %w", s.d.name(), err)
	}
	return sub, nil
}

// Migrate applies the pending migrations of the store's dialect, each in its own transaction,
// and then makes sure the deployment's network genesis exists. It reports how many migrations
// it applied. It is safe to run from several processes at once: on Postgres a session advisory
// lock serializes them; on SQLite an exclusive transaction on a lock file beside the database
// does. A database made by an earlier release (the hand-written runner's schema_migrations) is
// adopted first, in place.
func (s *Store) Migrate(ctx context.Context) (applied int, err error) {
	fsys, err := s.migrationSources()
	if err != nil {
		return 0, err
	}
	return s.migrate(ctx, fsys)
}

// migrate runs the migrations of fsys (tests pass their own).
func (s *Store) migrate(ctx context.Context, fsys fs.FS) (int, error) {
	return s.migrateTo(ctx, fsys, 0)
}

// migrateTo runs the migrations of fsys up to version upTo (0: all of them); the migration
// tests stop early to build a database as an earlier release left it.
func (s *Store) migrateTo(ctx context.Context, fsys fs.FS, upTo int64) (int, error) {
	if err := s.adoptLegacyVersions(ctx); err != nil {
		return 0, err
	}
	p, err := s.migrationProvider(fsys, true)
	if err != nil {
		return 0, err
	}
	var results []*goose.MigrationResult
	if upTo > 0 {
		results, err = p.UpTo(ctx, upTo)
	} else {
		results, err = p.Up(ctx)
	}
	if err != nil {
		return 0, fmt.Errorf("store: migrate %s: %w", s.d.name(), err)
	}
	for _, r := range results {
		s.log.InfoContext(ctx, "migration applied", "version", r.Source.Version, "file", r.Source.Path,
			"dialect", s.d.name(), "duration", r.Duration)
	}
	if _, err := s.ensureNetworkGenesis(ctx); err != nil {
		return len(results), err
	}
	return len(results), nil
}

// goMigrations are the migrations SQL cannot express, numbered among the SQL files of both
// dialects (a number is either a Go migration or a SQL file of that dialect, never both).
// Each runs in its own transaction.
func (s *Store) goMigrations() []*goose.Migration {
	return []*goose.Migration{
		// 5: search compares Unicode case-folded text (ß and SS both fold to ss; Σ, σ and ς to
		// σ) where earlier releases lowercased; folding is done in Go, the same on both
		// dialects, so the stored search text of every record is rendered again.
		goose.NewGoMigration(5, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
			return refoldSearchText(ctx, s, tx)
		}}, nil),
		// 14: the lifecycle states (lifecycle.go): records may be suspended or revoked,
		// registries archived or revoked. The CHECK constraints on state allow them.
		goose.NewGoMigration(14, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
			return widenStateChecks(ctx, s, tx)
		}}, nil),
		// 22: delete and restore (directory/deleted.go): the state deleted, a namespace's state,
		// the reason a delete gave, and which registries a namespace's delete deleted.
		goose.NewGoMigration(22, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
			return addDeletedState(ctx, s, tx)
		}}, nil),
	}
}

// migrationProvider builds the goose provider of the store's dialect, with the cross-process
// lock when locked is set.
func (s *Store) migrationProvider(fsys fs.FS, locked bool) (*goose.Provider, error) {
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true), goose.WithTableName(versionTable),
		goose.WithGoMigrations(s.goMigrations()...)}
	if locked {
		l, err := s.d.migrationLock()
		if err != nil {
			return nil, err
		}
		opts = append(opts, l)
	}
	p, err := goose.NewProvider(s.d.goose(), s.sqlDB, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("store: migrations for %s: %w", s.d.name(), err)
	}
	return p, nil
}

// adoptLegacyVersions records in goose's table the migrations that the earlier runner applied,
// when the database has the earlier runner's table and not yet goose's. The migration files
// kept their numbers, so goose then goes on from the first version the earlier release lacked.
// It runs in one transaction under the migration lock (Postgres: the advisory lock, also taken
// by goose's session locker and by the earlier runner; SQLite: the immediate transaction).
func (s *Store) adoptLegacyVersions(ctx context.Context) error {
	gooseTable, err := database.NewStore(s.d.goose(), versionTable)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	tx, err := s.sqlDB.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: adopt %s: %w", legacyVersionTable, err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.d.migrationTxLock(ctx, tx); err != nil {
		return err
	}
	hasLegacy, err := s.tableExists(ctx, tx, legacyVersionTable)
	if err != nil {
		return fmt.Errorf("store: adopt %s: %w", legacyVersionTable, err)
	}
	if !hasLegacy {
		return nil
	}
	hasGoose, err := s.tableExists(ctx, tx, versionTable)
	if err != nil {
		return fmt.Errorf("store: adopt %s: %w", legacyVersionTable, err)
	}
	if hasGoose {
		return nil
	}
	versions, err := legacyVersions(ctx, tx)
	if err != nil {
		return fmt.Errorf("store: adopt %s: %w", legacyVersionTable, err)
	}
	if err := gooseTable.CreateVersionTable(ctx, tx); err != nil {
		return fmt.Errorf("store: adopt %s: %w", legacyVersionTable, err)
	}
	// Version 0 is goose's marker of a created table; then the applied versions in order.
	for _, v := range append([]int64{0}, versions...) {
		if err := gooseTable.Insert(ctx, tx, database.InsertRequest{Version: v}); err != nil {
			return fmt.Errorf("store: adopt %s: version %d: %w", legacyVersionTable, v, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: adopt %s: %w", legacyVersionTable, err)
	}
	s.log.InfoContext(ctx, "migration bookkeeping adopted", "from", legacyVersionTable, "to", versionTable,
		"versions", versions, "dialect", s.d.name())
	return nil
}

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// tableExists reports whether name resolves to a table (on Postgres: through the search path,
// as the unqualified names of the queries do).
func (s *Store) tableExists(ctx context.Context, q querier, name string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, s.d.tableExistsQuery(), name).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

func legacyVersions(ctx context.Context, tx *sql.Tx) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT version FROM `+legacyVersionTable+` ORDER BY version`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// SchemaVersion reports the highest applied migration (0 when none). It only reads: on a
// database of an earlier release not yet migrated it reports that release's version.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	hasGoose, err := s.tableExists(ctx, s.sqlDB, versionTable)
	if err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	if hasGoose {
		fsys, err := s.migrationSources()
		if err != nil {
			return 0, err
		}
		p, err := s.migrationProvider(fsys, false)
		if err != nil {
			return 0, err
		}
		v, err := p.GetDBVersion(ctx)
		if err != nil {
			return 0, fmt.Errorf("store: schema version: %w", err)
		}
		return int(v), nil
	}
	hasLegacy, err := s.tableExists(ctx, s.sqlDB, legacyVersionTable)
	if err != nil || !hasLegacy {
		return 0, err
	}
	var v sql.NullInt64
	if err := s.sqlDB.QueryRowContext(ctx, `SELECT MAX(version) FROM `+legacyVersionTable).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	return int(v.Int64), nil
}

// sqliteFileLocker serializes SQLite migrators across processes with an exclusive transaction
// on a small lock database beside the store's file: SQLite's own file locks, released by the
// operating system if the holder dies. (The store's database cannot hold the lock itself: goose
// writes to it while the lock is held.)
type sqliteFileLocker struct {
	path string
	db   *sql.DB
	tx   *sql.Tx
}

// sqliteLockWait bounds how long a migrator waits for another one.
const sqliteLockWait = 10 * time.Minute

func (l *sqliteFileLocker) Lock(ctx context.Context, _ *sql.DB) error {
	db, err := sql.Open(sqliteDriverName, "file:"+l.path+"?_pragma=busy_timeout("+fmt.Sprint(sqliteLockWait.Milliseconds())+")&_txlock=exclusive")
	if err != nil {
		return fmt.Errorf("store: migration lock %s: %w", l.path, err)
	}
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		_ = db.Close()
		return fmt.Errorf("store: migration lock %s: %w", l.path, err)
	}
	l.db, l.tx = db, tx
	return nil
}

func (l *sqliteFileLocker) Unlock(context.Context, *sql.DB) error {
	if l.tx == nil {
		return nil
	}
	err := l.tx.Rollback()
	if cerr := l.db.Close(); err == nil {
		err = cerr
	}
	l.db, l.tx = nil, nil
	return err
}

// widenStateChecks lets the state columns of records and registries hold the lifecycle
// states (migration 14): records draft, live, suspended, revoked; registries live, inactive,
// archived, revoked. The lists are written out: a migration does not follow later edits.
func widenStateChecks(ctx context.Context, s *Store, tx *sql.Tx) error {
	checks := []stateCheck{
		{"records", []string{"draft", "live"}, []string{"draft", "live", "suspended", "revoked"}},
		{"record_versions", []string{"draft", "live"}, []string{"draft", "live", "suspended", "revoked"}},
		{"registries", []string{"live", "inactive"}, []string{"live", "inactive", "archived", "revoked"}},
		{"registry_versions", []string{"live", "inactive"}, []string{"live", "inactive", "archived", "revoked"}},
	}
	return replaceStateChecks(ctx, s, tx, checks)
}

// replaceStateChecks gives the tables' state columns their new CHECK constraints, through the
// dialect, in the migration's transaction.
func replaceStateChecks(ctx context.Context, s *Store, tx *sql.Tx, checks []stateCheck) error {
	changes := make([]checkChange, len(checks))
	for i, c := range checks {
		changes[i] = checkChange{table: c.table, from: checkSQL(c.from), to: checkSQL(c.to)}
	}
	return s.d.replaceStateChecks(ctx, tx, changes)
}

// addDeletedState is migration 22: records and registries may be deleted (their CHECKs widened
// as migration 14's), namespaces get a state (live or deleted) in their heads and versions, and
// the heads keep the reason of their latest delete.
func addDeletedState(ctx context.Context, s *Store, tx *sql.Tx) error {
	if err := replaceStateChecks(ctx, s, tx, []stateCheck{
		{"records", []string{"draft", "live", "suspended", "revoked"}, []string{"draft", "live", "suspended", "revoked", "deleted"}},
		{"record_versions", []string{"draft", "live", "suspended", "revoked"}, []string{"draft", "live", "suspended", "revoked", "deleted"}},
		{"registries", []string{"live", "inactive", "archived", "revoked"}, []string{"live", "inactive", "archived", "revoked", "deleted"}},
		{"registry_versions", []string{"live", "inactive", "archived", "revoked"}, []string{"live", "inactive", "archived", "revoked", "deleted"}},
	}); err != nil {
		return err
	}
	for _, q := range []string{
		`ALTER TABLE namespaces ADD COLUMN state TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'deleted'))`,
		`ALTER TABLE namespace_versions ADD COLUMN state TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'deleted'))`,
		`ALTER TABLE namespaces ADD COLUMN deleted_reason TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE registries ADD COLUMN deleted_reason TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE records ADD COLUMN deleted_reason TEXT NOT NULL DEFAULT ''`,
		`CREATE INDEX records_deleted ON records (registry_id, record_name) WHERE state = 'deleted'`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// stateCheck is the CHECK constraint of a table's state column, from the values it allowed
// to the values it allows.
type stateCheck struct {
	table    string
	from, to []string
}

// checkSQL is the constraint's text as the migrations write it: CHECK (state IN ('a', 'b')).
func checkSQL(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + v + "'"
	}
	return "CHECK (state IN (" + strings.Join(q, ", ") + "))"
}
