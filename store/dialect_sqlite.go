package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/libtnb/sqlite"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// SQLite.

// sqliteDriverName is the database/sql driver the SQLite dialect uses.
const sqliteDriverName = "sqlite"

// sqliteMaxConns bounds the SQLite pool, and every one of its connections is kept open.
const sqliteMaxConns = 8

// sqliteMmapSize is how much of the SQLite file is read through a memory map (1 GiB; beyond
// it, reads go through read calls as before).
const sqliteMmapSize = 1 << 30

// sqliteDialect is the embedded database: one writer at a time (immediate transactions hold
// the database's write lock, so no row lock is needed), Go functions for the search, and the
// full-text index records_fts.
type sqliteDialect struct {
	path string // the database file
}

func openSQLite(databaseURL string) (dialect, gorm.Dialector, error) {
	path := strings.TrimPrefix(databaseURL, "sqlite://")
	if path == "" || strings.HasPrefix(path, ":memory:") {
		return nil, nil, fmt.Errorf("store: sqlite needs a file path, got %q", databaseURL)
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("store: sqlite directory: %w", err)
		}
	}
	if err := checkWritable(path); err != nil {
		return nil, nil, err
	}
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Reads go through a memory map of the file (shared by every connection, backed by the
	// operating system's page cache) instead of a read system call per page that misses
	// the connection's own small cache: a random lookup touches a few such pages.
	q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", sqliteMmapSize))
	q.Set("_txlock", "immediate")
	registerSQLiteFunctions()
	return sqliteDialect{path: path}, sqlite.Open("file:" + path + "?" + q.Encode()), nil
}

func (sqliteDialect) name() string { return DialectSQLite }

func (d sqliteDialect) openError(err error) error {
	return fmt.Errorf("store: open sqlite database file %s: %w", d.path, err)
}

// configurePool: one writer at a time is SQLite's rule; a small pool keeps readers concurrent
// under WAL while immediate transactions queue on busy_timeout. Every connection stays open
// once made: database/sql keeps only two idle by default, and under concurrent lookups the
// others were closed and opened again all the time (each opening runs the pragmas and reads
// the schema again, and loses its page cache and prepared statements).
func (sqliteDialect) configurePool(db *sql.DB, _ Options) {
	db.SetMaxOpenConns(sqliteMaxConns)
	db.SetMaxIdleConns(sqliteMaxConns)
}

// oneWriter: SQLite's busy handler polls with growing sleeps and is not fair. Under a steady
// stream of writes a transaction could wait out busy_timeout and fail while others kept
// taking the lock (the log's integrator did, beside a bulk writer).
func (sqliteDialect) oneWriter() bool { return true }

func (sqliteDialect) rebind(q string) string               { return q }
func (sqliteDialect) forUpdate() string                    { return "" }
func (sqliteDialect) forUpdateOf(string) string            { return "" }
func (sqliteDialect) forShare() string                     { return "" }
func (sqliteDialect) forKeyShareOf(string) string          { return "" }
func (sqliteDialect) forUpdateSkipLocked() string          { return "" }
func (sqliteDialect) lockRow(q *gorm.DB) *gorm.DB          { return q }
func (sqliteDialect) lockNamespace(*gorm.DB, string) error { return nil }

func (sqliteDialect) containsName(col, needle string) (string, any) {
	return "instr(lower(" + col + "), ?) > 0", directory.Fold(needle)
}

// containsText: svc_lower (Go's Unicode lowercasing) on both sides, as Postgres's ILIKE folds
// letters beyond ASCII too (SQLite's own lower and LIKE fold ASCII only).
func (sqliteDialect) containsText(col, needle string) (string, any) {
	return "svc_lower(" + col + ") LIKE ? ESCAPE '\\'", "%" + escapeLike(strings.ToLower(needle)) + "%"
}

func (sqliteDialect) textIndex() textIndex { return textIndexFTS }

// groupsReads: SQLite reads in process, where a prepared statement per read is cheaper than
// grouping.
func (sqliteDialect) groupsReads() bool { return false }

// keepsStatistics: SQLite's search plans do not depend on statistics (analyze.go).
func (sqliteDialect) keepsStatistics() bool { return false }

// notifies: SQLite has one process, whose commits wake its workers.
func (sqliteDialect) notifies() bool { return false }

func (sqliteDialect) syncCommitStatement() string { return "" }

func (sqliteDialect) analyzeStatement() string { return "ANALYZE" }

// compactLogStatement: SQLite puts the pages of deleted rows on its free list and reuses them.
func (sqliteDialect) compactLogStatement() string { return "" }

func (sqliteDialect) compactAfterRestartStatement() string { return "" }

func (sqliteDialect) goose() database.Dialect { return database.DialectSQLite3 }

func (d sqliteDialect) migrationLock() (goose.ProviderOption, error) {
	return goose.WithLocker(&sqliteFileLocker{path: d.path + ".migrate-lock"}), nil
}

// migrationTxLock: the immediate transaction already holds the write lock.
func (sqliteDialect) migrationTxLock(context.Context, *sql.Tx) error { return nil }

// replaceStateChecks: SQLite cannot alter a constraint, and rebuilding records would renumber
// the rows its full-text index points at. A CHECK that allows more values reads every stored
// row as valid still, so the constraint's text is replaced in the schema itself, the
// procedure SQLite documents for changing constraints (ALTER TABLE, "Making Other Kinds Of
// Table Schema Changes"): writable_schema, the new text, a new schema_version.
func (sqliteDialect) replaceStateChecks(ctx context.Context, tx *sql.Tx, checks []checkChange) error {
	var version int64
	if err := tx.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&version); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA writable_schema = ON`); err != nil {
		return err
	}
	for _, c := range checks {
		res, err := tx.ExecContext(ctx, `UPDATE sqlite_schema SET sql = replace(sql, ?, ?)
			WHERE type = 'table' AND name = ? AND instr(sql, ?) > 0`, c.from, c.to, c.table, c.from)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("the table %s has no constraint %s (%d, %v)", c.table, c.from, n, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA schema_version = %d`, version+1)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `PRAGMA writable_schema = OFF`)
	return err
}

func (sqliteDialect) tableExistsQuery() string {
	return `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
}

func (sqliteDialect) openReplica(string, Options) (*sql.DB, error) {
	return nil, errors.New("store: replicas need a Postgres primary")
}

func (sqliteDialect) consistencyToken(context.Context, *sql.DB) (ConsistencyToken, error) {
	return 0, nil
}

// checkWritable makes sure the SQLite database file at path can be opened for writing, and its
// directory written (SQLite puts its -wal and -shm files beside it), so that an unwritable path
// is reported as what it is: the driver itself only says "unable to open database file".
func checkWritable(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("store: cannot open database file %s: %w", path, pathCause(err))
	}
	_ = f.Close()
	probe, err := os.CreateTemp(filepath.Dir(path), ".svc-write-check-*")
	if err != nil {
		return fmt.Errorf("store: cannot write beside database file %s (SQLite keeps its -wal and -shm files there): %w", path, pathCause(err))
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	return nil
}

// pathCause drops the operation and path of an *os.PathError (the message names the path).
func pathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
