package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/svc-directory/svc/directory"
)

// A TRQP answer (trqp/, docs/trqp.md) names the record version that decided it and that
// version's log index. GetLatestRecordLogged reads both in one statement: the latest-record
// read of lookupbatch.go joined to the version's log position (logentry.go's runs), grouped on
// Postgres and prepared once on SQLite like the lookup, where two statements (the record, then
// its log entry) cost an answer a second round trip.

// The log position of the latest version's row (records r): its queue position and the run
// that holds it. A version integrated before migration 0013 has no queue position and a
// log_entries row instead; GetLatestRecordLogged reads its index apart (logentry.go), so that
// the hot statement does not join a third table for them. Postgres takes the run in one index
// probe (LATERAL); SQLite, which has no LATERAL, by the greatest start not after the position.
const (
	loggedJoinsPostgres = `
	LEFT JOIN record_versions v ON v.version = r.version AND v.state <> 'draft'
	LEFT JOIN LATERAL (SELECT seq_start, seq_end, idx_start FROM log_runs
		WHERE seq_start <= v.log_seq ORDER BY seq_start DESC LIMIT 1) lr ON true`
	loggedJoinsSQLite = `
	LEFT JOIN record_versions v ON v.version = r.version AND v.state <> 'draft'
	LEFT JOIN log_runs lr ON lr.seq_start = (SELECT MAX(seq_start) FROM log_runs WHERE seq_start <= v.log_seq)`
)

// loggedCols are the columns of a logged read: the latest-record read's, then the version row's
// (v.version: NULL for a draft) and its log position.
const loggedCols = recordHeadCols + `, v.version IS NOT NULL, v.log_seq, lr.seq_start, lr.seq_end, lr.idx_start`

// loggedRead is a record read with its log position.
type loggedRead struct {
	rec    recRead
	public bool // the version has a public version row (a draft has none to log)
	log    logEntryRead
}

func (r *loggedRead) scanDest() []any {
	return append(r.rec.scanDest(), &r.public, &r.log.logSeq, &r.log.seqStart, &r.log.seqEnd, &r.log.idxStart)
}

// loggedLookups are the grouped logged reads (Postgres).
var loggedLookups = &groupKind[lookupKey, loggedRead]{what: "logged record lookup", read: readLoggedGroup}

// GetLatestRecordLogged reads the latest version of a record by namespace id (as GetRecord
// does) and its log index; logged is false while the version is queued (or a draft, which is
// never logged). A miss is explained by the general read, which says which level was missing.
func (s *Store) GetLatestRecordLogged(ctx context.Context, namespaceID, registryName, recordName string) (rec directory.Record, idx int64, logged bool, err error) {
	var r loggedRead
	if s.d.groupsReads() {
		r, err = groupGet(s, ctx, loggedLookups, lookupKey{namespaceID, registryName, recordName})
	} else {
		r, err = s.loggedRecordSQLite(ctx, namespaceID, registryName, recordName)
	}
	switch {
	case errors.Is(err, directory.ErrNotFound):
		cond, arg := namespaceRefClause(namespaceID)
		rec, err = s.readRecord(ctx, cond, arg, registryName, recordName, directory.VersionSel{})
		return rec, 0, false, err // found only when written since the first read: its index is not read
	case err != nil:
		return directory.Record{}, 0, false, translate(err, "record")
	}
	if m := directory.DeletedLevel(r.rec.NamespaceState, r.rec.RegistryState, r.rec.State); m != "" {
		return directory.Record{}, 0, false, directory.NotFound(m, []string{namespaceID, registryName, recordName}[levelIndex(m)])
	}
	if rec, err = r.rec.record(); err != nil {
		return directory.Record{}, 0, false, err
	}
	if r.public && r.log.logSeq == nil { // integrated before migration 0013, or a row without a position
		idx, err = s.LogIndex(ctx, rec.Version)
		if errors.Is(err, directory.ErrNotFound) {
			return rec, 0, false, nil
		}
		return rec, idx, err == nil, err
	}
	idx, logged = r.log.index()
	return rec, idx, logged, nil
}

// readLoggedGroup reads a group of logged reads in one statement (Postgres).
func readLoggedGroup(ctx context.Context, db *sql.DB, keys []lookupKey, found func(i int, r loggedRead) error) error {
	ns, regs, recs := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		ns[i], regs[i], recs[i] = k.namespaceID, k.registry, k.record
	}
	return withPgxConn(ctx, db, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, `SELECT q.i, `+loggedCols+`
		FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS q(ns, reg, rec, i)
		JOIN namespaces n ON n.namespace_id = q.ns
		JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = q.reg
		JOIN records r ON r.registry_id = g.registry_id AND r.record_name = q.rec`+loggedJoinsPostgres, ns, regs, recs)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var i int64
			var r loggedRead
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

// loggedRecordSQLiteQuery is latestRecordSQLiteQuery with the log position (its parameters
// are CAST for the reason given there).
const loggedRecordSQLiteQuery = `SELECT ` + loggedCols + `
	FROM namespaces n
	JOIN registries g ON g.namespace_id = n.namespace_id AND g.registry_name = CAST(? AS TEXT)
	JOIN records r ON r.registry_id = g.registry_id AND r.record_name = CAST(? AS TEXT)` + loggedJoinsSQLite + `
	WHERE n.namespace_id = CAST(? AS TEXT)`

// loggedRecordSQLite is the logged read on SQLite, through a statement prepared once on each
// pooled connection (as latestRecordSQLite).
func (s *Store) loggedRecordSQLite(ctx context.Context, namespaceID, registry, record string) (loggedRead, error) {
	stmt, err := s.prepared(ctx, &s.loggedStmt, loggedRecordSQLiteQuery)
	if err != nil {
		return loggedRead{}, err
	}
	var r loggedRead
	err = stmt.QueryRowContext(context.WithoutCancel(ctx), registry, record, namespaceID).Scan(r.scanDest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return loggedRead{}, directory.ErrNotFound
	}
	return r, err
}
