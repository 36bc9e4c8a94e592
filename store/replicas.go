package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Replica reads (Options.ReplicaURLs, Postgres only). The reads of a request the caller marks
// with ReplicaReads (the server marks its GET requests) may go to a streaming replica; every
// other read, every write and every read inside a write stay on the primary. The choice is
// made once per request, at its first read, and kept (readPin): one request sees one snapshot
// of one database.
//
// A replica serves a request when its last probe answered, it lags the primary by at most
// Options.ReplicaMaxLag, and, when the request carries a consistency token, it has replayed
// the primary's WAL past the token's position. A token no replica has reached yet is waited
// for up to Options.ConsistencyWait, then the primary serves (a fallback). A read that a
// replica fails under (its connection breaks, it shuts down, a recovery conflict cancels the
// query) runs again on the primary, and the replica is skipped until a probe finds it well.
//
// Probes run every replicaProbeEvery: the primary's WAL position is sampled, and each replica
// reports whether it is in recovery and how far it has replayed. A replica's lag is how long
// ago the primary was first seen past the replica's replay position (0 when the replica has
// replayed everything the primary had at the last sample), so an idle primary does not make
// its replicas look late.
//
// One pool per replica (database/sql over pgx, with a GORM handle on a pool that fails over
// to the primary), rather than GORM's dbresolver plugin: the choice depends on the request
// (its token), on the replica's measured lag and health, and must also cover the raw and pgx
// reads of the hot paths, which dbresolver does not see.

// replicaProbeEvery is how often the replicas are probed; a probe that takes longer than
// replicaProbeTimeout marks its replica down. A replica that stops answering is skipped
// within their sum at most, and at once by the first read that fails on it.
const (
	replicaProbeEvery   = 200 * time.Millisecond
	replicaProbeTimeout = 500 * time.Millisecond
	// tokenPollEvery is how often a read waiting for a consistency token asks the replicas
	// how far they have replayed.
	tokenPollEvery = 2 * time.Millisecond
)

// readTarget is one database reads can go to: the primary or a replica.
type readTarget struct {
	name  string // "primary", or the replica's host:port
	db    *gorm.DB
	sqlDB *sql.DB
	// closed is the store's: closing it stops the group readers.
	closed chan struct{}
	// groups holds the target's group reader of each groupKind (groupread.go), made on first
	// use: *groupKind[K, V] -> *groupReader[K, V].
	groups sync.Map

	// A replica's state, from its probes (zero for the primary).
	replica  bool
	up       atomic.Bool
	replayed atomic.Uint64 // the WAL position it had replayed at its last probe
	lagNS    atomic.Int64
	idle     int // its pool's idle connections, restored after a failure empties them
	// inFlight cancels the reads waiting on the replica when it is marked down, so that a
	// replica that stops answering (rather than refusing) holds no read past its probe's
	// timeout: they run again on the primary.
	inFlightMu sync.Mutex
	inFlight   map[*context.CancelFunc]struct{}
}

// guard registers a read on the replica until release; markDown cancels it. On the primary
// it does nothing.
func (t *readTarget) guard(ctx context.Context) (gctx context.Context, release func()) {
	if !t.replica {
		return ctx, func() {}
	}
	gctx, cancel := context.WithCancel(ctx)
	key := &cancel
	t.inFlightMu.Lock()
	t.inFlight[key] = struct{}{}
	t.inFlightMu.Unlock()
	return gctx, func() {
		t.inFlightMu.Lock()
		delete(t.inFlight, key)
		t.inFlightMu.Unlock()
	}
}

// cancelInFlight cancels every read waiting on the replica.
func (t *readTarget) cancelInFlight() {
	t.inFlightMu.Lock()
	defer t.inFlightMu.Unlock()
	for cancel := range t.inFlight {
		(*cancel)()
	}
	clear(t.inFlight)
}

func newReadTarget(s *Store, name string, db *gorm.DB, sqlDB *sql.DB) *readTarget {
	return &readTarget{name: name, db: db, sqlDB: sqlDB, closed: s.closed, inFlight: map[*context.CancelFunc]struct{}{}}
}

// usable: the replica answered its last probe and lags by at most maxLag.
func (t *readTarget) usable(maxLag time.Duration) bool {
	return t.up.Load() && time.Duration(t.lagNS.Load()) <= maxLag
}

// replicaSet is the store's replicas, their probes and the choice among them.
type replicaSet struct {
	s        *Store
	replicas []*readTarget
	maxLag   time.Duration
	wait     time.Duration
	metrics  *ReplicaMetrics
	log      *slog.Logger
	next     atomic.Uint32 // round robin
	// The primary at its last probe (primary.go): whether it answered, and the node it was on.
	primaryDown atomic.Bool
	primaryNode atomic.Value

	mu      sync.Mutex
	samples []lsnSample // the primary's WAL position over the last while, oldest first
}

type lsnSample struct {
	at  time.Time
	lsn uint64
}

