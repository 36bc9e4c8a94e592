package store

import (
	"database/sql/driver"
	"fmt"
	"sort"
	"strings"
	"sync"

	sqlite "modernc.org/sqlite"

	"github.com/svc-directory/svc/proof"
)

// Separators of search_text: an entry is "\x1e<path>\x1f<value>", the text ends with "\x1e".
const (
	entrySep = "\x1e"
	valueSep = "\x1f"
)

// SearchText renders details for search: one lowercased entry per scalar, array elements under
// the array's own path, in a stable order. Scalars are written as their JSON text without
// quotes (strings as they are, numbers in ECMAScript form, true, false, null). The separator
// characters cannot be searched (they are blanked inside values).
func SearchText(details map[string]any) string {
	var b strings.Builder
	b.WriteString(entrySep)
	writeSearch(&b, "", details)
	return b.String()
}

var blankSeps = strings.NewReplacer(entrySep, " ", valueSep, " ")

func writeSearch(b *strings.Builder, path string, v any) {
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
			writeSearch(b, p, x[k])
		}
	case []any:
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				continue // only scalar elements of an array match at the array's path
			}
			writeSearch(b, path, e)
		}
	default:
		if path == "" {
			return
		}
		b.WriteString(strings.ToLower(blankSeps.Replace(path)))
		b.WriteString(valueSep)
		b.WriteString(strings.ToLower(blankSeps.Replace(scalarText(x))))
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

// FieldMatches reports whether search_text has an entry at path (lowercased) whose value
// contains needle (lowercased): the one definition of a details match, used by SQLite through
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
		sqlite.MustRegisterDeterministicScalarFunction("svc_icontains", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			h, _ := args[0].(string)
			n, _ := args[1].(string)
			if strings.Contains(strings.ToLower(h), n) {
				return int64(1), nil
			}
			return int64(0), nil
		})
	})
}
