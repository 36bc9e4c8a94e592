package store

import (
	"context"
	"fmt"
	"strings"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/translog/leaf"
)

// A restored database starts a new log (docs/transparency-log.md): its old log may be behind
// checkpoints that readers and witnesses already hold, and extending it would fork it.

// logRestartOrderSQL numbers every public version in creation order, as migration 0007 queued
// the versions of a database made before the log: by the time its entry reached that version
// (the latest created_at of the entry's public versions up to it, so that an entry's versions
// stay in version order even if the clock went back between them), then namespaces before
// registries before records, then version_count and version. It reads the fields of each
// version's leaf; the leaf itself is written in Go (translog/leaf), as every write queues it.
// The key changes of DeDi publishers (dedikeys.go) and the changes of domain bindings
// (domainleaves.go) are numbered among them by the time they were logged, after the versions
// of the same millisecond (their transaction wrote its versions first), and among themselves
// in the order they were queued (log_seq: a crawl's domain change and its key change, two
// transactions, can share a millisecond); their leaf texts are kept and queued as they are,
// under their digest.
const logRestartOrderSQL = `
	INSERT INTO log_restart (n, kind, namespace_id, registry_id, record_id, version, version_count, digest, leaf)
	SELECT ROW_NUMBER() OVER (ORDER BY t, rank, version_count, version),
	       kind, namespace_id, registry_id, record_id, version, version_count, digest, leaf FROM (
	    SELECT version, MAX(created_at) OVER (PARTITION BY namespace_id ORDER BY version_count) AS t,
	           1 AS rank, version_count, 'namespace' AS kind, namespace_id, '' AS registry_id, '' AS record_id, digest, '' AS leaf
	      FROM namespace_versions
	    UNION ALL
	    SELECT version, MAX(created_at) OVER (PARTITION BY registry_id ORDER BY version_count),
	           2, version_count, 'registry', namespace_id, registry_id, '', digest, ''
	      FROM registry_versions
	    UNION ALL
	    SELECT version, MAX(created_at) OVER (PARTITION BY record_id ORDER BY version_count),
	           3, version_count, 'record', namespace_id, registry_id, record_id, digest, ''
	      FROM record_versions WHERE state <> 'draft'
	    UNION ALL
	    SELECT digest, created_at, 4, log_seq, 'dedi-keys', '', '', '', digest, leaf
	      FROM dedi_key_changes
	    UNION ALL
	    SELECT digest, created_at, 4, log_seq, 'domain', '', '', '', digest, leaf
	      FROM domain_changes
	) AS v`

// logRestartPage is how many versions the restart reads and queues at a time, in statements of
// logQueueInsert rows (two parameters each: well inside both dialects' limits).
const (
	logRestartPage = 4096
	logQueueInsert = 2048
)

