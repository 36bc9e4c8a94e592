package store

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/svc-directory/svc/directory"
)

// Latest-record lookups by namespace id, the hottest read of the service, take a path of their
// own on each dialect: on Postgres they are read in groups (groupread.go), on SQLite through
// one statement prepared once per connection (latestRecordSQLite).

// lookupKey is a latest-record lookup: a record by namespace id, registry and record name.
type lookupKey struct{ namespaceID, registry, record string }

// recordHeadCols are the columns of a latest-record read (records r, registries g, namespaces n),
// in the order of recRead.scanDest (GetRecord reads the same ones from a version row).
const recordHeadCols = `r.record_id, r.registry_id, r.namespace_id, r.registry_name, r.record_name, r.created_by,
	r.genesis, r.version, r.version_count, r.description, r.details, r.meta, r.ttl, r.state, r.valid_till,
	r.digest, r.proof_type, r.updated_at, r.created_at, g.state, g.schema, n.name, n.state`

// latestLookups are the grouped latest-record reads (Postgres).
var latestLookups = &groupKind[lookupKey, recRead]{what: "record lookup", read: readLatestGroup}

// readLatest reads the latest version of a record by namespace id, the hottest read: in a group
// where the dialect groups reads, else with the prepared statement.
func (s *Store) readLatest(ctx context.Context, namespaceID, registry, record string) (recRead, error) {
	if s.d.groupsReads() {
		return groupGet(s, ctx, latestLookups, lookupKey{namespaceID, registry, record})
	}
	return s.latestRecordSQLite(ctx, namespaceID, registry, record)
}

// readLatestGroup reads a group of latest-record lookups in one statement (Postgres).
func readLatestGroup(ctx context.Context, db *sql.DB, keys []lookupKey, found func(i int, r recRead) error) error {
	ns, regs, recs := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		ns[i], regs[i], recs[i] = k.namespaceID, k.registry, k.record
	}
	return withPgxConn(ctx, db, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT q.i, `+recordHeadCols+`
		FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS q(ns, reg, rec, i)
		JOIN namespaces n ON n.namespace_id = q.ns
		JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = q.reg
		JOIN records r ON r.registry_id = g.registry_id AND r.record_name = q.rec`, ns, regs, recs)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var i int64
			var r recRead
			if err := rows.Scan(append([]any{&i}, r.scanDest()...)...); err != nil {
				return err
			}
			if err := found(int(i-1), r); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// latestRecordSQLiteQuery reads the latest version of a record by namespace id on SQLite. Its
// parameters are wrapped in CAST(? AS TEXT) (the same comparison: every key is text) because
// a bare parameter compared with an indexed column makes SQLite, once ANALYZE has stored
// value samples (sqlite_stat4), mark the statement to be planned again for every new value:
// the statement would be compiled twice per lookup, and a prepared one again at each use. The
// keys are unique, so no value could change the plan.
const latestRecordSQLiteQuery = `SELECT ` + recordHeadCols + `
	FROM namespaces n
	JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = CAST(? AS TEXT)
	JOIN records r ON r.registry_id = g.registry_id AND r.record_name = CAST(? AS TEXT)
	WHERE n.namespace_id = CAST(? AS TEXT)`

// latestRecordSQLite reads the latest version of a record on SQLite through a statement that
// database/sql prepares once on each pooled connection and keeps: compiling the three-table
// join cost more CPU than running it (prepared).
func (s *Store) latestRecordSQLite(ctx context.Context, namespaceID, registry, record string) (recRead, error) {
	stmt, err := s.prepared(ctx, &s.latestStmt, latestRecordSQLiteQuery)
	if err != nil {
		return recRead{}, err
	}
	// The read runs under a context that is never cancelled: it finds one row by unique keys
	// in microseconds, and watching a cancellable context costs more than the read (the driver
	// and database/sql would each start a goroutine per query to watch it).
	var r recRead
	err = stmt.QueryRowContext(context.WithoutCancel(ctx), registry, record, namespaceID).Scan(r.scanDest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return recRead{}, directory.ErrNotFound
	}
	return r, err
}

// prepared is the statement q kept in p, prepared on first use (Open does not migrate, so the
// tables may not exist before); a failed preparation is retried by the next read. It fails
// when ctx is done: the read that follows runs under a context that is never cancelled.
func (s *Store) prepared(ctx context.Context, p *atomic.Pointer[sql.Stmt], q string) (*sql.Stmt, error) {
	stmt := p.Load()
	if stmt == nil {
		s.stmtMu.Lock()
		if stmt = p.Load(); stmt == nil {
			var err error
			if stmt, err = s.sqlDB.PrepareContext(ctx, q); err != nil {
				s.stmtMu.Unlock()
				return nil, err
			}
			p.Store(stmt)
		}
		s.stmtMu.Unlock()
	}
	return stmt, ctx.Err()
}
