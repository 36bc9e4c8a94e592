package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
)

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

func (postgresDialect) forUpdate() string { return " FOR UPDATE" }
func (postgresDialect) forUpdateOf(alias string) string {
	return " FOR UPDATE OF " + alias
}
func (postgresDialect) forShare() string { return " FOR SHARE" }
func (postgresDialect) forKeyShareOf(aliases string) string {
	return " FOR KEY SHARE OF " + aliases
}
func (postgresDialect) forUpdateSkipLocked() string { return skipLocked }

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
	return "lower(" + col + ") LIKE ? ESCAPE '\\'", "%" + escapeLike(directory.Fold(needle)) + "%"
}

func (postgresDialect) containsText(col, needle string) (string, any) {
	return col + " ILIKE ? ESCAPE '\\'", "%" + escapeLike(needle) + "%"
}

func (postgresDialect) textIndex() textIndex  { return textIndexTrigram }
func (postgresDialect) groupsReads() bool     { return true }
func (postgresDialect) keepsStatistics() bool { return true }
func (postgresDialect) notifies() bool        { return true }

func (postgresDialect) syncCommitStatement() string { return `SET LOCAL synchronous_commit TO on` }

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
func (postgresDialect) replaceStateChecks(ctx context.Context, tx *sql.Tx, checks []checkChange) error {
	for _, c := range checks {
		var name string
		if err := tx.QueryRowContext(ctx, `SELECT conname FROM pg_constraint
			WHERE conrelid = $1::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%state%'`, c.table).Scan(&name); err != nil {
			return fmt.Errorf("the CHECK on %s.state: %w", c.table, err)
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+c.table+` DROP CONSTRAINT `+name+`, ADD CONSTRAINT `+name+` `+c.to); err != nil {
			return err
		}
	}
	return nil
}

func (postgresDialect) tableExistsQuery() string {
	return `SELECT COUNT(*) FROM pg_class WHERE oid = to_regclass($1)`
}