// RestartLog starts a new, empty log under origin in place of the database's log, in one
// transaction: the old log's tiles, bundles, checkpoints, cosigned checkpoint, index map and
// rollback marker (logrollback.go) are removed, every public version is queued again in
// creation order, and origin is recorded, so an integrator that signs for another origin (the
// old key) refuses to extend it. A new log needs a new origin: the database's own is refused
// with ErrConflict. Then, on Postgres, it vacuums the tables the restart rewrote. It returns
// how many versions wait for the integrator. Every instance must be stopped first and started
// again with a signer key for origin.
func (s *Store) RestartLog(ctx context.Context, origin string) (queued int64, err error) {
	if origin == "" {
		return 0, fmt.Errorf("%w: a log needs an origin", directory.ErrInvalid)
	}
	err = s.tx(ctx, func(tx *gorm.DB) error {
		var st logStateRow
		if err := s.d.lockRow(tx.Where("id = 1")).Take(&st).Error; err != nil {
			return fmt.Errorf("store: log state: %w", err)
		}
		if st.Origin == origin {
			return directory.Conflict.With("the log already has the origin %s: a new log needs a new origin (and key)", origin)
		}
		for _, q := range []string{`DELETE FROM log_queue`, `DELETE FROM log_runs`, `DELETE FROM log_entries`, `DELETE FROM log_tiles`} {
			if err := tx.Exec(q).Error; err != nil {
				return fmt.Errorf("store: restart log: %w", err)
			}
		}
		if err := tx.Exec(`UPDATE log_state SET origin = ?, size = 0, checkpoint = '', cosigned = '', cosigned_size = 0,
			rolled_back_behind = 0, rolled_back_size = 0, rolled_back_found = '', rolled_back_at = 0 WHERE id = 1`, origin).Error; err != nil {
			return fmt.Errorf("store: restart log: %w", err)
		}
		if queued, err = requeueForLog(tx); err != nil {
			return fmt.Errorf("store: restart log: queue: %w", err)
		}
		// Each version keeps its new queue position (logentry.go), and each key change its own.
		for _, table := range []string{"namespace_versions", "registry_versions", "record_versions"} {
			if err := tx.Exec(`UPDATE ` + table + ` SET log_seq = q.seq FROM log_queue q WHERE q.version = ` + table + `.version`).Error; err != nil {
				return fmt.Errorf("store: restart log: positions: %w", err)
			}
		}
		if err := tx.Exec(`UPDATE dedi_key_changes SET log_seq = q.seq FROM log_queue q WHERE q.version = dedi_key_changes.digest`).Error; err != nil {
			return fmt.Errorf("store: restart log: positions: %w", err)
		}
		if err := tx.Exec(`UPDATE domain_changes SET log_seq = q.seq FROM log_queue q WHERE q.version = domain_changes.digest`).Error; err != nil {
			return fmt.Errorf("store: restart log: positions: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if q := s.d.compactAfterRestartStatement(); q != "" {
		if err := s.db.WithContext(quiet(ctx)).Exec(q).Error; err != nil {
			return queued, translate(err, "compact after the log restart")
		}
	}
	return queued, nil
}

// requeueForLog queues every public version in creation order, into the empty queue: it numbers
// them in a temporary table (logRestartOrderSQL) and reads that back a page at a time, writing
// each version's leaf with translog/leaf and queueing the page in multi-row inserts in the
// numbering's order, so that the queue's positions follow it. It returns how many it queued.
func requeueForLog(tx *gorm.DB) (int64, error) {
	if err := tx.Exec(`CREATE TEMPORARY TABLE log_restart (n BIGINT PRIMARY KEY, kind TEXT NOT NULL,
		namespace_id TEXT NOT NULL, registry_id TEXT NOT NULL, record_id TEXT NOT NULL, version TEXT NOT NULL,
		version_count BIGINT NOT NULL, digest TEXT NOT NULL, leaf TEXT NOT NULL)`).Error; err != nil {
		return 0, err
	}
	if err := tx.Exec(logRestartOrderSQL).Error; err != nil {
		return 0, err
	}
	var queued int64
	args := make([]any, 0, 2*logRestartPage) // version, leaf, version, leaf, ...
	for {
		rows, err := tx.Raw(`SELECT kind, namespace_id, registry_id, record_id, version, version_count, digest, leaf
			FROM log_restart WHERE n > ? ORDER BY n LIMIT ?`, queued, logRestartPage).Rows()
		if err != nil {
			return 0, err
		}
		args = args[:0]
		for rows.Next() {
			var l leaf.Leaf
			var kept string
			if err := rows.Scan(&l.Kind, &l.NamespaceID, &l.RegistryID, &l.RecordID, &l.Version, &l.VersionCount, &l.Digest, &kept); err != nil {
				_ = rows.Close()
				return 0, err
			}
			text, err := restartLeaf(l, kept)
			if err != nil {
				_ = rows.Close()
				return 0, err
			}
			args = append(args, l.Version, string(text))
		}
		if err := rows.Close(); err != nil {
			return 0, err
		}
		if err := rows.Err(); err != nil {
			return 0, err
		}
		if len(args) == 0 {
			break
		}
		for i := 0; i < len(args); i += 2 * logQueueInsert {
			part := args[i:min(i+2*logQueueInsert, len(args))]
			q := "INSERT INTO log_queue (version, leaf) VALUES (?, ?)" + strings.Repeat(", (?, ?)", len(part)/2-1)
			if err := tx.Exec(q, part...).Error; err != nil {
				return 0, translate(err, "log queue")
			}
		}
		queued += int64(len(args) / 2)
	}
	return queued, tx.Exec(`DROP TABLE log_restart`).Error
}

// restartLeaf is the leaf text a restart queues: a version's written from its fields, a key
// change's or a domain binding's change as it was logged (checked to be a canonical leaf of
// its kind).
func restartLeaf(l leaf.Leaf, kept string) ([]byte, error) {
	switch l.Kind {
	case leaf.KindDediKeys:
		if _, err := leaf.ParseKeys([]byte(kept)); err != nil {
			return nil, fmt.Errorf("the key change %s: %w", l.Version, err)
		}
	case leaf.KindDomain:
		if _, err := leaf.ParseDomain([]byte(kept)); err != nil {
			return nil, fmt.Errorf("the domain change %s: %w", l.Version, err)
		}
	default:
		return l.Canonical()
	}
	return []byte(kept), nil
}
