// Package store keeps the directory's data: entries with their immutable versions, identities,
// verification logs and domain verification state. It speaks to SQLite (embedded, pure Go, the
// default) or Postgres through GORM; nothing outside this package imports gorm. Callers get plain
// Go values and the sentinel errors below.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/internal/cache"
)

// Store is the handle on the database. It is safe for concurrent use.
type Store struct {
	db    *gorm.DB
	sqlDB *sql.DB
	// d is the database's dialect (dialect.go): every difference between SQLite and Postgres.
	d   dialect
	log *slog.Logger
	now func() time.Time
	// versions remembers stored versions (immutable) for lookup verification.
	versions *cache.Cache[string, StoredVersion]
	// auth remembers successful authentications for Options.AuthCacheTTL, so that a burst of
	// requests with one key costs one query. A revoked key or a disabled user stops working
	// within that time; revocations and disables made through this store take effect at once.
	auth    *cache.Cache[[32]byte, User]
	authTTL time.Duration
	// The verification log writer (AddVerificationLog).
	logQueue  chan logWrite
	logOnce   sync.Once
	closed    chan struct{}
	closeOnce sync.Once
	// primary is the database every write and most reads go to; replicas (replicas.go) take
	// the reads of requests marked with ReplicaReads (nil: no replicas).
	primary  readTarget
	replicas *replicaSet
	// The prepared latest-record reads on SQLite (lookupbatch.go, lookuplogged.go), made on
	// first use under stmtMu.
	latestStmt, loggedStmt atomic.Pointer[sql.Stmt]
	stmtMu                 sync.Mutex
	// Planner statistics refreshed after large writes (analyze.go); recordsWritten is told of
	// the records each transaction wrote, once it committed.
	stats          statsKeeper
	recordsWritten func(n int)
	// onCommit are the observers of committed writes (OnCommit).
	onCommit atomic.Pointer[[]func()]
	// originsGen counts the committed changes of the set of origin-hosted namespaces made
	// through this store (OriginsGeneration).
	originsGen atomic.Uint64
	// sinks are told of every version a write appends, in its transaction (versions.go).
	sinks []versionSink
	// writers holds the one write transaction a oneWriter database allows (nil: no queue);
	// the transactions waiting for it are let in first come, first served.
	writers chan struct{}
}

// Dialect reports "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.d.name() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Pool is the connection pool, for its figures (collectors.NewDBStatsCollector); queries go
// through the store's methods.
func (s *Store) Pool() *sql.DB { return s.sqlDB }

// nowMS is the store's clock in Unix milliseconds, the unit of every time column.
func (s *Store) nowMS() int64 { return s.now().UTC().UnixMilli() }

// tx runs fn in one transaction: everything it writes lands, or nothing does. Once a
// transaction that changed rows commits, the OnCommit observers are called.
func (s *Store) tx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	release, err := s.writeTurn(ctx)
	if err != nil {
		return err
	}
	defer release()
	w := new(txWrites)
	if err := s.db.WithContext(context.WithValue(ctx, txWritesKey{}, w)).Transaction(fn); err != nil {
		return unavailable(err, "write")
	}
	if w.wrote.Load() {
		if w.origins.Load() {
			s.originsGen.Add(1) // first: a reader told of the commit reads the new set
		}
		s.committed(ctx)
	}
	return nil
}

// writeTurn waits for the store's turn to write on a oneWriter database, in arrival order
// (blocked channel sends are served first in, first out), and returns what ends the turn. The
// database's own lock still guards against other processes.
func (s *Store) writeTurn(ctx context.Context) (release func(), err error) {
	if s.writers == nil {
		return func() {}, nil
	}
	select {
	case s.writers <- struct{}{}:
		return func() { <-s.writers }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("store: waiting to write: %w", ctx.Err())
	}
}

