package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/translog/leaf"
)

// A logged version's index: its row keeps its queue position (log_seq), and the run of
// positions that holds it (log_runs, the greatest seq_start not after it, when it reaches that
// far) gives the index; a version integrated before migration 0013 has no position and a
// log_entries row instead. Inclusion proofs start here, so the read is one statement, and on
// Postgres concurrent ones go out in groups (groupread.go).

// logEntryCols are what a log-entry read returns for a version: its leaf's fields, its
// position, its run and its old index.
const logEntryCols = `v.kind, v.namespace_id, v.registry_id, v.record_id, v.version_count, v.digest,
	v.log_seq, r.seq_start, r.seq_end, r.idx_start, e.idx`

// logEntryVersions is the version of each of the three kinds whose id is the parameter
// (record drafts are not logged).
const logEntryVersions = `SELECT 'namespace' AS kind, namespace_id, '' AS registry_id, '' AS record_id, version_count, digest, log_seq, version
	  FROM namespace_versions WHERE version = %[1]s
	UNION ALL SELECT 'registry', namespace_id, registry_id, '', version_count, digest, log_seq, version
	  FROM registry_versions WHERE version = %[1]s
	UNION ALL SELECT 'record', namespace_id, registry_id, record_id, version_count, digest, log_seq, version
	  FROM record_versions WHERE version = %[1]s AND state <> 'draft'`

const logEntryJoins = `
	LEFT JOIN log_runs r ON r.seq_start = (SELECT MAX(seq_start) FROM log_runs WHERE seq_start <= v.log_seq)
	LEFT JOIN log_entries e ON v.log_seq IS NULL AND e.version = v.version`

// logEntrySQL reads one version (SQLite).
var logEntrySQL = `SELECT ` + logEntryCols + ` FROM (` + fmt.Sprintf(logEntryVersions, "?") + `) v` + logEntryJoins

// logEntryGroupSQL reads a group of versions, numbered by their place in $1 (Postgres).
var logEntryGroupSQL = `SELECT q.i, ` + logEntryCols + `
	FROM unnest($1::text[]) WITH ORDINALITY AS q(version, i)
	CROSS JOIN LATERAL (` + fmt.Sprintf(logEntryVersions, "q.version") + `) v` + logEntryJoins

// logEntryRead is one version's row of a log-entry read.
type logEntryRead struct {
	leaf                                          leaf.Leaf
	logSeq, seqStart, seqEnd, idxStart, legacyIdx *int64
}

func (r *logEntryRead) scanDest() []any {
	return []any{&r.leaf.Kind, &r.leaf.NamespaceID, &r.leaf.RegistryID, &r.leaf.RecordID, &r.leaf.VersionCount,
		&r.leaf.Digest, &r.logSeq, &r.seqStart, &r.seqEnd, &r.idxStart, &r.legacyIdx}
}

// index is the version's log index; ok is false while it is queued.
func (r *logEntryRead) index() (idx int64, ok bool) {
	switch {
	case r.logSeq != nil && r.seqStart != nil && *r.seqEnd >= *r.logSeq:
		return *r.idxStart + (*r.logSeq - *r.seqStart), true
	case r.logSeq == nil && r.legacyIdx != nil:
		return *r.legacyIdx, true
	}
	return 0, false
}

// LogEntry returns the index of a logged version and its leaf, built from the version's row
// (the fields the leaf holds), with no entry bundle to read. directory.ErrNotFound (and
// logstore.ErrNotFound) while the version is not integrated (queued, a draft or unknown).
func (s *Store) LogEntry(ctx context.Context, version string) (int64, leaf.Leaf, error) {
	r, err := s.readLogEntry(ctx, version)
	if err != nil && !errors.Is(err, directory.ErrNotFound) {
		return 0, leaf.Leaf{}, fmt.Errorf("store: log entry: %w", err)
	}
	idx, ok := r.index()
	if err != nil || !ok {
		return 0, leaf.Leaf{}, fmt.Errorf("log entry %s: %w", version, notInLog{})
	}
	r.leaf.Version = version
	return idx, r.leaf, nil
}

// LogIndex returns the index of the version's leaf; directory.ErrNotFound while it is not integrated
// (queued, a draft or unknown).
func (s *Store) LogIndex(ctx context.Context, version string) (int64, error) {
	idx, _, err := s.LogEntry(ctx, version)
	return idx, err
}

// readLogEntrySQLite reads one version's log entry (directory.ErrNotFound when there is no such public
// version).
func (s *Store) readLogEntrySQLite(ctx context.Context, version string) (logEntryRead, error) {
	var r logEntryRead
	rows, err := s.sqlDB.QueryContext(ctx, logEntrySQL, version, version, version)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return r, err
		}
		return r, directory.ErrNotFound
	}
	if err := rows.Scan(r.scanDest()...); err != nil {
		return r, err
	}
	return r, rows.Err()
}

// logEntries are the grouped log-entry reads (Postgres).
var logEntries = &groupKind[string, logEntryRead]{what: "log entry", read: readLogEntryGroup}

// readLogEntry reads a public version's log entry, the read inclusion proofs start with: in a
// group where the dialect groups reads. ErrNotFound when there is no such version.
func (s *Store) readLogEntry(ctx context.Context, version string) (logEntryRead, error) {
	if s.d.groupsReads() {
		return groupGet(s, ctx, logEntries, version)
	}
	return s.readLogEntrySQLite(ctx, version)
}

// readLogEntryGroup reads a group of versions' log entries in one statement (Postgres).
func readLogEntryGroup(ctx context.Context, db *sql.DB, versions []string, found func(i int, r logEntryRead) error) error {
	return withPgxConn(ctx, db, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, logEntryGroupSQL, versions)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var i int64
			var r logEntryRead
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
