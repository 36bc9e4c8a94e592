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
// read of lookupbatch.go joined to the version's log position (logentry.go's runs and old
// entries), grouped on Postgres and prepared once on SQLite like the lookup, where two
// statements (the record, then its log entry) cost an answer a second round trip.

// loggedJoins join the latest version's row and its log position to a latest-record read
// (records r): the run that holds its queue position, or its old log_entries row.
const loggedJoins = `
	LEFT JOIN record_versions v ON v.version = r.version AND v.state <> 'draft'
	LEFT JOIN log_runs lr ON lr.seq_start = (SELECT MAX(seq_start) FROM log_runs WHERE seq_start <= v.log_seq)
	LEFT JOIN log_entries e ON v.log_seq IS NULL AND e.version = v.version`

// loggedCols are the columns of a logged read: the latest-record read's, then the log position's.
const loggedCols = recordHeadCols + `, v.log_seq, lr.seq_start, lr.seq_end, lr.idx_start, e.idx`

// loggedRead is a record read with its log position.
type loggedRead struct {
	rec recRead
	log logEntryRead
}

func (r *loggedRead) scanDest() []any {
	return append(r.rec.scanDest(), &r.log.logSeq, &r.log.seqStart, &r.log.seqEnd, &r.log.idxStart, &r.log.legacyIdx)
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
	rec, err = r.rec.record()
	idx, logged = r.log.index()
	return rec, idx, logged, err
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
		JOIN records r ON r.registry_id = g.registry_id AND r.record_name = q.rec`+loggedJoins, ns, regs, recs)
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
	JOIN records r ON r.registry_id = g.registry_id AND r.record_name = CAST(? AS TEXT)` + loggedJoins + `
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
