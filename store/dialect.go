package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/libtnb/sqlite"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Every difference between the two databases the store speaks to lives in this file: one
// dialect is chosen at Open (openDialect) and kept in Store.d, and the rest of the package calls
// it instead of asking which database it talks to.

// Dialect names.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// dialect is what differs between SQLite and Postgres.
type dialect interface {
	// name is DialectSQLite or DialectPostgres (Store.Dialect, logs, the migrations' folder).
	name() string
	// openError describes a failure of gorm.Open.
	openError(err error) error
	// configurePool sizes the connection pool.
	configurePool(db *sql.DB, opts Options)
	// oneWriter: the database lets one write transaction run at a time, so the store queues
	// its own transactions in order (Store.writers) instead of letting them poll for the lock.
	oneWriter() bool

	// rebind turns ? placeholders into the database's own, for queries sent through
	// database/sql directly (GORM does this itself). The queries it is used on have no ? inside
	// literals.
	rebind(q string) string
	// openReplica opens the pool of a read replica (replicas.go); only Postgres has them.
	openReplica(replicaURL string, opts Options) (*sql.DB, error)
	// consistencyToken is the primary's write position now (replicas.go); 0 where there are
	// no replicas.
	consistencyToken(ctx context.Context, db *sql.DB) (ConsistencyToken, error)
	// forUpdate, forShare and forUpdateSkipLocked are the row-lock suffixes of a SELECT ("" where
	// the transaction already holds the database's write lock).
	forUpdate() string
	// forUpdateOf locks only the rows of the query's table alias (a join reads the others).
	forUpdateOf(alias string) string
	forShare() string
	forUpdateSkipLocked() string
	// lockNamespace locks the namespace row until the transaction ends (Tx.LockNamespace).
	lockNamespace(db *gorm.DB, namespaceID string) error
	// lockRow makes a GORM query lock the rows it reads until the transaction ends.
	lockRow(q *gorm.DB) *gorm.DB
	// containsName is the condition "col contains needle, case-insensitively" for names.
	containsName(col, needle string) (string, any)
	// fieldMatch adds the conditions of one details condition (path, needle: folded) of a
	// search; walked: the conditions test the rows of a walk, where no index is at stake.
	fieldMatch(w *where, path, needle string, walked bool)

	// search runs a search with the dialect's strategy (search.go).
	search(ctx context.Context, s *Store, q *searchQuery) (SearchResult, error)
	// readLatest reads the latest version of a record by namespace id, the hottest read
	// (lookupbatch.go).
	readLatest(ctx context.Context, s *Store, namespaceID, registry, record string) (recRead, error)
	// readLogEntry reads a public version's log entry (logentry.go), the read inclusion
	// proofs start with; ErrNotFound when there is no such version.
	readLogEntry(ctx context.Context, s *Store, version string) (logEntryRead, error)
	// noteRecordWrites counts n records written (committed) for the planner statistics.
	noteRecordWrites(s *Store, n int)
	// analyzeStatement refreshes the planner's statistics (Store.Analyze).
	analyzeStatement() string
	// compactLogStatement reclaims the space of the log's removed queue rows and replaced
	// partial tiles ("": the database reuses it by itself).
	compactLogStatement() string
	// compactAfterRestartStatement reclaims what a log restart left behind: the old log's rows
	// and the version rows it gave new queue positions ("": nothing to do).
	compactAfterRestartStatement() string

	// goose is goose's name of the dialect.
	goose() database.Dialect
	// migrationLock is the goose option that serializes migrators across processes.
	migrationLock() (goose.ProviderOption, error)
	// migrationTxLock takes, in tx, the lock every migrator takes (adoptLegacyVersions).
	migrationTxLock(ctx context.Context, tx *sql.Tx) error
	// tableExistsQuery counts the tables named by its one parameter.
	tableExistsQuery() string
	// replaceStateChecks gives the tables' state columns their new CHECK constraints, in the
	// migration's transaction (lifecycle.go).
	replaceStateChecks(ctx context.Context, tx *sql.Tx, checks []stateCheck) error
}

// openDialect picks the dialect of databaseURL and the GORM dialector that opens it.
func openDialect(databaseURL string) (dialect, gorm.Dialector, error) {
	switch {
	case strings.HasPrefix(databaseURL, "sqlite://"):
		return openSQLite(databaseURL)
	case strings.HasPrefix(databaseURL, "postgres://"), strings.HasPrefix(databaseURL, "postgresql://"):
		dsn, err := postgresDSN(databaseURL)
		if err != nil {
			return nil, nil, err
		}
		return postgresDialect{}, postgres.New(postgres.Config{DSN: dsn}), nil
	default:
		return nil, nil, fmt.Errorf("store: unsupported database URL %q (want sqlite://PATH or postgres://...)", redact(databaseURL))
	}
}

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
func (sqliteDialect) forUpdateSkipLocked() string          { return "" }
func (sqliteDialect) lockRow(q *gorm.DB) *gorm.DB          { return q }
func (sqliteDialect) lockNamespace(*gorm.DB, string) error { return nil }

