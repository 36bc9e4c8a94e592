package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync"

	sqlite "modernc.org/sqlite"

	"github.com/svc-directory/svc/directory"
)

// refoldSearchText re-renders the search text of every record from its details (migration 5:
// earlier releases lowercased, search now compares case-folded text). Records are read in
// chunks in key order; only rows whose text changes are written (ASCII text lowercases and
// folds alike, so most rows are only read).
func refoldSearchText(ctx context.Context, s *Store, tx *sql.Tx) error {
	const chunk = 2000
	type row struct {
		id, details, text string
	}
	after, seen, changed := "", 0, 0
	for {
		rows, err := tx.QueryContext(ctx, s.d.rebind(`SELECT record_id, details, search_text FROM records WHERE record_id > ? ORDER BY record_id LIMIT ?`), after, chunk)
		if err != nil {
			return fmt.Errorf("refold search text: %w", err)
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.details, &r.text); err != nil {
				rows.Close()
				return fmt.Errorf("refold search text: %w", err)
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("refold search text: %w", err)
		}
		for _, r := range batch {
			details, err := directory.DecodeObject(r.details)
			if err != nil {
				return fmt.Errorf("refold search text of record %s: %w", r.id, err)
			}
			if text := directory.SearchText(details); text != r.text {
				if _, err := tx.ExecContext(ctx, s.d.rebind(`UPDATE records SET search_text = ? WHERE record_id = ?`), text, r.id); err != nil {
					return fmt.Errorf("refold search text of record %s: %w", r.id, err)
				}
				changed++
			}
		}
		seen += len(batch)
		if len(batch) < chunk {
			break
		}
		after = batch[len(batch)-1].id
	}
	s.log.InfoContext(ctx, "search text refolded", "records", seen, "changed", changed)
	return nil
}

var registerOnce sync.Once

// registerSQLiteFunctions adds the Go functions the SQLite dialect's queries use.
func registerSQLiteFunctions() {
	registerOnce.Do(func() {
		sqlite.MustRegisterDeterministicScalarFunction("svc_field_match", 3, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			text, _ := args[0].(string)
			path, _ := args[1].(string)
			needle, _ := args[2].(string)
			if directory.FieldMatches(text, path, needle) {
				return int64(1), nil
			}
			return int64(0), nil
		})
		sqlite.MustRegisterDeterministicScalarFunction("svc_lower", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			if s, ok := args[0].(string); ok {
				return strings.ToLower(s), nil
			}
			return args[0], nil // NULL stays NULL
		})
	})
}

// fieldMatch adds the conditions of one details condition (path, needle: folded) of a search;
// walked: the conditions test the rows of a walk, where no index is at stake.
//
// With the trigram index (Postgres), the index finds the rows that contain the value's index
// word, and a regular expression checks path and value in one entry. The exact check never uses
// the trigram index: written on an expression that is not the indexed one, it would only repeat
// the LIKE's work. With the full-text index (SQLite), instr (C) discards most rows before the
// exact check (a Go function) runs.
func (s *Store) fieldMatch(w *where, path, needle string, walked bool) {
	if s.d.textIndex() != textIndexTrigram {
		w.add("instr(r.search_text, ?) > 0", needle)
		w.add("svc_field_match(r.search_text, ?, ?) = 1", path, needle)
		return
	}
	exactCol := "(r.search_text || '')"
	switch word := indexWord(needle); {
	case walked:
		exactCol = "r.search_text"
		if word != "" {
			w.add("strpos(r.search_text, ?) > 0", word) // cheaper per row than LIKE
		}
	case word != "":
		w.add("r.search_text LIKE ? ESCAPE '\\'", "%"+escapeLike(word)+"%")
	}
	re := directory.EntrySep + pgRegexQuote.ReplaceAllString(path, `\$0`) + directory.ValueSep + "[^" + directory.EntrySep + "]*" +
		pgRegexQuote.ReplaceAllString(needle, `\$0`)
	w.add(exactCol+" ~ ?", re)
}