// OnCommit registers fn to be called after every write of the store commits (a transaction
// or a single statement that changed rows), before the writing method returns; a write that
// fails or changes nothing does not call it. The server empties its lookup cache there. The
// verification log, which no cached answer shows, is written in the background and not
// reported. fn must be quick and must not call the store.
func (s *Store) OnCommit(fn func()) {
	for {
		old := s.onCommit.Load()
		var fns []func()
		if old != nil {
			fns = append(fns, *old...)
		}
		fns = append(fns, fn)
		if s.onCommit.CompareAndSwap(old, &fns) {
			return
		}
	}
}

// committed reports a write made with ctx that has committed: to ctx's TrackCommits mark, then
// to the OnCommit observers.
func (s *Store) committed(ctx context.Context) {
	if c, ok := ctx.Value(commitsKey{}).(*commits); ok {
		c.wrote.Store(true)
	}
	if fns := s.onCommit.Load(); fns != nil {
		for _, fn := range *fns {
			fn()
		}
	}
}

type commits struct{ wrote atomic.Bool }

type commitsKey struct{}

// TrackCommits marks ctx so that Committed tells whether a write made with it committed (the
// server answers a consistency token only then).
func TrackCommits(ctx context.Context) context.Context {
	return context.WithValue(ctx, commitsKey{}, new(commits))
}

// Committed reports whether a write made with ctx (marked by TrackCommits) has committed.
func Committed(ctx context.Context) bool {
	c, ok := ctx.Value(commitsKey{}).(*commits)
	return ok && c.wrote.Load()
}

// txWrites notes, in the context of a transaction begun by tx, that a statement changed rows.
type txWrites struct {
	wrote atomic.Bool
	// origins: the transaction changed the set of origin-hosted namespaces (originsChanged).
	origins atomic.Bool
}

// originsChanged notes, in the transaction db, that it changed the set of origin-hosted
// namespaces: once it commits, OriginsGeneration moves, before the OnCommit observers are told.
func originsChanged(db *gorm.DB) {
	if w, ok := db.Statement.Context.Value(txWritesKey{}).(*txWrites); ok {
		w.origins.Store(true)
	}
}

type txWritesKey struct{}

// watchWrites registers GORM callbacks after every writing statement (create, update, delete,
// Exec): inside a transaction begun by tx a write is noted and reported once the transaction
// commits; outside one the statement has committed on its own and is reported at once. Every
// write goes through GORM, so no write method has to remember to report.
// quietKey marks the writes that change nothing an answer is made of (the verification log, a
// key's last use, the database's maintenance): they are not committed writes to OnCommit's observers, so that
// they do not empty the lookup cache.
type quietKey struct{}

// quiet marks ctx's writes as quiet (quietKey).
func quiet(ctx context.Context) context.Context { return context.WithValue(ctx, quietKey{}, true) }

func (s *Store) watchWrites(db *gorm.DB) error {
	note := func(db *gorm.DB) {
		if db.Error != nil || db.RowsAffected <= 0 || db.Statement.Context.Value(quietKey{}) != nil {
			return
		}
		if w, ok := db.Statement.Context.Value(txWritesKey{}).(*txWrites); ok {
			w.wrote.Store(true)
			return
		}
		s.committed(db.Statement.Context)
	}
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("svc:note_write", note),
		cb.Update().After("gorm:update").Register("svc:note_write", note),
		cb.Delete().After("gorm:delete").Register("svc:note_write", note),
		cb.Raw().After("gorm:raw").Register("svc:note_write", note),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

func redact(u string) string {
	if p, err := url.Parse(u); err == nil && p.User != nil {
		p.User = url.User(p.User.Username())
		return p.String()
	}
	return u
}

// Analyze refreshes the planner's statistics and, on Postgres, the visibility map that
// index-only scans rely on (after a bulk load; autovacuum does the same in time).
func (s *Store) Analyze(ctx context.Context) error {
	return translate(s.db.WithContext(quiet(ctx)).Exec(s.d.analyzeStatement()).Error, "analyze")
}
