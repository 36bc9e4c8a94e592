package store

import (
	"context"
	"database/sql"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
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
	// forKeyShareOf takes the weakest row lock on the rows of the aliases (a comma-separated
	// list): it blocks only a FOR UPDATE, so that a write which changes who may write (a
	// transfer, a delegate removed, a key revoked) is ordered with every write it authorizes.
	forKeyShareOf(aliases string) string
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
	// textIndex is the kind of index that finds the records containing a word (search.go).
	textIndex() textIndex
	// groupsReads: concurrent hot reads (latest records, log entries) are read in groups, one
	// statement each (groupread.go), instead of one prepared statement per read.
	groupsReads() bool
	// keepsStatistics: the planner's statistics must be refreshed after large writes
	// (analyze.go); the database's plans do not depend on them otherwise.
	keepsStatistics() bool
	// notifies: the database sends notifications to the sessions that listen (LISTEN/NOTIFY),
	// which wake the workers of every instance (wake.go); else a commit wakes this process's.
	notifies() bool
	// syncCommitStatement makes the transaction's commit wait for the synchronous standbys,
	// whatever synchronous_commit the database has ("": no standbys).
	syncCommitStatement() string
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
	replaceStateChecks(ctx context.Context, tx *sql.Tx, checks []checkChange) error
}

// textIndex is a kind of index of the records' search text.
type textIndex int

const (
	textIndexFTS     textIndex = iota // SQLite's FTS5 over the search text
	textIndexTrigram                  // Postgres's pg_trgm over the search text
)

// checkChange replaces the CHECK constraint on a table's state column: from and to are the
// constraints' text.
type checkChange struct{ table, from, to string }

// skipLocked is Postgres's row-lock suffix that skips the rows other transactions hold.
const skipLocked = " FOR UPDATE SKIP LOCKED"

// skipLockedOf is forUpdateSkipLocked for a transaction handed down as a bare *gorm.DB ("" on
// SQLite, whose write transaction holds the database's lock).
func skipLockedOf(db *gorm.DB) string {
	if db.Dialector.Name() == DialectPostgres {
		return skipLocked
	}
	return ""
}
