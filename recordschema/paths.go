package recordschema

import (
	"regexp"
	"strings"
)

// detailsPath is a dotted path into a record's details: names of letters, digits, _ and -,
// joined by dots (search parameters and CSV columns).
var detailsPath = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

// IsDetailsPath reports whether p is a dotted details path.
func IsDetailsPath(p string) bool { return len(p) <= 256 && detailsPath.MatchString(p) }

// IsPathSegment reports whether a details key can be one name of a dotted path.
func IsPathSegment(k string) bool { return k != "" && !strings.Contains(k, ".") && IsDetailsPath(k) }

// PathType is the JSON type a schema gives the value at a dotted path, following "properties"
// of objects: "string", "number", "integer", "boolean", "array", "object" or "null"; "" when
// the schema does not say, or allows more than one type there.
func PathType(schema map[string]any, path string) string {
	cur := schema
	for _, seg := range strings.Split(path, ".") {
		props, _ := cur["properties"].(map[string]any)
		next, ok := props[seg].(map[string]any)
		if !ok {
			return ""
		}
		cur = next
	}
	t, _ := cur["type"].(string)
	return t
}
