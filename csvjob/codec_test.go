package csvjob

import (
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
		row, err := Row(header, testSchema, "r", d)
		if err != nil {
			t.Fatal(err)
		}
		name, got, err := layout.Record(row)
		if err != nil || name != "r" {
			t.Fatalf("record %d: %v", i, err)
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
		if _, _, err := l.Record(row); err == nil {
			t.Errorf("row %q was taken", row)
		}
	}
	// A string column takes a cell in quotation marks as the JSON string it reads as, and
	// anything else as it is.
	for cell, want := range map[string]string{`"quoted"`: "quoted", `""`: "", `"a"b"`: `"a"b"`, `"x`: `"x`, `a "b"`: `a "b"`} {
		_, d, err := l2.Record([]string{"r", cell})
		if err != nil || d["email"] != want {
			t.Errorf("email cell %q reads %q (%v), want %q", cell, d["email"], err, want)
		}
	}
	if err := NewColumns().Add(map[string]any{"a key": 1.0}); err == nil {
		t.Fatal("a top-level key with a space became a column")
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
		if _, _, err := l.Record([]string{"r", c.age, c.score}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("age %q score %q: %v", c.age, c.score, err)
		}
	}
	_, d, err := l.Record([]string{"r", "9007199254740991", "-1.5e-3"})
	if err != nil || d["age"] != 9007199254740991.0 || d["score"] != -0.0015 {
		t.Fatalf("exact numbers: %v, %v", d, err)
	}
}