// openReplicas opens one pool per replica URL and starts probing them. The pools connect
// lazily: a replica down at start is simply not used until a probe finds it.
func openReplicas(s *Store, opts Options) (*replicaSet, error) {
	rs := &replicaSet{s: s, maxLag: opts.ReplicaMaxLag, wait: opts.ConsistencyWait, metrics: opts.ReplicaMetrics, log: s.log}
	if rs.maxLag <= 0 {
		rs.maxLag = 2 * time.Second
	}
	if rs.wait <= 0 {
		rs.wait = 200 * time.Millisecond
	}
	for _, u := range opts.ReplicaURLs {
		sqlDB, err := s.d.openReplica(u, opts)
		if err != nil {
			rs.close()
			return nil, err
		}
		t := newReadTarget(s, replicaName(u), nil, sqlDB)
		t.replica, t.idle = true, max(opts.MaxOpenConns, 10)
		pool := &failoverPool{rs: rs, t: t}
		db, err := gorm.Open(postgres.New(postgres.Config{Conn: pool}), &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
		if err == nil {
			err = db.Callback().Query().After("gorm:query").Register("svc:retry_on_primary", pool.retryOnPrimary)
		}
		if err != nil {
			_ = sqlDB.Close()
			rs.close()
			return nil, fmt.Errorf("store: replica %s: %w", redact(u), err)
		}
		t.db = db
		rs.replicas = append(rs.replicas, t)
	}
	return rs, nil
}

// replicaName names a replica in metrics and logs by its host and port.
func replicaName(u string) string {
	if cfg, err := pgconn.ParseConfig(u); err == nil {
		return fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	}
	return redact(u)
}

func (rs *replicaSet) close() {
	for _, t := range rs.replicas {
		_ = t.sqlDB.Close()
	}
}

// run probes the replicas until the store closes.
func (rs *replicaSet) run(closed <-chan struct{}) {
	tick := time.NewTicker(replicaProbeEvery)
	defer tick.Stop()
	for {
		rs.probe()
		select {
		case <-closed:
			return
		case <-tick.C:
		}
	}
}

// probe samples the primary's WAL position, then asks every replica, in parallel, how far it
// has replayed.
func (rs *replicaSet) probe() {
	// The primary in its own time: without it, a multi-host URL tries every node in turn,
	// which must not eat the replicas' probes' time.
	pctx, pcancel := context.WithTimeout(context.Background(), replicaProbeTimeout)
	var lsn, node string
	err := rs.s.sqlDB.QueryRowContext(pctx, primaryProbeSQL).Scan(&lsn, &node)
	pcancel()
	if err == nil {
		rs.primaryAt(node)
		if tok, err := ParseConsistencyToken(lsn); err == nil {
			rs.sample(time.Now(), uint64(tok))
		}
	}
	rs.primaryAnswered(err == nil)
	ctx, cancel := context.WithTimeout(context.Background(), replicaProbeTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, t := range rs.replicas {
		wg.Go(func() { rs.probeReplica(ctx, t) })
	}
	wg.Wait()
	if err != nil {
		rs.withoutPrimary(time.Now())
	}
}

func (rs *replicaSet) sample(at time.Time, lsn uint64) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.samples = append(rs.samples, lsnSample{at, lsn})
	keep := 2*rs.maxLag + time.Second
	i := 0
	for i < len(rs.samples)-1 && at.Sub(rs.samples[i].at) > keep {
		i++
	}
	rs.samples = rs.samples[i:]
}

// lagOf is how long ago the primary was first sampled past replayed; 0 when the replica has
// replayed the last sample, and the whole window when no sample is as old as its position.
func (rs *replicaSet) lagOf(now time.Time, replayed uint64) time.Duration {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, sm := range rs.samples {
		if sm.lsn > replayed {
			return now.Sub(sm.at)
		}
	}
	return 0
}

func (rs *replicaSet) probeReplica(ctx context.Context, t *readTarget) {
	var inRecovery bool
	var replayed sql.NullString
	err := t.sqlDB.QueryRowContext(ctx, `SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text`).Scan(&inRecovery, &replayed)
	if err == nil && (!inRecovery || !replayed.Valid) {
		err = errors.New("not a streaming replica (not in recovery)")
	}
	var tok ConsistencyToken
	if err == nil {
		tok, err = ParseConsistencyToken(replayed.String)
	}
	if err != nil {
		rs.markDown(t, err)
		return
	}
	t.replayed.Store(uint64(tok))
	lag := rs.lagOf(time.Now(), uint64(tok))
	t.lagNS.Store(int64(lag))
	if !t.up.Swap(true) {
		rs.log.Info("replica is back", "replica", t.name, "lag", lag)
	}
	rs.metrics.probed(t.name, true, lag)
}

// markDown skips the replica until a probe finds it well, and drops its idle connections
// (after a restart they are all broken).
func (rs *replicaSet) markDown(t *readTarget, cause error) {
	if t.up.Swap(false) {
		rs.log.Warn("replica is skipped", "replica", t.name, "error", cause)
		t.sqlDB.SetMaxIdleConns(0)
		t.sqlDB.SetMaxIdleConns(t.idle)
	}
	t.cancelInFlight()
	rs.metrics.probed(t.name, false, 0)
}

// ReplicaState is what the store knows of one replica.
type ReplicaState struct {
	Name     string
	Up       bool          // its last probe answered
	Lag      time.Duration // at its last probe
	Replayed ConsistencyToken
	Usable   bool // up and within the lag bound: reads may go to it
}

// Replicas reports the replicas' states (none without Options.ReplicaURLs).
func (s *Store) Replicas() []ReplicaState {
	if s.replicas == nil {
		return nil
	}
	out := make([]ReplicaState, len(s.replicas.replicas))
	for i, t := range s.replicas.replicas {
		out[i] = ReplicaState{Name: t.name, Up: t.up.Load(), Lag: time.Duration(t.lagNS.Load()),
			Replayed: ConsistencyToken(t.replayed.Load()), Usable: t.usable(s.replicas.maxLag)}
	}
	return out
}
