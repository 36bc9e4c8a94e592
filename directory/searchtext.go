package directory

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"

	"github.com/svc-directory/svc/proof"
)

// The search text of a record: its details rendered as one case-folded entry per scalar, which
// the store keeps beside each record and searches (the store's search.go), and the one
// definition of a details match.

// Separators of search_text: an entry is "\x1e<path>\x1f<value>", the text ends with "\x1e".
const (
	EntrySep = "\x1e"
	ValueSep = "\x1f"
)

// SearchText renders details for search: one case-folded entry per scalar, array elements under
// the array's own path, in a stable order. Scalars are written as their JSON text without
// quotes (strings as they are, numbers in ECMAScript form, true, false, null). The separator
// characters cannot be searched (they are blanked inside values).
func SearchText(details map[string]any) string { return SearchTextWith(details, Fold) }

// SearchTextWith is SearchText with the case mapping as a parameter (the store's migration
// tests render the text of earlier releases, which lowercased).
func SearchTextWith(details map[string]any, caseMap func(string) string) string {
	var b strings.Builder
	b.WriteString(EntrySep)
	writeSearch(&b, "", details, caseMap)
	return b.String()
}

var blankSeps = strings.NewReplacer(EntrySep, " ", ValueSep, " ")

// folder is Unicode full case folding (golang.org/x/text/cases; stateless and safe for
// concurrent use): ß and SS both fold to ss, Σ, σ and the final ς all to σ.
var folder = cases.Fold()

// Fold maps text to its Unicode case-folded form, the form both the stored search text and
// every search value and name filter are compared in, on both dialects. Unlike lowercasing,
// two strings that differ only in case always fold to the same string.
func Fold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return folder.String(s)
		}
	}
	return strings.ToLower(s) // ASCII folds to its lowercase
}

// FoldNeedle is the folded form of a search value as it is looked for in the search text.
func FoldNeedle(v string) string { return Fold(blankSeps.Replace(v)) }

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
		b.WriteString(ValueSep)
		b.WriteString(caseMap(blankSeps.Replace(scalarText(x))))
		b.WriteString(EntrySep)
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
// contains needle (folded, FoldNeedle): the one definition of a details match, used by SQLite through
// svc_field_match and by tests.
func FieldMatches(text, path, needle string) bool {
	prefix := EntrySep + path + ValueSep
	for i := 0; ; {
		j := strings.Index(text[i:], prefix)
		if j < 0 {
			return false
		}
		start := i + j + len(prefix)
		end := strings.Index(text[start:], EntrySep)
		if end < 0 {
			return false
		}
		if strings.Contains(text[start:start+end], needle) {
			return true
		}
		i = start + end
	}
}
