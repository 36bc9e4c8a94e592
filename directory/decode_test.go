package directory

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// DecodeObject reads every stored (canonical) text as encoding/json reads it, the reading it
// replaced: the same maps, slices, strings, float64 numbers, booleans and nulls.
func TestDecodeObjectReadsStoredTextsAsEncodingJSON(t *testing.T) {
	deep := any("leaf")
	for range 100 {
		deep = []any{deep}
	}
	objects := []map[string]any{
		{},
		{"name": "Ada", "n": 3.0, "ok": true, "none": nil},
		{"city": "München", "emoji": "😀 \u2028 \u00e9", "ctl": "tab\tnl\n\"q\" \\ \x01", "html": "<a>&</a>"},
		{"big": 9007199254740991.0, "neg": -12.5, "tiny": 5e-324, "huge": 1e300, "e21": 1e21, "frac": 0.1},
		{"max": math.MaxFloat64, "small": -1e-7, "zero": 0.0},
		{"nested": map[string]any{"a": []any{1.0, "two", map[string]any{"three": []any{}}}, "b": map[string]any{}}},
		{"deep": deep},
		{"": "empty key", "é": "key with an accent", "z": 1.0, "a": 2.0},
	}
	for _, obj := range objects {
		text, err := CanonicalText(obj)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{}
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeObject(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", text, got, want)
		}
	}
}

// A text the strict parser refuses is read by encoding/json, as before; one that is no object
// is refused as corrupt.
func TestDecodeObjectFallsBackToEncodingJSON(t *testing.T) {
	for _, text := range []string{`{"a":"\ud800"}`, `{"a":1,"a":2}`, `{"a": 1} `, `{"a":"\u0000"}`} {
		want := map[string]any{}
		if err := json.Unmarshal([]byte(text), &want); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeObject(text)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, %v; want %#v", text, got, err, want)
		}
	}
	for _, text := range []string{`[1]`, `"s"`, `{"a":`, `{} {}`} {
		if _, err := DecodeObject(text); err == nil || !strings.Contains(err.Error(), "stored JSON is corrupt") {
			t.Errorf("%s: %v, want corrupt", text, err)
		}
	}
	if m, err := DecodeObject(""); err != nil || m == nil || len(m) != 0 {
		t.Errorf(`"": %#v, %v`, m, err)
	}
}
