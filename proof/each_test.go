package proof

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseJSONEachAgreesWithParseJSON: ParseJSONEach accepts and refuses what ParseJSON does,
// with the same error; when it defers the member, each element it gives is ParseJSON's element,
// its span parses again into the same value, and the member reads as [].
func TestParseJSONEachAgreesWithParseJSON(t *testing.T) {
	docs := []struct {
		in       string
		deferred bool
	}{
		{`{"a":1,"records":[{"n":"x","d":{"k":[1,2]}},[],"s",3,null, {"e":"\u00e9\ud83d\ude00"} ],"z":{}}`, true},
		{`{"records":[]}`, true},
		{` { "records" : [ 1 ] } `, true},
		{`{"records":{"a":[1]}}`, false},           // not an array: parsed as it is
		{`{"x":{"records":[1,2]}}`, false},         // not a top-level member
		{`[{"records":[1]}]`, false},               // not an object
		{`"records"`, false},                       //
		{`{"records":[1,2],"records":[3]}`, false}, // duplicate key
		{`{"records":[1,{"a":1,"a":2}]}`, false},
		{`{"records":[1,"\u0000"]}`, false},
		{`{"records":[1,[[[[]]]]]}`, false}, // too deep (4)
		{`{"records":[[[]]],"b":[[[[]]]]}`, false},
		{`{"records":[1,]}`, false},
		{`{"records":[1 2]}`, false},
		{`{"records":[1`, false},
		{`{"records":[1]`, false},
		{`{"records":[1]} x`, false},
		{"{\"records\":[\"\xff\"]}", false},
	}
	for _, tc := range docs {
		want, wantErr := ParseJSON([]byte(tc.in), 4)
		var elems []any
		got, deferred, err := ParseJSONEach([]byte(tc.in), 4, "records", func(i int, v any, start, end int) {
			if i != len(elems) {
				t.Errorf("%s: element %d given as %d", tc.in, len(elems), i)
			}
			again, err := ParseJSON([]byte(tc.in)[start:end], 4)
			if err != nil || !reflect.DeepEqual(again, v) {
				t.Errorf("%s: element %d's span %q parses into %#v, %v; want %#v", tc.in, i, tc.in[start:end], again, err, v)
			}
			elems = append(elems, v)
		})
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("%s: error %v, ParseJSON's %v", tc.in, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if deferred != tc.deferred {
			t.Errorf("%s: deferred %v, want %v", tc.in, deferred, tc.deferred)
		}
		if deferred {
			m := want.(map[string]any)
			if !reflect.DeepEqual(elems, m["records"]) && !(len(elems) == 0 && len(m["records"].([]any)) == 0) {
				t.Errorf("%s: elements %#v, ParseJSON's %#v", tc.in, elems, m["records"])
			}
			m["records"] = []any{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, want %#v", tc.in, got, want)
		}
	}
}

// recordsText canonicalizes its elements one at a time, as TextAppender.
type recordsText []any

func (r recordsText) AppendCanonicalText(dst []byte) ([]byte, error) {
	dst = append(dst, '[')
	for i, v := range r {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = AppendCanonical(dst, v); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// TestTextAppenderWritesInPlace: a TextAppender's text takes the place of its value, the
// members around it sorted as ever.
func TestTextAppenderWritesInPlace(t *testing.T) {
	recs := []any{map[string]any{"b": 1.0, "a": "é"}, 2.5}
	want, err := Canonicalize(map[string]any{"z": true, "records": recs, "a": nil})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Canonicalize(map[string]any{"z": true, "records": recordsText(recs), "a": nil})
	if err != nil || string(got) != string(want) {
		t.Fatalf("%s, %v; want %s", got, err, want)
	}
	if _, err := Canonicalize(map[string]any{"r": recordsText{[]int{1}}}); err == nil || !strings.Contains(err.Error(), "unsupported type") {
		t.Fatalf("a refusal inside the appender: %v", err)
	}
}
