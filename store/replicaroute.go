package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// Routing a request's reads: the choice of database (primary or a replica) made at its first
// read and kept, and the read helpers every read of the store goes through.

// choose picks the database a request's reads go to: a usable replica that has replayed past
// tok (round robin among them), else, for a token, the first usable replica to get there
// within the wait, else the primary.
func (rs *replicaSet) choose(ctx context.Context, tok ConsistencyToken) *readTarget {
	n := len(rs.replicas)
	start := int(rs.next.Add(1))
	var usable []*readTarget
	for i := range n {
		t := rs.replicas[(start+i)%n]
		if !t.usable(rs.maxLag) {
			continue
		}
		if t.replayed.Load() >= uint64(tok) {
			rs.metrics.tokenWaited(tok, 0)
			return t
		}
		usable = append(usable, t)
	}
	if len(usable) == 0 {
		rs.metrics.fellBack("no_replica")
		return &rs.s.primary
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, rs.wait)
	defer cancel()
	for {
		for _, t := range usable {
			var replayed string
			if err := t.sqlDB.QueryRowContext(ctx, `SELECT pg_last_wal_replay_lsn()::text`).Scan(&replayed); err != nil {
				continue
			}
			if got, err := ParseConsistencyToken(replayed); err == nil && got >= tok {
				rs.metrics.tokenWaited(tok, time.Since(began))
				return t
			}
		}
		select {
		case <-ctx.Done():
			rs.metrics.fellBack("timeout")
			return &rs.s.primary
		case <-time.After(tokenPollEvery):
		}
	}
}

// failed reports whether err, from a read on t, is the replica's failure rather than the
// read's (a broken or refused connection, a server shutting down or out of resources, a query
// cancelled by a recovery conflict, or cancelled because the replica stopped answering its
// probes): the read then runs again on the primary, and a replica that is gone is marked down.
// A caller that has gone away is not a replica's failure.
func (rs *replicaSet) failed(ctx context.Context, t *readTarget, err error) bool {
	// A cancelled read whose caller is still there was cancelled by markDown.
	if err == nil || !t.replica || ctx.Err() != nil || errors.Is(err, directory.ErrNotFound) || errors.Is(err, sql.ErrNoRows) ||
		errors.Is(err, gorm.ErrRecordNotFound) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "40001": // canceling statement due to conflict with recovery
			rs.metrics.failedOver(t.name)
			return true
		case strings.HasPrefix(pgErr.Code, "08"), strings.HasPrefix(pgErr.Code, "57"), strings.HasPrefix(pgErr.Code, "53"), strings.HasPrefix(pgErr.Code, "58"):
		default:
			return false // the query's own error: the primary would refuse it too
		}
	}
	rs.markDown(t, err)
	rs.metrics.failedOver(t.name)
	if pin, ok := ctx.Value(readPinKey{}).(*readPin); ok {
		pin.t.Store(&rs.s.primary)
	}
	return true
}

// readPin is a request's choice of database, made at its first read.
type readPin struct {
	tok  ConsistencyToken
	once sync.Once
	t    atomic.Pointer[readTarget]
}

type readPinKey struct{}

// ReplicaReads marks ctx: the reads made with it may go to a replica (if the store has any)
// that has replayed past tok (0: any replica within the lag bound). Only reads that may be
// slightly stale should carry it; a write made with it still goes to the primary.
func ReplicaReads(ctx context.Context, tok ConsistencyToken) context.Context {
	return context.WithValue(ctx, readPinKey{}, &readPin{tok: tok})
}

// HasReplicas reports whether the store reads from replicas (Options.ReplicaURLs, fixed at
// Open): without them, every read goes to the primary and ReplicaReads changes nothing.
func (s *Store) HasReplicas() bool { return s.replicas != nil }

// target is the database ctx's reads go to.
func (s *Store) target(ctx context.Context) *readTarget {
	if s.replicas == nil {
		return &s.primary
	}
	pin, ok := ctx.Value(readPinKey{}).(*readPin)
	if !ok {
		return &s.primary
	}
	pin.once.Do(func() { pin.t.Store(s.replicas.choose(ctx, pin.tok)) })
	t := pin.t.Load()
	s.replicas.metrics.read(t.name)
	return t
}

// rdb is the GORM handle for a read that may go to a replica.
func (s *Store) rdb(ctx context.Context) *gorm.DB { return s.target(ctx).db.WithContext(ctx) }

// The store's raw SQL goes through GORM like the rest (? parameters, which GORM binds for
// each dialect). A read that may go to a replica reads with rawRows and rawRow, a read that
// must see the primary with primaryRows and primaryRow. On a replica, GORM's pool is the
// failoverPool, so that a replica failing under a read hands it to the primary; a one-row
// read goes through Rows for that, because a *sql.Row's error shows only at Scan, too late to
// fail over.

// rawRows runs a raw read on ctx's target.
func (s *Store) rawRows(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return s.rdb(ctx).Raw(q, args...).Rows()
}

// rawRow runs a one-row raw read on ctx's target and scans it (sql.ErrNoRows when there is
// none); a read the replica failed while its row was read runs again on the primary.
func (s *Store) rawRow(ctx context.Context, q string, args []any, dest ...any) error {
	t := s.target(ctx)
	err := scanOne(t.db.WithContext(ctx).Raw(q, args...).Rows())(dest...)
	var ue *UnavailableError
	if s.replicas != nil && !errors.As(err, &ue) && s.replicas.failed(ctx, t, err) {
		return s.primaryRow(ctx, q, args, dest...)
	}
	return unavailable(err, "read")
}

// primaryRows runs a raw read on the primary.
func (s *Store) primaryRows(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return s.db.WithContext(ctx).Raw(q, args...).Rows()
}

// primaryRow runs a one-row raw read on the primary and scans it (sql.ErrNoRows when there is none).
func (s *Store) primaryRow(ctx context.Context, q string, args []any, dest ...any) error {
	return unavailable(scanOne(s.primaryRows(ctx, q, args...))(dest...), "read")
}

// scanOne scans the first row of rows into dest (sql.ErrNoRows when there is none) and closes them.
func scanOne(rows *sql.Rows, err error) func(dest ...any) error {
	return func(dest ...any) error {
		if err != nil {
			return err
		}
		defer rows.Close()
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return err
			}
			return sql.ErrNoRows
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		return rows.Close()
	}
}

// groupGet reads key through the group reader of its kind on the target of ctx, and again on
// the primary when the replica failed.
func groupGet[K, V any](s *Store, ctx context.Context, kind *groupKind[K, V], key K) (V, error) {
	t := s.target(ctx)
	v, err := readerOf(t, kind).Get(ctx, key)
	if s.replicas != nil && s.replicas.failed(ctx, t, err) {
		t = &s.primary
		v, err = readerOf(t, kind).Get(ctx, key)
	}
	if !t.replica {
		err = unavailable(err, "read")
	}
	return v, err
}

// withPgxConn runs fn on one pooled Postgres connection through pgx itself, past database/sql's
// row conversion (the lookup reader's rows are scanned straight into their fields).
func withPgxConn(ctx context.Context, db *sql.DB, fn func(c *pgx.Conn) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		pc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: the Postgres driver is %T, not pgx", dc)
		}
		return fn(pc.Conn())
	})
}
