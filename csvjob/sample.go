package csvjob

import (
	"math"
	"sort"
	"strings"

	"github.com/svc-directory/svc/recordschema"
)

// SampleName is the record_name of a sample file's example row.
const SampleName = "example-1"

// Sample is a registry's CSV template (docs/csv.md, "A sample file"): a header of
// record_name, record_state and one column per leaf of the schema's properties (objects with
// properties are followed into their dotted paths; a property whose name cannot be a column is
// left out), and one example row whose values the schema accepts when it can: each field's
// first example, its default, its const or its first enum value, else a value of its type
// (meeting its format, bounds and lengths). When every field together does not validate, the
// row keeps the required fields only; a schema the generator cannot satisfy (a pattern, say)
// still gets its row, to be fixed by hand. The cells are written as the export writes them.
func Sample(schema map[string]any) (header, row []string, err error) {
	var paths []string
	leaves(schema, "", &paths)
	sort.Strings(paths)
	header = append([]string{NameColumn, StateColumn}, paths...)
	details := example(schema, false)
	if compiled, cerr := recordschema.Compile(schema); cerr == nil && compiled.Validate(details) != nil {
		details = example(schema, true)
	}
	row, err = Row(header, schema, SampleName, "live", details)
	return header, row, err
}

// properties is a schema's properties whose names can be columns, and its required names.
func properties(schema map[string]any) (map[string]map[string]any, map[string]bool) {
	props := map[string]map[string]any{}
	raw, _ := schema["properties"].(map[string]any)
	for k, v := range raw {
		sub, ok := v.(map[string]any)
		if ok && recordschema.IsPathSegment(k) && k != NameColumn && k != StateColumn {
			props[k] = sub
		}
	}
	required := map[string]bool{}
	list, _ := schema["required"].([]any)
	for _, r := range list {
		if s, ok := r.(string); ok {
			required[s] = true
		}
	}
	return props, required
}

// nested reports whether a property is followed into its dotted paths.
func nested(sub map[string]any) bool {
	props, _ := properties(sub)
	return len(props) > 0 && schemaType(sub) == "object"
}

func leaves(schema map[string]any, prefix string, out *[]string) {
	props, _ := properties(schema)
	for k, sub := range props {
		if nested(sub) {
			leaves(sub, prefix+k+".", out)
			continue
		}
		*out = append(*out, prefix+k)
	}
}

// example is a details object for an object schema: every property (or, requiredOnly, the
// required ones) with an example value.
func example(schema map[string]any, requiredOnly bool) map[string]any {
	out := map[string]any{}
	props, required := properties(schema)
	for k, sub := range props {
		if requiredOnly && !required[k] {
			continue
		}
		if nested(sub) {
			out[k] = example(sub, requiredOnly)
			continue
		}
		out[k] = exampleValue(sub)
	}
	return out
}

// schemaType is a schema's type: its type, or the first non-null of its list of types.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok && str != "null" {
				return str
			}
		}
	}
	return ""
}

func exampleValue(s map[string]any) any {
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	for _, k := range []string{"default", "const"} {
		if v, ok := s[k]; ok {
			return v
		}
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch schemaType(s) {
	case "integer":
		return number(s, 1, true)
	case "number":
		return number(s, 1, false)
	case "boolean":
		return true
	case "null":
		return nil
	case "object":
		return map[string]any{}
	case "array":
		items, _ := s["items"].(map[string]any)
		if items == nil {
			return []any{}
		}
		return []any{exampleValue(items)}
	}
	return text(s)
}

// number is a value within the schema's bounds, a multiple of its multipleOf.
func number(s map[string]any, v float64, integer bool) float64 {
	if m, ok := s["minimum"].(float64); ok && v < m {
		v = m
	}
	if m, ok := s["exclusiveMinimum"].(float64); ok && v <= m {
		v = m + 1
	}
	if m, ok := s["maximum"].(float64); ok && v > m {
		v = m
	}
	if m, ok := s["exclusiveMaximum"].(float64); ok && v >= m {
		v = m - 1
	}
	if m, ok := s["multipleOf"].(float64); ok && m > 0 {
		v = math.Ceil(v/m) * m
	}
	if integer {
		v = math.Ceil(v)
	}
	return v
}

// formats are example strings of the JSON Schema formats.
var formats = map[string]string{
	"email": "user@example.com", "idn-email": "user@example.com",
	"date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "time": "12:00:00Z", "duration": "P1D",
	"uri": "https://example.com/", "iri": "https://example.com/", "uri-reference": "https://example.com/",
	"iri-reference": "https://example.com/", "uri-template": "https://example.com/{id}",
	"hostname": "example.com", "idn-hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
	"uuid": "123e4567-e89b-42d3-a456-426614174000", "json-pointer": "/example", "relative-json-pointer": "0",
	"regex": "^example$",
}

// text is a string of the schema's format, or "example" fitted to its lengths.
func text(s map[string]any) string {
	if f, ok := s["format"].(string); ok {
		if v, ok := formats[f]; ok {
			return v
		}
	}
	v := "example"
	if m, ok := s["minLength"].(float64); ok && float64(len(v)) < m && m <= 1024 {
		v += strings.Repeat("x", int(m)-len(v))
	}
	if m, ok := s["maxLength"].(float64); ok && float64(len(v)) > m {
		v = v[:int(m)]
	}
	return v
}