func (sqliteDialect) containsName(col, needle string) (string, any) {
	return "instr(lower(" + col + "), ?) > 0", fold(needle)
}

// fieldMatch: instr (C) discards most rows before the exact check (a Go function) runs.
func (sqliteDialect) fieldMatch(w *where, path, needle string, _ bool) {
	w.add("instr(r.search_text, ?) > 0", needle)
	w.add("svc_field_match(r.search_text, ?, ?) = 1", path, needle)
}

func (sqliteDialect) search(ctx context.Context, s *Store, q *searchQuery) (SearchResult, error) {
	return s.searchSQLite(ctx, q)
}

func (sqliteDialect) readLatest(ctx context.Context, s *Store, namespaceID, registry, record string) (recRead, error) {
	return s.latestRecordSQLite(ctx, namespaceID, registry, record)
}

func (sqliteDialect) readLogEntry(ctx context.Context, s *Store, version string) (logEntryRead, error) {
	return s.readLogEntrySQLite(ctx, version)
}

// noteRecordWrites: SQLite's search plans do not depend on statistics (analyze.go).
func (sqliteDialect) noteRecordWrites(*Store, int) {}

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
func (sqliteDialect) replaceStateChecks(ctx context.Context, tx *sql.Tx, checks []stateCheck) error {
	var version int64
	if err := tx.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&version); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA writable_schema = ON`); err != nil {
		return err
	}
	for _, c := range checks {
		res, err := tx.ExecContext(ctx, `UPDATE sqlite_schema SET sql = replace(sql, ?, ?)
			WHERE type = 'table' AND name = ? AND instr(sql, ?) > 0`, checkSQL(c.from), checkSQL(c.to), c.table, checkSQL(c.from))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("the table %s has no constraint %s (%d, %v)", c.table, checkSQL(c.from), n, err)
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

// Postgres.

// postgresDialect is a Postgres server: row locks, $n placeholders, trigram indexes and
// regular expressions for the search, grouped lookups, and planner statistics the store
// refreshes itself.
type postgresDialect struct{}

// postgresDSN adds the session settings the store's queries are tuned for, unless the URL sets
// them itself: jit=off, because JIT compilation costs tens of milliseconds (per parallel worker)
// on the short, selective queries this service runs, and never pays back within one of them
// (a broad search went from 260 ms to 55 ms without it).
func postgresDSN(databaseURL string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", fmt.Errorf("store: database URL: %w", err)
	}
	q := u.Query()
	if !q.Has("jit") {
		q.Set("jit", "off")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func (postgresDialect) name() string { return DialectPostgres }

// oneWriter: Postgres runs write transactions side by side and locks rows.
func (postgresDialect) oneWriter() bool { return false }

func (postgresDialect) openError(err error) error {
	return fmt.Errorf("store: open %s: %w", DialectPostgres, err)
}

// configurePool: Options.MaxOpenConns (default 10), all kept idle for up to five minutes.
func (postgresDialect) configurePool(db *sql.DB, opts Options) {
	n := opts.MaxOpenConns
	if n <= 0 {
		n = 10
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
}

func (postgresDialect) rebind(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

func (sqliteDialect) openReplica(string, Options) (*sql.DB, error) {
	return nil, errors.New("store: replicas need a Postgres primary")
}

func (sqliteDialect) consistencyToken(context.Context, *sql.DB) (ConsistencyToken, error) {
	return 0, nil
}

func (d postgresDialect) openReplica(replicaURL string, opts Options) (*sql.DB, error) {
	if !strings.HasPrefix(replicaURL, "postgres://") && !strings.HasPrefix(replicaURL, "postgresql://") {
		return nil, fmt.Errorf("store: replica URL %q: replicas are Postgres streaming replicas (postgres://...)", redact(replicaURL))
	}
	dsn, err := postgresDSN(replicaURL)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: replica %s: %w", redact(replicaURL), err)
	}
	d.configurePool(db, opts)
	return db, nil
}

func (postgresDialect) consistencyToken(ctx context.Context, db *sql.DB) (ConsistencyToken, error) {
	var lsn string
	if err := db.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn()::text`).Scan(&lsn); err != nil {
		return 0, fmt.Errorf("store: consistency token: %w", err)
	}
	return ParseConsistencyToken(lsn)
}

// skipLockedOf is forUpdateSkipLocked for a transaction handed down as a bare *gorm.DB.
func skipLockedOf(db *gorm.DB) string {
	if db.Dialector.Name() == "postgres" {
		return postgresDialect{}.forUpdateSkipLocked()
	}
	return sqliteDialect{}.forUpdateSkipLocked()
}

func (postgresDialect) forUpdate() string { return " FOR UPDATE" }
func (postgresDialect) forUpdateOf(alias string) string {
	return " FOR UPDATE OF " + alias
}
func (postgresDialect) forShare() string            { return " FOR SHARE" }
func (postgresDialect) forUpdateSkipLocked() string { return " FOR UPDATE SKIP LOCKED" }

func (postgresDialect) lockRow(q *gorm.DB) *gorm.DB {
	return q.Clauses(clause.Locking{Strength: "UPDATE"})
}

