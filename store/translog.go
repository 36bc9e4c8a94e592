package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/translog/logstore"
)

// logQueueRow is a leaf waiting for the integrator; seq (assigned by the database) is the
// queue order.
type logQueueRow struct {
	Seq     int64  `gorm:"column:seq;primaryKey"`
	Version string `gorm:"column:version"`
	Leaf    string `gorm:"column:leaf"`
}

func (logQueueRow) TableName() string { return "log_queue" }

type logQueueRead struct {
	Seq     int64  `gorm:"column:seq"`
	Version string `gorm:"column:version"`
	Leaf    string `gorm:"column:leaf"`
}

// logRunRow says that the queued leaves of seqs SeqStart..SeqEnd got the indices IdxStart..
// (migration 0013). Runs never overlap: each seq is integrated once.
type logRunRow struct {
	SeqStart int64 `gorm:"column:seq_start;primaryKey;autoIncrement:false"`
	SeqEnd   int64 `gorm:"column:seq_end"`
	IdxStart int64 `gorm:"column:idx_start"`
}

func (logRunRow) TableName() string { return "log_runs" }

type logTileRow struct {
	Level int    `gorm:"column:level;primaryKey;autoIncrement:false"`
	N     int64  `gorm:"column:n;primaryKey;autoIncrement:false"`
	Data  []byte `gorm:"column:data"`
}

func (logTileRow) TableName() string { return "log_tiles" }

type logStateRow struct {
	ID         int    `gorm:"column:id;primaryKey;autoIncrement:false"`
	Origin     string `gorm:"column:origin"`
	Size       int64  `gorm:"column:size"`
	Checkpoint string `gorm:"column:checkpoint"`
	// The marker of a rollback (logrollback.go): RolledBackBehind 0 when there is none.
	RolledBackBehind int64  `gorm:"column:rolled_back_behind"`
	RolledBackSize   int64  `gorm:"column:rolled_back_size"`
	RolledBackFound  string `gorm:"column:rolled_back_found"`
	RolledBackAt     int64  `gorm:"column:rolled_back_at"`
}

func (logStateRow) TableName() string { return "log_state" }

// state is the row in the log's words.
func (r logStateRow) state() logstore.State {
	st := logstore.State{Origin: r.Origin, Size: r.Size, Checkpoint: r.Checkpoint}
	if r.RolledBackBehind > 0 {
		st.RolledBack = logstore.Rollback{Behind: r.RolledBackBehind, Size: r.RolledBackSize, Found: r.RolledBackFound,
			At: time.UnixMilli(r.RolledBackAt).UTC()}
	}
	return st
}

// notInLog is the not-found of the log's reads: errors.Is matches both the store's directory.ErrNotFound
// and logstore.ErrNotFound, which the log's storage interfaces (package translog) speak of.
type notInLog struct{}

func (notInLog) Error() string { return directory.ErrNotFound.Error() }

func (notInLog) Is(target error) bool {
	return target == directory.ErrNotFound || target == logstore.ErrNotFound
}

// IntegrateLog runs one integration in one transaction: it locks the log (Postgres: the row
// of log_state, so instances integrate one at a time; SQLite: the write lock), takes up to
// limit queued leaves in queue order and hands them to fn. When fn returns nil, the leaves get
// the next indices, fn's tiles and checkpoint are stored and the leaves leave the queue, all
// at once (with the leaves fn appended after them: Update.Appended); when it fails nothing
// changes. With an empty queue fn is called too: an empty Update (Update.Empty) then writes
// nothing, unless the log has no checkpoint yet. It returns how many queued leaves it
// integrated.
func (s *Store) IntegrateLog(ctx context.Context, limit int, fn func(b *logstore.Batch) (logstore.Update, error)) (int, error) {
	n := 0
	release, err := s.writeTurn(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	// The log's tables are shown by no cached lookup: the writes are not reported to OnCommit.
	ctx = context.WithValue(ctx, txWritesKey{}, new(txWrites))
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The checkpoint is published only once the integration is on a synchronous standby
		// (with synchronous_standby_names; whatever synchronous_commit the database has).
		if q := s.d.syncCommitStatement(); q != "" {
			if err := tx.Exec(q).Error; err != nil {
				return fmt.Errorf("store: log integration: %w", err)
			}
		}
		var st logStateRow
		q := s.d.lockRow(tx.Where("id = 1"))
		if err := q.Take(&st).Error; err != nil {
			return fmt.Errorf("store: log state: %w", err)
		}
		var rows []logQueueRead
		if err := tx.Table("log_queue").Order("seq").Limit(limit).Find(&rows).Error; err != nil {
			return fmt.Errorf("store: log queue: %w", err)
		}
		b := &logstore.Batch{State: st.state(),
			ReadTile: func(level int, n int64) ([]byte, error) { return readLogTile(tx, level, n) }}
		b.Queued = make([]logstore.Queued, len(rows))
		seqs := make([]int64, len(rows))
		for i, r := range rows {
			b.Queued[i] = logstore.Queued{Version: r.Version, Leaf: []byte(r.Leaf)}
			seqs[i] = r.Seq
		}
		up, err := fn(b)
		if err != nil {
			return err
		}
		if len(rows) == 0 && st.Checkpoint != "" && up.Empty() {
			return nil // nothing to integrate
		}
		if up.Appended < 0 {
			return errors.New("store: log integration appends a negative number of leaves")
		}
		if up.Checkpoint == "" || up.Origin == "" {
			return errors.New("store: log integration without a checkpoint")
		}
		if len(seqs) > 0 {
			if err := recordLogRuns(tx, seqs, st.Size); err != nil {
				return err
			}
			for i := 0; i < len(seqs); i += 2000 {
				part := seqs[i:min(i+2000, len(seqs))]
				if err := tx.Where("seq IN ?", part).Delete(&logQueueRead{}).Error; err != nil {
					return fmt.Errorf("store: log queue: %w", err)
				}
			}
		}
		if len(up.Tiles) > 0 {
			tiles := make([]logTileRow, len(up.Tiles))
			for i, t := range up.Tiles {
				tiles[i] = logTileRow(t)
			}
			if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "level"}, {Name: "n"}},
				DoUpdates: clause.AssignmentColumns([]string{"data"})}).CreateInBatches(tiles, 500).Error; err != nil {
				return fmt.Errorf("store: log tiles: %w", err)
			}
		}
		res := tx.Model(&logStateRow{}).Where("id = 1 AND size = ?", st.Size).
			Updates(map[string]any{"origin": up.Origin, "size": st.Size + int64(len(rows)) + int64(up.Appended), "checkpoint": up.Checkpoint})
		if res.Error != nil {
			return fmt.Errorf("store: log state: %w", res.Error)
		}
		if res.RowsAffected != 1 {
			return errors.New("store: log state changed during integration")
		}
		n = len(rows)
		return nil
	})
	return n, err
}

