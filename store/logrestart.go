package store

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// A restored database starts a new log (docs/transparency-log.md): its old log may be behind
// checkpoints that readers and witnesses already hold, and extending it would fork it.

// logRequeueSQL queues every public version in creation order, as migration 0007 queued the
// versions of a database made before the log (the same statement; a migration stays as it
// was released, so it is written out here again).
const logRequeueSQL = `
	INSERT INTO log_queue (version, leaf)
	SELECT version, leaf FROM (
	    SELECT version, MAX(created_at) OVER (PARTITION BY namespace_id ORDER BY version_count) AS t,
	           1 AS rank, version_count,
	           '{"digest":"' || digest || '","kind":"namespace","namespace_id":"' || namespace_id ||
	           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}' AS leaf
	      FROM namespace_versions
	    UNION ALL
	    SELECT version, MAX(created_at) OVER (PARTITION BY registry_id ORDER BY version_count),
	           2, version_count,
	           '{"digest":"' || digest || '","kind":"registry","namespace_id":"' || namespace_id ||
	           '","registry_id":"' || registry_id ||
	           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}'
	      FROM registry_versions
	    UNION ALL
	    SELECT version, MAX(created_at) OVER (PARTITION BY record_id ORDER BY version_count),
	           3, version_count,
	           '{"digest":"' || digest || '","kind":"record","namespace_id":"' || namespace_id ||
	           '","record_id":"' || record_id || '","registry_id":"' || registry_id ||
	           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}'
	      FROM record_versions WHERE state <> 'draft'
	) AS v
	ORDER BY t, rank, version_count, version`

// RestartLog starts a new, empty log under origin in place of the database's log, in one
// transaction: the old log's tiles, bundles, checkpoints, cosigned checkpoint and index map are
// removed, every public version is queued again in creation order, and origin is recorded, so
// an integrator that signs for another origin (the old key) refuses to extend it. A new log
// needs a new origin: the database's own is refused with ErrConflict. Then, on Postgres, it
// vacuums the tables the restart rewrote. It returns how many versions wait for the
// integrator. Every instance must be stopped first and started again
// with a signer key for origin.
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
		if err := tx.Exec(`UPDATE log_state SET origin = ?, size = 0, checkpoint = '', cosigned = '', cosigned_size = 0 WHERE id = 1`, origin).Error; err != nil {
			return fmt.Errorf("store: restart log: %w", err)
		}
		res := tx.Exec(logRequeueSQL)
		if res.Error != nil {
			return fmt.Errorf("store: restart log: queue: %w", res.Error)
		}
		queued = res.RowsAffected
		// Each version keeps its new queue position (logentry.go).
		for _, table := range []string{"namespace_versions", "registry_versions", "record_versions"} {
			if err := tx.Exec(`UPDATE ` + table + ` SET log_seq = q.seq FROM log_queue q WHERE q.version = ` + table + `.version`).Error; err != nil {
				return fmt.Errorf("store: restart log: positions: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if q := s.d.compactAfterRestartStatement(); q != "" {
		if _, err := s.sqlDB.ExecContext(ctx, q); err != nil {
			return queued, translate(err, "compact after the log restart")
		}
	}
	return queued, nil
}
