// Package csvjob imports records from CSV files as background jobs and exports a registry's
// records as CSV in the same layout (docs/csv.md).
//
// The layout: a header row holding record_name and one dotted details path per other column
// (address.city); each further row is one record. A cell is typed by the registry's schema at
// its path: a string path takes the cell as it is, unless it is in quotation marks and reads as
// a JSON string, which it then is; number, integer and boolean paths parse it;
// array and object paths take JSON. A path the schema does not type takes the cell as JSON
// when it is JSON (a number, true, false, null, an array, an object or a "quoted string"), else
// as the string it is. An empty cell leaves the field out; the cell "" is the empty string.
package csvjob

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/recordschema"
)

// NameColumn is the column of the record name; StateColumn the column of the state the record
// reads as (docs/csv.md). Neither can be a details path: a top-level details key of either
// name cannot be exported.
const (
	NameColumn  = "record_name"
	StateColumn = "record_state"
)

// Layout is the columns of a file: the record name's index, the state's (-1 when the file has
// none) and the details paths of the others.
type Layout struct {
	name, state int
	columns     []string // the header's columns as read
	paths       []string // "" at the name's and the state's index
	types       []string // the schema's type of each path
	errorColumn bool     // a last column error (a failed-rows file's) follows, and is ignored
}

// ErrorColumn is the last column of a job's failed rows (failed.go): why each row was
// refused. An upload ignores a last column of that name, unless the registry's schema declares
// a top-level details field of that name, in which case it is that field's column.
const ErrorColumn = "error"

// ParseHeader checks a header row against a registry's schema: record_name exactly once,
// record_state at most once, every other column a dotted details path, none twice, and none
// inside another (a and a.b). A last column error is ignored unless the schema declares the
// field error (ErrorColumn).
func ParseHeader(header []string, schema map[string]any) (*Layout, error) {
	l := &Layout{name: -1, state: -1}
	if n := len(header); n > 1 && headerName(header[n-1]) == ErrorColumn && !declares(schema, ErrorColumn) {
		header, l.errorColumn = header[:n-1], true
	}
	l.columns, l.paths, l.types = make([]string, len(header)), make([]string, len(header)), make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		h = headerName(h)
		l.columns[i] = h
		if err := proof.CheckText(h); err != nil {
			return nil, fmt.Errorf("header column %d: %v", i+1, err)
		}
		switch {
		case (h == NameColumn && l.name >= 0) || (h == StateColumn && l.state >= 0):
			return nil, fmt.Errorf("the header names %s twice", h)
		case h == NameColumn:
			l.name = i
			continue
		case h == StateColumn:
			l.state = i
			continue
		case !recordschema.IsDetailsPath(h):
			return nil, fmt.Errorf("header column %d (%.60q) is not a details path (names of letters, digits, _ and -, joined by dots)", i+1, h)
		case seen[h]:
			return nil, fmt.Errorf("the header names %s twice", h)
		}
		seen[h] = true
		l.paths[i], l.types[i] = h, recordschema.PathType(schema, h)
	}
	if l.name < 0 {
		return nil, errors.New("the header has no record_name column")
	}
	for p := range seen {
		for q := range seen {
			if strings.HasPrefix(q, p+".") {
				return nil, fmt.Errorf("the header names both %s and %s, which lies inside it", p, q)
			}
		}
	}
	return l, nil
}

