package proof

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// addSeeds seeds a fuzz corpus with the conformance vectors (when readable) and with texts at
// the edges of what ParseJSON admits.
func addSeeds(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2.5e-7,"x\u2028"],"b":{"c":null}}`,
		`"\ud83d\ude00"`, `["\ud800"]`, `["\udc00\ud800"]`, `{"a":"\u0000"}`, "[\"\x00\"]",
		`[1e21,-0,0.1,1e400,1e-400,123456789012345678901234567890]`,
		`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `[[[[[[[[]]]]]]]]`, `{} x`, "\xff", "[\"\xed\xa0\x80\"]",
		`{"\uffff":1,"😀":2,"\ue000":3}`, ` [ "\/\b\f\n\r\t" , true , false , null ] `,
	} {
		f.Add([]byte(s))
	}
	vs, _ := readVectors()
	for _, v := range vs {
		f.Add([]byte(v.Input))
		f.Add([]byte(v.Canonical))
	}
}

// FuzzCanonicalize: whatever the parser admits canonicalizes, and canonicalization is
// idempotent: the canonical text parses back to a value with the same canonical text.
func FuzzCanonicalize(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeJSON(data, 64)
		if err != nil {
			return
		}
		c1, err := Canonicalize(v)
		if err != nil {
			t.Fatalf("admitted value does not canonicalize: %v", err)
		}
		v2, err := decodeJSON(c1, 64)
		if err != nil {
			t.Fatalf("canonical text %q does not parse: %v", c1, err)
		}
		c2, err := Canonicalize(v2)
		if err != nil || !bytes.Equal(c1, c2) {
			t.Fatalf("not idempotent:\n%q\n%q (%v)", c1, c2, err)
		}
		if DigestBytes(c1) != DigestBytes(c2) {
			t.Fatal("digests differ")
		}
	})
}

// FuzzParseJSON: the parser never panics; every refusal is a *ParseError; what it admits is
// valid JSON that encoding/json decodes to the same value, and re-parses to that value from
// its canonical text.
func FuzzParseJSON(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data, 32)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(data) {
				t.Fatalf("refusal %#v is not a *ParseError with an offset in the input", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("admitted invalid JSON %q", data)
		}
		// encoding/json agrees on every text ParseJSON admits: valid UTF-8, paired surrogates,
		// no duplicate keys, so nothing is replaced or overwritten.
		var std any
		if err := json.Unmarshal(data, &std); err != nil {
			t.Fatalf("encoding/json refused admitted %q: %v", data, err)
		}
		if !reflect.DeepEqual(v, std) {
			t.Fatalf("ParseJSON and encoding/json disagree on %q:\n%#v\n%#v", data, v, std)
		}
		c, err := Canonicalize(v)
		if err != nil {
			t.Fatalf("admitted value does not canonicalize: %v", err)
		}
		again, err := ParseJSON(c, 32)
		if err != nil {
			t.Fatalf("canonical text %q of admitted %q is refused: %v", c, data, err)
		}
		if !reflect.DeepEqual(v, again) { // -0 == 0 for DeepEqual, as the canonical text is "0"
			t.Fatalf("canonical text %q re-parses to %#v, not %#v", c, again, v)
		}
	})
}
