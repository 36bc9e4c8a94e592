package store

import (
	"context"
	"fmt"
	"strings"
)

// The walk's chunk sizes: the first chunk is small (a selective search gives up after it), and
// a walk that promises a broad result goes on to at most searchWalkBudget rows. Variables only
// so that tests can make them small enough to reach every path with little data.
var (
	searchWalkFirst  = 1000
	searchWalkBudget = 24000
)

// searchWalk reads a namespace's records newest first in chunks, keeping those that match.
type searchWalk struct {
	s           *Store
	namespaceID string
	filter      *where // conditions on r (without the namespace)
	from        int64  // updated_at lower bound in ms (0: none): the walk ends there

	walked int
	ended  bool
	cursor *searchKey // the last row walked
	found  []searchKey
}

// probe walks while the matches promise a broad result within the budget. It reports whether
// the walk alone answers the search: it reached the end of the records, or found more than
// SearchCountLimit matches.
func (wk *searchWalk) probe(ctx context.Context) (bool, error) {
	need := SearchCountLimit + 1
	if err := wk.step(ctx, searchWalkFirst, need); err != nil {
		return false, err
	}
	for !wk.ended && len(wk.found) < need {
		left := searchWalkBudget - wk.walked
		density := float64(len(wk.found)) / float64(wk.walked)
		if left <= 0 || float64(len(wk.found))+density*float64(left) < float64(need) {
			return false, nil
		}
		if err := wk.step(ctx, left, need-len(wk.found)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// extend walks on until n matches are found or the records end.
func (wk *searchWalk) extend(ctx context.Context, n int) error {
	for len(wk.found) < n && !wk.ended {
		if err := wk.step(ctx, 200_000, n-len(wk.found)); err != nil {
			return err
		}
	}
	return nil
}

// step walks on through at most n rows, stopping at the want-th match. The rows are read in
// index order (namespace_id, updated_at DESC, record_id) after the cursor; only matches and
// the chunk's last row come back, in walk order.
func (wk *searchWalk) step(ctx context.Context, n, want int) error {
	inner := &where{}
	inner.add("namespace_id = ?", wk.namespaceID)
	if wk.from > 0 {
		inner.add("updated_at >= ?", wk.from)
	}
	if c := wk.cursor; c != nil {
		// Rows after the cursor in (updated_at DESC, record_id) order; the first condition bounds
		// the index range, the second skips the rows of the cursor's own instant already walked.
		inner.add("updated_at <= ?", c.updated)
		inner.add("NOT (updated_at = ? AND record_id <= ?)", c.updated, c.id)
	}
	match := "TRUE"
	if len(wk.filter.conds) > 0 {
		match = strings.Join(wk.filter.conds, " AND ")
	}
	// No ORDER BY outside: the window's rows stream in walk order, and the outer LIMIT stops the
	// walk at the want-th match (an ORDER BY would make Postgres walk the whole chunk first).
	// The order is checked below.
	q := `SELECT record_id, updated_at, m, rn FROM (
		SELECT r.record_id, r.updated_at, (` + match + `) AS m, row_number() OVER (ORDER BY r.updated_at DESC, r.record_id) AS rn
		FROM (SELECT record_id, registry_id, registry_name, record_name, state, valid_till, created_at, updated_at, search_text
			FROM records` + inner.sql() + ` ORDER BY updated_at DESC, record_id LIMIT ?) r
		) x WHERE m OR rn = ? LIMIT ?`
	args := append(append(append([]any{}, wk.filter.args...), inner.args...), n, n, want)
	rows, err := wk.s.rawRows(ctx, q, args...)
	if err != nil {
		return translate(err, "search")
	}
	defer rows.Close()
	var last searchKey
	lastRN, got := 0, 0
	for rows.Next() {
		var k searchKey
		var m bool
		var rn int
		if err := rows.Scan(&k.id, &k.updated, &m, &rn); err != nil {
			return translate(err, "search")
		}
		if rn <= lastRN {
			return fmt.Errorf("search: walk rows out of order (%d after %d)", rn, lastRN)
		}
		if m {
			wk.found = append(wk.found, k)
		}
		last, lastRN = k, rn
		got++
	}
	if err := rows.Err(); err != nil {
		return translate(err, "search")
	}
	switch {
	case lastRN == n, got == want:
		// The chunk's end, or the want-th match: the walk goes on after it.
		wk.cursor = &last
		wk.walked += lastRN
	default:
		wk.ended = true
	}
	return nil
}
