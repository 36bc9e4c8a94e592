package store

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/translog/logstore"
)

// The marker of a log found rolled back (docs/deployment.md, "Losing the primary"): an
// integrator that finds the stored log behind a checkpoint signed before records it in the
// database, so that every instance, those started later included, refuses to sign until an
// operator starts a new log (RestartLog clears it). LogState and IntegrateLog read it with the
// log's state (translog.go).

// MarkLogRolledBack records r as the log's rollback marker, unless the log already has one: the
// first finding is kept (a later one adds nothing an operator needs). It reports whether it
// recorded r. The write goes to the primary; a database that does not answer leaves the marker
// to the next integration that finds the rollback.
func (s *Store) MarkLogRolledBack(ctx context.Context, r logstore.Rollback) (bool, error) {
	if !r.Marked() || r.Size >= r.Behind {
		return false, fmt.Errorf("%w: a rollback marker needs the size found below the size it is behind (%d, %d)", directory.ErrInvalid, r.Size, r.Behind)
	}
	// The log's tables are shown by no cached lookup: the write is not reported to OnCommit.
	ctx = context.WithValue(ctx, txWritesKey{}, new(txWrites))
	res := s.db.WithContext(ctx).Table("log_state").Where("id = 1 AND rolled_back_behind = 0").
		Updates(map[string]any{"rolled_back_behind": r.Behind, "rolled_back_size": r.Size, "rolled_back_found": r.Found,
			"rolled_back_at": r.At.UnixMilli()})
	if res.Error != nil {
		return false, fmt.Errorf("store: mark the log rolled back: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}
