package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/cases"
	sqlite "modernc.org/sqlite"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
)

// Separators of search_text: an entry is "\x1e<path>\x1f<value>", the text ends with "\x1e".
const (
	entrySep = "\x1e"
	valueSep = "\x1f"
)

// SearchText renders details for search: one case-folded entry per scalar, array elements under
// the array's own path, in a stable order. Scalars are written as their JSON text without
// quotes (strings as they are, numbers in ECMAScript form, true, false, null). The separator
// characters cannot be searched (they are blanked inside values).
func SearchText(details map[string]any) string { return renderSearchText(details, fold) }

// renderSearchText is SearchText with the case mapping as a parameter (the migration tests
// render the text of earlier releases, which lowercased).
func renderSearchText(details map[string]any, caseMap func(string) string) string {
	var b strings.Builder
	b.WriteString(entrySep)
	writeSearch(&b, "", details, caseMap)
	return b.String()
}

var blankSeps = strings.NewReplacer(entrySep, " ", valueSep, " ")

// folder is Unicode full case folding (golang.org/x/text/cases; stateless and safe for
// concurrent use): ß and SS both fold to ss, Σ, σ and the final ς all to σ.
var folder = cases.Fold()

// fold maps text to its Unicode case-folded form, the form both the stored search text and
// every search value and name filter are compared in, on both dialects. Unlike lowercasing,
// two strings that differ only in case always fold to the same string.
func fold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return folder.String(s)
		}
	}
	return strings.ToLower(s) // ASCII folds to its lowercase
}

// foldNeedle is the folded form of a search value as it is looked for in the search text.
func foldNeedle(v string) string { return fold(blankSeps.Replace(v)) }

func writeSearch(b *strings.Builder, path string, v any, caseMap func(string) string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			writeSearch(b, p, x[k], caseMap)
		}
	case []any:
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				continue // only scalar elements of an array match at the array's path
			}
			writeSearch(b, path, e, caseMap)
		}
	default:
		if path == "" {
			return
		}
		b.WriteString(caseMap(blankSeps.Replace(path)))
		b.WriteString(valueSep)
		b.WriteString(caseMap(blankSeps.Replace(scalarText(x))))
		b.WriteString(entrySep)
	}
}

func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case string:
		return x
	case float64:
		s, err := proof.FormatNumber(x)
		if err != nil {
			return ""
		}
		return s
	default:
		return fmt.Sprint(x)
	}
}

// FieldMatches reports whether search_text has an entry at path (folded) whose value
// contains needle (folded, foldNeedle): the one definition of a details match, used by SQLite through
// svc_field_match and by tests.
func FieldMatches(text, path, needle string) bool {
	prefix := entrySep + path + valueSep
	for i := 0; ; {
		j := strings.Index(text[i:], prefix)
		if j < 0 {
			return false
		}
		start := i + j + len(prefix)
		end := strings.Index(text[start:], entrySep)
		if end < 0 {
			return false
		}
		if strings.Contains(text[start:start+end], needle) {
			return true
		}
		i = start + end
	}
}

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
			if text := SearchText(details); text != r.text {
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
			if FieldMatches(text, path, needle) {
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
