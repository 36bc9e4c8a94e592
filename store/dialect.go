package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

// Every difference between the two databases the store speaks to lives in the dialect files
// (this one, dialect_sqlite.go and dialect_postgres.go): one dialect is chosen at Open
// (openDialect) and kept in Store.d, and the rest of the package calls it instead of asking
// which database it talks to.

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

	// rebind turns ? placeholders into the database's own, for the Go migrations, which goose
	// runs on a *sql.Tx (every other query goes through GORM, which binds them itself). The
	// queries it is used on have no ? inside literals.
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
	// containsText is "col contains needle" for any text (%, _ and \ as themselves),
	// case-insensitively (lowercased: Unicode letters too).
	containsText(col, needle string) (string, any)
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