// lockNamespace takes NO KEY UPDATE: it waits for (and holds off) the UPDATE that takes the
// namespace's domain, but not the key-share locks of rows that merely reference the namespace.
func (postgresDialect) lockNamespace(db *gorm.DB, namespaceID string) error {
	var ids []string
	err := db.Raw(`SELECT namespace_id FROM namespaces WHERE namespace_id = ? FOR NO KEY UPDATE`, namespaceID).Scan(&ids).Error
	return translate(err, "namespace")
}

// containsName: names are ASCII by their pattern, so lower(col) is their case-folded form;
// the trigram index on lower(col) serves the LIKE.
func (postgresDialect) containsName(col, needle string) (string, any) {
	return "lower(" + col + ") LIKE ? ESCAPE '\\'", "%" + escapeLike(fold(needle)) + "%"
}

// fieldMatch: the trigram index finds the rows that contain the value's index word, a regular
// expression checks path and value in one entry. The exact check never uses the trigram index:
// written on an expression that is not the indexed one, it would only repeat the LIKE's work.
func (postgresDialect) fieldMatch(w *where, path, needle string, walked bool) {
	exactCol := "(r.search_text || '')"
	switch word := indexWord(needle); {
	case walked:
		exactCol = "r.search_text"
		if word != "" {
			w.add("strpos(r.search_text, ?) > 0", word) // cheaper per row than LIKE
		}
	case word != "":
		w.add("r.search_text LIKE ? ESCAPE '\\'", "%"+escapeLike(word)+"%")
	}
	re := entrySep + pgRegexQuote.ReplaceAllString(path, `\$0`) + valueSep + "[^" + entrySep + "]*" +
		pgRegexQuote.ReplaceAllString(needle, `\$0`)
	w.add(exactCol+" ~ ?", re)
}

func (postgresDialect) search(ctx context.Context, s *Store, q *searchQuery) (SearchResult, error) {
	return s.searchPostgres(ctx, q)
}

func (postgresDialect) readLatest(ctx context.Context, s *Store, namespaceID, registry, record string) (recRead, error) {
	return groupGet(s, ctx, func(t *readTarget) *groupReader[lookupKey, recRead] { return t.lookups }, lookupKey{namespaceID, registry, record})
}

func (postgresDialect) readLogEntry(ctx context.Context, s *Store, version string) (logEntryRead, error) {
	return groupGet(s, ctx, func(t *readTarget) *groupReader[string, logEntryRead] { return t.logEntries }, version)
}

func (postgresDialect) noteRecordWrites(s *Store, n int) { s.countRecordWrites(n) }

// analyzeStatement also refreshes the visibility map that index-only scans rely on.
func (postgresDialect) analyzeStatement() string { return "VACUUM ANALYZE" }

// compactLogStatement: every integration deletes the queue rows it took and replaces the partial
// tiles it extended; the dead rows (and their TOASTed tile data) are reused only after a
// VACUUM, which the store runs itself rather than rely on autovacuum.
func (postgresDialect) compactLogStatement() string { return "VACUUM log_queue, log_tiles, log_runs" }

// compactAfterRestartStatement: a restart updates every public version row (its log_seq), which
// leaves as many dead rows; the store does not wait for autovacuum (which may be off).
func (postgresDialect) compactAfterRestartStatement() string {
	return "VACUUM (ANALYZE) namespace_versions, registry_versions, record_versions, log_tiles, log_entries, log_runs"
}

func (postgresDialect) goose() database.Dialect { return database.DialectPostgres }

// migrationLock polls every second for up to ten minutes (the default polls every five seconds).
func (postgresDialect) migrationLock() (goose.ProviderOption, error) {
	l, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLockID), lock.WithLockTimeout(1, 600))
	if err != nil {
		return nil, fmt.Errorf("store: migration lock: %w", err)
	}
	return goose.WithSessionLocker(l), nil
}

// migrationTxLock takes the advisory lock of goose's session locker and of the earlier runner.
func (postgresDialect) migrationTxLock(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockID); err != nil {
		return fmt.Errorf("store: migration lock: %w", err)
	}
	return nil
}

// tableExistsQuery resolves the name through the search path, as the unqualified names of the
// queries do.
// replaceStateChecks replaces each table's CHECK on state (found by its definition; Postgres
// names it TABLE_state_check) and checks every row against the new one.
func (postgresDialect) replaceStateChecks(ctx context.Context, tx *sql.Tx, checks []stateCheck) error {
	for _, c := range checks {
		var name string
		if err := tx.QueryRowContext(ctx, `SELECT conname FROM pg_constraint
			WHERE conrelid = $1::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%state%'`, c.table).Scan(&name); err != nil {
			return fmt.Errorf("the CHECK on %s.state: %w", c.table, err)
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+c.table+` DROP CONSTRAINT `+name+`, ADD CONSTRAINT `+name+` `+checkSQL(c.to)); err != nil {
			return err
		}
	}
	return nil
}

func (postgresDialect) tableExistsQuery() string {
	return `SELECT COUNT(*) FROM pg_class WHERE oid = to_regclass($1)`
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