func (logQueueRead) TableName() string { return "log_queue" }

// recordLogRuns records that the queued leaves of seqs (increasing) got the indices from..:
// one log_runs row per run of consecutive seqs. A run that goes on from the last one recorded
// (the next seq at the next index, as when one writer writes) extends that row instead, so the
// map stays a few rows however many integrations there are.
func recordLogRuns(tx *gorm.DB, seqs []int64, from int64) error {
	var runs []logRunRow
	start := 0
	for i := 1; i <= len(seqs); i++ {
		if i == len(seqs) || seqs[i] != seqs[i-1]+1 {
			runs = append(runs, logRunRow{SeqStart: seqs[start], SeqEnd: seqs[i-1], IdxStart: from + int64(start)})
			start = i
		}
	}
	var last []logRunRow
	if err := tx.Order("seq_start DESC").Limit(1).Find(&last).Error; err != nil {
		return fmt.Errorf("store: log runs: %w", err)
	}
	if len(last) == 1 && last[0].SeqEnd+1 == runs[0].SeqStart && last[0].IdxStart+(last[0].SeqEnd-last[0].SeqStart)+1 == from {
		if err := tx.Model(&logRunRow{}).Where("seq_start = ?", last[0].SeqStart).Update("seq_end", runs[0].SeqEnd).Error; err != nil {
			return fmt.Errorf("store: log runs: %w", err)
		}
		runs = runs[1:]
	}
	if len(runs) == 0 {
		return nil
	}
	return translate(tx.CreateInBatches(runs, 1000).Error, "log runs")
}

func readLogTile(db *gorm.DB, level int, n int64) ([]byte, error) {
	var rows []logTileRow
	if err := db.Where("level = ? AND n = ?", level, n).Limit(1).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("store: log tile: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return rows[0].Data, nil
}

// LogTile returns the stored tile (level logstore.EntriesLevel: the entry bundle) at its
// current width; directory.ErrNotFound (and logstore.ErrNotFound) when there is none.
func (s *Store) LogTile(ctx context.Context, level int, n int64) ([]byte, error) {
	data, err := readLogTile(s.rdb(ctx), level, n)
	if err == nil && data == nil {
		return nil, fmt.Errorf("log tile %d/%d: %w", level, n, notInLog{})
	}
	return data, err
}

// LogState returns the integrated state of the log, with its rollback marker.
func (s *Store) LogState(ctx context.Context) (logstore.State, error) {
	var st logStateRow
	if err := s.rdb(ctx).Where("id = 1").Take(&st).Error; err != nil {
		return logstore.State{}, fmt.Errorf("store: log state: %w", err)
	}
	return st.state(), nil
}

// LogQueueLength returns how many leaves wait for the integrator.
func (s *Store) LogQueueLength(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.WithContext(ctx).Table("log_queue").Count(&n).Error; err != nil {
		return 0, fmt.Errorf("store: log queue: %w", err)
	}
	return n, nil
}

// LogQueuedLeaves returns the waiting leaves in queue order (tests and tools).
func (s *Store) LogQueuedLeaves(ctx context.Context) ([]logstore.Queued, error) {
	var rows []logQueueRead
	if err := s.db.WithContext(ctx).Table("log_queue").Order("seq").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("store: log queue: %w", err)
	}
	out := make([]logstore.Queued, len(rows))
	for i, r := range rows {
		out[i] = logstore.Queued{Version: r.Version, Leaf: []byte(r.Leaf)}
	}
	return out, nil
}

