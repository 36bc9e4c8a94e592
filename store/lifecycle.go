package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/svc-directory/svc/directory"
)

// withRegistryStates sets the RegistryState of records read without their registry (lists
// and searches), in one query for the registries they belong to.
func (s *Store) withRegistryStates(ctx context.Context, recs []directory.Record) error {
	ids := map[string]bool{}
	var args []any
	for _, r := range recs {
		if !ids[r.RegistryID] {
			ids[r.RegistryID] = true
			args = append(args, r.RegistryID)
		}
	}
	if len(args) == 0 {
		return nil
	}
	rows, err := s.rawRows(ctx, `SELECT registry_id, state FROM registries WHERE registry_id IN (?`+
		strings.Repeat(", ?", len(args)-1)+`)`, args...)
	if err != nil {
		return translate(err, "registry states")
	}
	defer rows.Close()
	states := map[string]string{}
	for rows.Next() {
		var id, state string
		if err := rows.Scan(&id, &state); err != nil {
			return translate(err, "registry states")
		}
		states[id] = state
	}
	for i := range recs {
		recs[i].RegistryState = states[recs[i].RegistryID]
	}
	return translate(rows.Err(), "registry states")
}

// effectiveStateFilter adds to w the condition that a record (r) reads as state at nowMS
// (Record.EffectiveState; a record of an origin-hosted registry whose file is stale or
// withdrawn reads as that when it would read as live or expired).
func effectiveStateFilter(w *where, state string, nowMS int64) {
	const inRevoked = "r.registry_id IN (SELECT registry_id FROM registries WHERE state = 'revoked')"
	switch state {
	case directory.StateRevoked:
		w.add("(r.state = ? OR "+inRevoked+")", directory.StateRevoked)
		return
	case directory.StateStale, directory.StateWithdrawn:
		w.add("r.state = ? AND "+inOriginFiles("?"), directory.StateLive, state)
	case directory.StateExpired:
		w.add("r.state = ? AND r.valid_till IS NOT NULL AND r.valid_till <= ? AND NOT "+inOriginFiles("'stale', 'withdrawn'"), directory.StateLive, nowMS)
	case directory.StateLive:
		w.add("r.state = ? AND (r.valid_till IS NULL OR r.valid_till > ?) AND NOT "+inOriginFiles("'stale', 'withdrawn'"), directory.StateLive, nowMS)
	default:
		w.add("r.state = ?", state)
	}
	w.add("r.registry_id NOT IN (SELECT registry_id FROM registries WHERE state = 'revoked')")
}

// inOriginFiles is the condition that a record (r) is of an origin-hosted registry whose
// file's state is among states (SQL: literals or a parameter).
func inOriginFiles(states string) string {
	return `r.registry_id IN (SELECT g.registry_id FROM registries g
		JOIN dedi_publishers p ON p.namespace_id = g.namespace_id
		JOIN dedi_files f ON f.domain = p.domain AND f.registry_name = g.registry_name
		WHERE f.state IN (` + states + `))`
}

// widenStateChecks lets the state columns of records and registries hold the lifecycle
// states (migration 14): records draft, live, suspended, revoked; registries live, inactive,
// archived, revoked. The lists are written out: a migration does not follow later edits.
func widenStateChecks(ctx context.Context, s *Store, tx *sql.Tx) error {
	return s.d.replaceStateChecks(ctx, tx, []stateCheck{
		{"records", []string{"draft", "live"}, []string{"draft", "live", "suspended", "revoked"}},
		{"record_versions", []string{"draft", "live"}, []string{"draft", "live", "suspended", "revoked"}},
		{"registries", []string{"live", "inactive"}, []string{"live", "inactive", "archived", "revoked"}},
		{"registry_versions", []string{"live", "inactive"}, []string{"live", "inactive", "archived", "revoked"}},
	})
}

// addDeletedState is migration 22: records and registries may be deleted (their CHECKs widened
// as migration 14's), namespaces get a state (live or deleted) in their heads and versions, the
// heads keep the reason of their latest delete, and a registry that a namespace's delete deleted
// keeps that version of the namespace (deleted_with), so that its restore restores it.
func addDeletedState(ctx context.Context, s *Store, tx *sql.Tx) error {
	if err := s.d.replaceStateChecks(ctx, tx, []stateCheck{
		{"records", []string{"draft", "live", "suspended", "revoked"}, []string{"draft", "live", "suspended", "revoked", "deleted"}},
		{"record_versions", []string{"draft", "live", "suspended", "revoked"}, []string{"draft", "live", "suspended", "revoked", "deleted"}},
		{"registries", []string{"live", "inactive", "archived", "revoked"}, []string{"live", "inactive", "archived", "revoked", "deleted"}},
		{"registry_versions", []string{"live", "inactive", "archived", "revoked"}, []string{"live", "inactive", "archived", "revoked", "deleted"}},
	}); err != nil {
		return err
	}
	for _, q := range []string{
		`ALTER TABLE namespaces ADD COLUMN state TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'deleted'))`,
		`ALTER TABLE namespace_versions ADD COLUMN state TEXT NOT NULL DEFAULT 'live' CHECK (state IN ('live', 'deleted'))`,
		`ALTER TABLE namespaces ADD COLUMN deleted_reason TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE registries ADD COLUMN deleted_reason TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE records ADD COLUMN deleted_reason TEXT NOT NULL DEFAULT ''`,
		`CREATE INDEX records_deleted ON records (registry_id, record_name) WHERE state = 'deleted'`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// stateCheck is the CHECK constraint of a table's state column, from the values it allowed
// to the values it allows.
type stateCheck struct {
	table    string
	from, to []string
}

// checkSQL is the constraint's text as the migrations write it: CHECK (state IN ('a', 'b')).
func checkSQL(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + v + "'"
	}
	return "CHECK (state IN (" + strings.Join(q, ", ") + "))"
}
