package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/svc-directory/svc/internal/cache"
)

// Opening and closing the store: the one place that composes its parts (the dialect, the pool,
// the version sinks, the replicas, the statistics refresh).

// Options tune Open. The zero value is fine.
type Options struct {
	// MaxOpenConns bounds the Postgres pool (default 10: more backends than that only contend
	// for the cores of a small machine).
	MaxOpenConns int
	// Now replaces the clock (tests).
	Now func() time.Time
	// AuthCacheTTL is how long a successful authentication is remembered (0: not at all).
	AuthCacheTTL time.Duration
	// ReplicaURLs are Postgres streaming replicas of the primary, for the reads of requests
	// marked with ReplicaReads (replicas.go).
	ReplicaURLs []string
	// ReplicaMaxLag: a replica further behind the primary is skipped (default 2 s).
	ReplicaMaxLag time.Duration
	// ConsistencyWait is how long a read with a consistency token waits for a replica to
	// replay past it before the primary serves it (default 200 ms).
	ConsistencyWait time.Duration
	// ReplicaMetrics records the replicas' figures (nil: none).
	ReplicaMetrics *ReplicaMetrics
}

// Open connects to databaseURL: "sqlite://PATH" (PATH relative to the working directory, or
// absolute as sqlite:///abs/path; "sqlite://:memory:" is refused because each pooled connection
// would see its own database) or "postgres://..." / "postgresql://...". It does not migrate.
func Open(ctx context.Context, databaseURL string, log *slog.Logger, opts Options) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	gcfg := &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		PrepareStmt:            false,
		TranslateError:         false,
	}
	s := &Store{log: log, now: time.Now, logQueue: make(chan logWrite, 1024), closed: make(chan struct{})}
	// Every public version goes to the transparency log's queue and to the watchers'
	// outbox, in the transaction that writes it.
	s.sinks = []versionSink{queueForLog, queueForWatchers}
	s.recordsWritten = s.noteRecordWrites
	if opts.Now != nil {
		s.now = opts.Now
	}
	s.versions = cache.New[string, StoredVersion](cache.Options{MaxSize: 200_000, Now: s.now})
	if opts.AuthCacheTTL > 0 {
		s.auth = cache.New[[32]byte, User](cache.Options{MaxSize: 100_000, TTL: opts.AuthCacheTTL, Now: s.now})
		s.authTTL = opts.AuthCacheTTL
	}
	d, dialector, err := openDialect(databaseURL)
	if err != nil {
		return nil, err
	}
	s.d = d
	if d.oneWriter() {
		s.writers = make(chan struct{}, 1)
	}
	db, err := gorm.Open(dialector, gcfg)
	if err != nil {
		return nil, d.openError(err)
	}
	if err := errors.Join(s.watchWrites(db), markUnavailable(db)); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	d.configurePool(sqlDB, opts)
	s.db, s.sqlDB = db, sqlDB
	s.primary = *newReadTarget(s, "primary", db, sqlDB)
	if err := s.Ping(ctx); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	if len(opts.ReplicaURLs) > 0 {
		if s.replicas, err = openReplicas(s, opts); err != nil {
			_ = sqlDB.Close()
			return nil, err
		}
		go s.replicas.run(s.closed)
	}
	return s, nil
}

// Close stops the log writer and the statistics refresh, and releases the connections.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	s.stopStatistics()
	if stmt := s.latestStmt.Load(); stmt != nil {
		_ = stmt.Close()
	}
	if stmt := s.loggedStmt.Load(); stmt != nil {
		_ = stmt.Close()
	}
	if s.replicas != nil {
		s.replicas.close()
	}
	return s.sqlDB.Close()
}