// headerName is a header cell as the upload reads it.
func headerName(h string) string {
	return unneutralise(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
}

// declares reports whether schema's top-level properties name field.
func declares(schema map[string]any, field string) bool {
	props, _ := schema["properties"].(map[string]any)
	_, ok := props[field]
	return ok
}

// Columns is the header's columns as the upload reads them (an ignored error column left out).
func (l *Layout) Columns() []string { return append([]string(nil), l.columns...) }

// Cells is a copy of a row's cells under Columns (an ignored error column's cell left out).
func (l *Layout) Cells(row []string) []string {
	if l.errorColumn && len(row) == len(l.paths)+1 {
		row = row[:len(l.paths)]
	}
	return append([]string(nil), row...)
}

// Record turns one row into a record name, the state it is imported in (live or draft) and
// its details; the error says which column is wrong. Each cell is read without the mark the
// export puts before a cell a spreadsheet would run (formula.go). A record_state other than
// live or draft (empty: live) refuses the row: an export's suspended, revoked or expired
// record is never re-created live.
func (l *Layout) Record(row []string) (name, state string, details map[string]any, err error) {
	if l.errorColumn && len(row) == len(l.paths)+1 {
		row = row[:len(l.paths)]
	}
	if len(row) != len(l.paths) {
		return "", "", nil, fmt.Errorf("the row has %d cells, the header %d", len(row), len(l.paths))
	}
	details = map[string]any{}
	state = directory.StateLive
	for i, cell := range row {
		if err := proof.CheckText(cell); err != nil {
			return "", "", nil, fmt.Errorf("column %d: %v", i+1, err)
		}
		cell = unneutralise(cell)
		switch {
		case i == l.name:
			name = cell
			continue
		case i == l.state:
			if state, err = importState(cell); err != nil {
				return "", "", nil, err
			}
			continue
		case cell == "":
			continue
		}
		v, err := cellValue(cell, l.types[i])
		if err != nil {
			return "", "", nil, fmt.Errorf("%s: %v", l.paths[i], err)
		}
		setPath(details, l.paths[i], v)
	}
	return name, state, details, nil
}

// importState is the state a record_state cell imports a record in.
func importState(cell string) (string, error) {
	switch cell {
	case "", directory.StateLive:
		return directory.StateLive, nil
	case directory.StateDraft:
		return directory.StateDraft, nil
	case directory.StateSuspended, directory.StateRevoked, directory.StateExpired:
		return "", fmt.Errorf("record_state is %s: only live and draft records are imported (a %s record is not re-created)", cell, cell)
	}
	return "", fmt.Errorf("record_state %.40q is not live or draft", cell)
}

func cellValue(cell, typ string) (any, error) {
	if cell == `""` {
		return "", nil
	}
	switch typ {
	case "string":
		// A cell in quotation marks that reads as a JSON string is that string (so that any
		// string, one in quotation marks included, can be written); any other cell is itself.
		if len(cell) >= 2 && cell[0] == '"' && cell[len(cell)-1] == '"' {
			if v, err := proof.ParseExactJSON([]byte(cell), 1); err == nil {
				if str, ok := v.(string); ok {
					return str, nil
				}
			}
		}
		return cell, nil
	case "number", "integer":
		// Read as JSON reads it, with the same exactness rule as a JSON body (an integer beyond
		// 2^53-1, or more digits than a float64 keeps, is refused rather than rounded).
		v, err := proof.ParseExactJSON([]byte(cell), 1)
		if _, ok := v.(float64); err != nil || !ok {
			if err != nil && strings.Contains(err.Error(), "number") {
				return nil, fmt.Errorf("%.40q: %v", cell, err)
			}
			return nil, fmt.Errorf("%.40q is not a number", cell)
		}
		return v, nil
	case "boolean":
		switch strings.TrimSpace(cell) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("%.40q is not true or false", cell)
	case "array", "object", "null":
		v, err := proof.ParseExactJSON([]byte(cell), 32)
		if err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
		return v, nil
	}
	if v, err := proof.ParseExactJSON([]byte(cell), 32); err == nil {
		return v, nil
	}
	return cell, nil
}

func setPath(m map[string]any, path string, v any) {
	segs := strings.Split(path, ".")
	for _, s := range segs[:len(segs)-1] {
		next, ok := m[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[s] = next
		}
		m = next
	}
	m[segs[len(segs)-1]] = v
}

// ErrNotAColumn: a top-level details key that no CSV column can name.
var ErrNotAColumn = errors.New("a details key cannot be a CSV column")

// Columns collects the columns of an export: the paths of details' leaves (values that are
// not objects, empty objects, and objects with a key that cannot be a path name, which are
// written whole as JSON). A top-level key that cannot be a column is an error.
type Columns struct{ set map[string]bool }

// NewColumns starts an empty collection.
func NewColumns() *Columns { return &Columns{set: map[string]bool{}} }

// Add takes the leaves of one record's details.
func (c *Columns) Add(details map[string]any) error {
	for k, v := range details {
		if !recordschema.IsPathSegment(k) {
			return fmt.Errorf("%w: the details key %.60q (column names are letters, digits, _ and -)", ErrNotAColumn, k)
		}
		if k == NameColumn || k == StateColumn {
			return fmt.Errorf("%w: the details key %s (the column of the record's own %s)", ErrNotAColumn, k, strings.TrimPrefix(k, "record_"))
		}
		c.add(k, v)
	}
	return nil
}

func (c *Columns) add(path string, v any) {
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		c.set[path] = true
		return
	}
	for k := range obj {
		if !recordschema.IsPathSegment(k) {
			c.set[path] = true
			return
		}
	}
	for k, child := range obj {
		c.add(path+"."+k, child)
	}
}

// Header is the export's header: record_name, record_state, then the paths in order, each
// path that lies inside another left out (the outer one is written whole).
func (c *Columns) Header() []string {
	var paths []string
	for p := range c.set {
		inside := false
		for q := range c.set {
			if strings.HasPrefix(p, q+".") {
				inside = true
				break
			}
		}
		if !inside {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return append([]string{NameColumn, StateColumn}, paths...)
}

// Row is one record's row under header, its cells written so that ParseHeader and Record read
// the same name, state and details back (typed by the same schema), each cell that a
// spreadsheet would run as a formula neutralised (formula.go).
func Row(header []string, schema map[string]any, name, state string, details map[string]any) ([]string, error) {
	row := make([]string, len(header))
	for i, p := range header {
		switch p {
		case NameColumn:
			row[i] = neutralise(name)
			continue
		case StateColumn:
			row[i] = state
			continue
		}
		v, ok := getPath(details, p)
		if !ok {
			continue
		}
		cell, err := cellText(v, recordschema.PathType(schema, p))
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %v", p, name, err)
		}
		row[i] = neutralise(cell)
	}
	return row, nil
}

func getPath(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, s := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[s]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func cellText(v any, typ string) (string, error) {
	if s, ok := v.(string); ok {
		switch {
		case s == "":
			return `""`, nil
		case typ == "string":
			if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
				return s, nil
			}
			// In quotation marks it would read as a JSON string: written as one.
		case typ == "":
			// Untyped: a string that reads as JSON is written as a JSON string.
			if _, err := proof.ParseExactJSON([]byte(s), 32); err != nil {
				return s, nil
			}
		}
	}
	b, err := proof.Canonicalize(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