// LogOldestWaiting returns when the version at the head of the log's queue was written (its
// version row's created_at); ok is false when nothing waits.
func (s *Store) LogOldestWaiting(ctx context.Context) (time.Time, bool, error) {
	db := s.db.WithContext(ctx)
	var head []string
	if err := db.Table("log_queue").Order("seq").Limit(1).Pluck("version", &head).Error; err != nil {
		return time.Time{}, false, fmt.Errorf("store: log queue: %w", err)
	}
	if len(head) == 0 {
		return time.Time{}, false, nil
	}
	return s.publicVersionTime(ctx, head[0])
}

// LogPending reports whether version is a public version that is not in the log yet: it exists
// and is not a draft (so its write queued it), but it has no log index; or the digest of a key
// change or a domain change that waits for the integrator. Its reads go by primary
// key, never through the queue, which may be long (a backfill).
func (s *Store) LogPending(ctx context.Context, version string) (bool, error) {
	if _, err := s.LogIndex(ctx, version); err == nil {
		return false, nil
	} else if !errors.Is(err, directory.ErrNotFound) {
		return false, err
	}
	_, ok, err := s.publicVersionTime(ctx, version)
	if err != nil || !ok {
		return false, err
	}
	// A key change or a domain binding's change (queued under its digest) has no version row:
	// it waits while its queue position is in no recorded run.
	var rows []struct{ LogSeq, SeqEnd *int64 }
	err = s.db.WithContext(ctx).Raw(`SELECT c.log_seq, r.seq_end FROM (
		SELECT log_seq FROM dedi_key_changes WHERE digest = ? UNION ALL SELECT log_seq FROM domain_changes WHERE digest = ?) c
		LEFT JOIN log_runs r ON r.seq_start = (SELECT MAX(seq_start) FROM log_runs WHERE seq_start <= c.log_seq)`,
		version, version).Scan(&rows).Error
	if err != nil {
		return false, fmt.Errorf("store: log changes %s: %w", version, err)
	}
	for _, r := range rows {
		if r.LogSeq != nil && r.SeqEnd != nil && *r.SeqEnd >= *r.LogSeq {
			return false, nil
		}
	}
	return true, nil
}

// publicVersionTime returns when a public version (of a namespace, a registry, or a record but
// not a draft) was written, or a DeDi key change or a domain binding's change logged (queued
// under its digest, dedikeys.go, domainleaves.go);
// ok is false when there is no such version.
func (s *Store) publicVersionTime(ctx context.Context, version string) (t time.Time, ok bool, err error) {
	var ms []int64
	err = s.db.WithContext(ctx).Raw(`SELECT created_at FROM namespace_versions WHERE version = ?
		UNION ALL SELECT created_at FROM registry_versions WHERE version = ?
		UNION ALL SELECT created_at FROM record_versions WHERE version = ? AND state <> ?
		UNION ALL SELECT created_at FROM dedi_key_changes WHERE digest = ?
		UNION ALL SELECT created_at FROM domain_changes WHERE digest = ?`,
		version, version, version, directory.StateDraft, version, version).Scan(&ms).Error
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store: version %s: %w", version, err)
	}
	if len(ms) == 0 {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(ms[0]).UTC(), true, nil
}

// CompactLog reclaims the space that integrations left behind (removed queue rows, replaced
// partial tiles) where the database does not reuse it by itself (Postgres: VACUUM). The
// integrator calls it every so many integrations.
func (s *Store) CompactLog(ctx context.Context) error {
	q := s.d.compactLogStatement()
	if q == "" {
		return nil
	}
	return translate(s.db.WithContext(quiet(ctx)).Exec(q).Error, "compact log")
}

// queueForLog is the log queue's sink: it queues the public versions for the log, in order,
// and gives each its queue position (log_seq), by which the log finds its index once
// integrated.
func queueForLog(tx *gorm.DB, vs []appendedVersion) error {
	queued := make([]logQueueRow, 0, len(vs))
	at := make([]int, 0, len(vs))
	for i, v := range vs {
		if !v.public {
			continue
		}
		text, err := v.leaf.Canonical()
		if err != nil {
			return err
		}
		queued = append(queued, logQueueRow{Version: v.leaf.Version, Leaf: string(text)})
		at = append(at, i)
	}
	if len(queued) == 0 {
		return nil
	}
	if err := tx.CreateInBatches(queued, 4*versionBatch).Error; err != nil {
		return translate(err, "log queue")
	}
	for k, i := range at {
		if queued[k].Seq == 0 {
			return fmt.Errorf("store: the log queue gave version %s no position", queued[k].Version)
		}
		vs[i].logSeq = queued[k].Seq
	}
	return nil
}
