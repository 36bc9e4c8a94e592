package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"gorm.io/gorm"
)

// Planner statistics after large writes (Postgres).
//
// The search and query plans rest on the planner's statistics of the record tables: a table
// that has never been analyzed, or has grown tenfold since, gets plans that walk every record
// of a namespace where a trigram index finds the few matches (right after importing 100,000
// records a selective search took 520 ms over HTTP instead of 7 ms). Autovacuum refreshes
// them when it runs, but a deployment may run without it, so the store does it itself: every record
// written through it is counted, and once the count passes analyzeThreshold of the table's
// size at the last refresh, a background ANALYZE of records and record_versions runs.
// ANALYZE samples a bounded number of rows (300 × default_statistics_target), so one refresh
// costs about the same at a million rows as at a hundred thousand, and the threshold grows
// with the table: an import of N records triggers O(log N) refreshes. One refresh runs at a
// time per instance, and across instances the one that holds an advisory lock does it (the
// others skip theirs: the statistics it gathers cover their rows as well). After a refresh the
// next one waits a gap (at least analyzeMinGap, and four times as long as the last one
// took), so that a continuous stream of writes spends at most a fifth of one connection on
// statistics; writes that cross the threshold meanwhile start it when the gap ends.
//
// SQLite is left without: its search plans do not depend on statistics (the candidate query
// starts from the full-text index by a CROSS JOIN, and a broad search's page reads the
// namespace's index in order), and searches right after an import measure the same as after
// an ANALYZE.

// analyzeThreshold is how many records written since the last refresh call for the next one,
// given the table's size then: as autovacuum's default (50 rows + 10%), with a higher floor,
// since small tables are planned well without statistics.
func analyzeThreshold(rows int64) int64 { return 500 + rows/10 }

// analyzeMinGap is the shortest pause between the end of one refresh and the start of the next.
const analyzeMinGap = time.Second

// analyzeLockKey is the advisory lock that makes one instance at a time refresh statistics.
const analyzeLockKey = 7347002

// statsKeeper counts record writes and runs the refreshes.
type statsKeeper struct {
	mu      sync.Mutex
	pending int64       // records written since the last refresh started
	base    int64       // rows of records at the last refresh (0 before the first)
	running bool        // a refresh runs
	timer   *time.Timer // a refresh waits for the end of the gap
	next    time.Time   // the gap's end
	wg      sync.WaitGroup
}

// noteRecordWrites counts n records written (committed) through the store for the planner
// statistics, where the dialect keeps them (Postgres).
func (s *Store) noteRecordWrites(n int) {
	if s.d.keepsStatistics() {
		s.countRecordWrites(n)
	}
}

// countRecordWrites counts n records written (committed) through the store and starts a
// refresh of the statistics when they are due (Postgres).
func (s *Store) countRecordWrites(n int) {
	if n <= 0 {
		return
	}
	k := &s.stats
	k.mu.Lock()
	defer k.mu.Unlock()
	k.pending += int64(n)
	s.maybeAnalyzeLocked()
}

// maybeAnalyzeLocked starts a refresh, or schedules one at the end of the gap, when enough
// records were written and none runs or waits. k.mu is held.
func (s *Store) maybeAnalyzeLocked() {
	k := &s.stats
	if k.running || k.timer != nil || k.pending < analyzeThreshold(k.base) || s.isClosed() {
		return
	}
	if wait := time.Until(k.next); wait > 0 {
		k.timer = time.AfterFunc(wait, func() {
			k.mu.Lock()
			defer k.mu.Unlock()
			k.timer = nil
			s.maybeAnalyzeLocked()
		})
		return
	}
	taken := k.pending
	k.running, k.pending = true, 0
	k.wg.Add(1)
	go s.refreshStatistics(taken)
}

// refreshStatistics runs one refresh in the background (for the taken records written) and
// schedules the next.
func (s *Store) refreshStatistics(taken int64) {
	k := &s.stats
	defer k.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	start := time.Now()
	rows, ran, err := s.analyzeRecordTables(ctx)
	took := time.Since(start)
	switch {
	case err != nil && !s.isClosed():
		s.log.WarnContext(ctx, "refreshing planner statistics failed", "err", err)
	case ran:
		s.log.DebugContext(ctx, "planner statistics refreshed", "records", rows, "took", took)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.running = false
	if ran {
		k.base = rows
	}
	if err != nil {
		k.pending += taken // retried after the gap
	}
	k.next = time.Now().Add(max(analyzeMinGap, 4*took))
	s.maybeAnalyzeLocked()
}

// analyzeRecordTables analyzes records and record_versions unless another instance is doing
// so (ran false), and reports the rows of records the statistics now count.
func (s *Store) analyzeRecordTables(ctx context.Context) (rows int64, ran bool, err error) {
	var tuples sql.NullFloat64
	err = s.db.WithContext(quiet(ctx)).Transaction(func(tx *gorm.DB) error {
		if err := tx.Raw(`SELECT pg_try_advisory_xact_lock(?)`, analyzeLockKey).Row().Scan(&ran); err != nil || !ran {
			return err
		}
		if err := tx.Exec(`ANALYZE records, record_versions`).Error; err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		return tx.Raw(`SELECT reltuples FROM pg_class WHERE oid = 'records'::regclass`).Row().Scan(&tuples)
	})
	if err != nil || !ran {
		return 0, false, err
	}
	return max(int64(tuples.Float64), 0), true, nil
}

// stopStatistics stops a waiting refresh and waits for a running one (Close).
func (s *Store) stopStatistics() {
	k := &s.stats
	k.mu.Lock()
	if k.timer != nil {
		k.timer.Stop()
		k.timer = nil
	}
	k.mu.Unlock()
	k.wg.Wait()
}

func (s *Store) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}
