package proof

import (
	"errors"
	"strings"
	"testing"
)

func TestParseExactJSONRefusesNumbersItWouldChange(t *testing.T) {
	refused := []struct{ text, ptr string }{
		{`{"details":{"n":9007199254740993}}`, "/details/n"},
		{`{"details":{"n":-9007199254740993}}`, "/details/n"},
		{`{"n":9007199254740992}`, "/n"},        // 2^53 itself: its neighbour would read the same
		{`{"n":12345678901234567890123}`, "/n"}, // more than 18 digits
		{`{"a":[1,{"b":18014398509481985}]}`, "/a/1/b"},
		{`{"n":9007199254740993.0}`, "/n"},
		{`{"n":3.14159265358979323846}`, "/n"},
		{`{"n":0.10000000000000000001}`, "/n"},
		{`{"n":1e-400}`, "/n"},
		{`{"n":123456789012345678e-2}`, "/n"},
		{`{"n":1e-99999999999}`, "/n"},
		{`{"n":1e20}`, "/n"}, // an integer stored as such, beyond 2^53−1
		{`{"n":9007199254740992.5}`, "/n"},
		{`{"n":9007199254740992.0}`, "/n"},
	}
	for _, tc := range refused {
		_, err := ParseExactJSON([]byte(tc.text), 64)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Pointer != tc.ptr || !strings.Contains(pe.Error(), "exactly") {
			t.Errorf("%s: %v; want a refusal at %s", tc.text, err, tc.ptr)
		}
		if _, err := ParseJSON([]byte(tc.text), 64); err != nil {
			t.Errorf("%s: ParseJSON (JSON.parse reading) refused it: %v", tc.text, err)
		}
	}
	kept := map[string]string{
		`9007199254740991`: "9007199254740991", `-9007199254740991`: "-9007199254740991",
		`0`: "0", `-0`: "0", `1.0`: "1", `1E2`: "100", `0.1`: "0.1", `1.5`: "1.5", `-0.000`: "0",
		`1e21`: "1e+21", `6.02214076e23`: "6.02214076e+23",
		`0.30000000000000004`: "0.30000000000000004", `5e-324`: "5e-324", `1.7976931348623157e308`: "1.7976931348623157e+308",
		`0e-99999999999`: "0", `123.4500`: "123.45", `1000000000000000000000`: "1e+21",
	}
	for text, want := range kept {
		v, err := ParseExactJSON([]byte(text), 64)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		got, _ := FormatNumber(v.(float64))
		if got != want {
			t.Errorf("%s: stored as %s, want %s", text, got, want)
		}
	}
}

// FuzzParseExactJSONTakesBackWhatItStores: the stored form of every number it accepts is
// accepted again with the same value, so that a client can send back what a lookup showed.
func FuzzParseExactJSONTakesBackWhatItStores(f *testing.F) {
	for _, s := range []string{"0", "1.5", "9007199254740991", "1e21", "6.02214076e23", "5e-324", "0.1", "-1.25e-7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseExactJSON([]byte(text), 1)
		n, isNum := v.(float64)
		if err != nil || !isNum {
			return
		}
		stored, _ := FormatNumber(n)
		w, err := ParseExactJSON([]byte(stored), 1)
		if err != nil || w.(float64) != n {
			t.Fatalf("%s is stored as %s, which reads back as %v, %v", text, stored, w, err)
		}
	})
}
