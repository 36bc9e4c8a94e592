package proof

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestFormatNumber holds ECMAScript Number::toString forms (as JSON.stringify prints them in
// node) of values at every boundary of the layout rules.
func TestFormatNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-1, "-1"},
		{0.1, "0.1"},
		{-0.5, "-0.5"},
		{0.30000000000000004, "0.30000000000000004"},
		{1.0 / 3, "0.3333333333333333"},
		{2.0 / 3, "0.6666666666666666"},
		{100, "100"},
		{4.35, "4.35"},
		{333333333.3333333, "333333333.3333333"},
		// Integer layout up to 21 digits, then exponent form.
		{1e20, "100000000000000000000"},
		{123456789012345680000, "123456789012345680000"},
		{999999999999999900000, "999999999999999900000"},
		{1e21, "1e+21"},
		{-1e21, "-1e+21"},
		{2.5e21, "2.5e+21"},
		{1e300, "1e+300"},
		{1.7976931348623157e308 / 10, "1.7976931348623158e+307"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{-math.MaxFloat64, "-1.7976931348623157e+308"},
		// Plain decimals down to 1e-6, then exponent form.
		{1e-6, "0.000001"},
		{0.000001234, "0.000001234"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"},
		{2.5e-8, "2.5e-8"},
		{123e-20, "1.23e-18"},
		{-1e-300, "-1e-300"},
		{math.SmallestNonzeroFloat64, "5e-324"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"}, // smallest normal
		{2.225073858507201e-308, "2.225073858507201e-308"},   // largest subnormal
		// Around 2^53, where integers stop being exact.
		{1 << 53, "9007199254740992"},
		{1<<53 + 2, "9007199254740994"},
		{-(1 << 53), "-9007199254740992"},
		{1<<53 - 1, "9007199254740991"},
		{1 << 60, "1152921504606847000"},
		{1 << 64, "18446744073709552000"},
		{1e15 + 0.5, "1000000000000000.5"},
		{123456.789, "123456.789"},
		{5e-7, "5e-7"},
		{0.00001, "0.00001"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			got, err := FormatNumber(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("FormatNumber(%v) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			back, err := strconv.ParseFloat(got, 64)
			if err != nil || back != tc.in {
				t.Fatalf("%q does not round-trip to %v", got, tc.in)
			}
		})
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if s, err := FormatNumber(bad); err == nil {
			t.Errorf("FormatNumber(%v) = %q, want an error", bad, s)
		}
	}
}

// TestFormatNumberRoundTrips checks random finite doubles: the text parses back to the same
// value and has ECMAScript's shape (node agrees on them in the differential test).
func TestFormatNumberRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s, err := FormatNumber(f)
		if err != nil {
			t.Fatal(err)
		}
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != f {
			t.Fatalf("FormatNumber(%v) = %q does not round-trip", f, s)
		}
		if strings.ContainsAny(s, "E+") && !strings.Contains(s, "e+") {
			t.Fatalf("FormatNumber(%v) = %q", f, s)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"null", nil, `null`},
		{"bools", []any{true, false}, `[true,false]`},
		{"short escapes", "\"\\\b\f\n\r\t", `"\"\\\b\f\n\r\t"`},
		{"other controls as lowercase \\u00xx", "\x00\x01\x07\x0b\x0e\x1a\x1f", `"\u0000\u0001\u0007\u000b\u000e\u001a\u001f"`},
		{"no HTML escaping", "</script>&<>'", `"</script>&<>'"`},
		{"solidus stays literal", "a/b", `"a/b"`},
		{"DEL and C1 stay literal", "\u007f\u0085\u009f", "\"\u007f\u0085\u009f\""},
		{"line and paragraph separators stay literal", "\u2028\u2029", "\"\u2028\u2029\""},
		{"BOM and noncharacters stay literal", "\ufeff\ufffe\uffff", "\"\ufeff\ufffe\uffff\""},
		{"supplementary characters stay literal", "😀𝄞👍🏽\U0010FFFF", "\"😀𝄞👍🏽\U0010FFFF\""},
		{"decomposed stays decomposed", "e\u0301", "\"e\u0301\""},
		{"empty containers", map[string]any{"a": []any{}, "o": map[string]any{}}, `{"a":[],"o":{}}`},
		{"nested", map[string]any{"b": []any{true, nil, 1.5, "x", []any{map[string]any{"z": 1, "y": 2}}}, "a": map[string]any{}},
			`{"a":{},"b":[true,null,1.5,"x",[{"y":2,"z":1}]]}`},
		{"key order by UTF-16 code units", map[string]any{"\uffff": 1, "😀": 2, "a": 3, "": 4, "A": 5, "aa": 6, "\ue000": 7, "é": 8, "\u007f": 9, "10": 10, "9": 11},
			"{\"\":4,\"10\":10,\"9\":11,\"A\":5,\"a\":3,\"aa\":6,\"\u007f\":9,\"é\":8,\"😀\":2,\"\ue000\":7,\"\uffff\":1}"},
		{"supplementary keys among themselves", map[string]any{"\U0001F600": 1, "\U00010000": 2, "\U0010FFFF": 3, "\U0001F5FF": 4},
			"{\"\U00010000\":2,\"\U0001F5FF\":4,\"\U0001F600\":1,\"\U0010FFFF\":3}"},
		{"prefix keys", map[string]any{"ab": 1, "a": 2, "abc": 3, "a\x00": 4}, `{"a":2,"a\u0000":4,"ab":1,"abc":3}`},
		{"escaped keys", map[string]any{"a\"b": 1, "a\nb": 2}, `{"a\nb":2,"a\"b":1}`},
		{"go integers", []any{3, int64(-4), int32(5), int16(-6), int8(7), uint(8), uint64(9), uint32(10), uint16(11), uint8(12)}, `[3,-4,5,-6,7,8,9,10,11,12]`},
		{"large integers round as in JavaScript", []any{int64(math.MaxInt64), uint64(math.MaxUint64), int64(9007199254740993)}, `[9223372036854776000,18446744073709552000,9007199254740992]`},
		{"float32 is its float64 value", float32(0.1), `0.10000000149011612`},
		{"negative zero", math.Copysign(0, -1), `0`},
		{"json.Number", []any{json.Number("1e2"), json.Number("-0.0"), json.Number("0.10"), json.Number("1E-7")}, `[100,0,0.1,1e-7]`},
		{"string maps and slices", map[string]any{"m": map[string]string{"b": "1", "a": "2"}, "s": []string{"x", "\n"}}, `{"m":{"a":"2","b":"1"},"s":["x","\n"]}`},
		{"nil containers", map[string]any{"m": map[string]any(nil), "a": []any(nil), "s": []string(nil), "ms": map[string]string(nil)}, `{"a":[],"m":{},"ms":{},"s":[]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize(tc.in)
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, tc.want)
			}
			// AppendCanonical appends.
			got2, err := AppendCanonical([]byte("prefix:"), tc.in)
			if err != nil || string(got2) != "prefix:"+tc.want {
				t.Fatalf("AppendCanonical: %s, %v", got2, err)
			}
		})
	}
}

func TestCanonicalizeRefusals(t *testing.T) {
	self := map[string]any{}
	self["me"] = self
	loop := []any{nil}
	loop[0] = loop
	tests := []struct {
		name string
		in   any
		msg  string // substring of the error, naming the place
	}{
		{"invalid UTF-8 string", map[string]any{"a": []any{"ok", "\xff"}}, "at /a/1: string is not valid UTF-8"},
		{"truncated UTF-8", "\xe2\x82", "at the top level: string is not valid UTF-8"},
		{"UTF-8 encoded surrogate", "\xed\xa0\x80", "not valid UTF-8"},
		{"invalid UTF-8 key", map[string]any{"d": map[string]any{"\xfe": 1}}, "at /d: object key \"\\xfe\" is not valid UTF-8"},
		{"invalid UTF-8 in a string map", map[string]any{"m": map[string]string{"k": "\xc0"}}, "at /m/k:"},
		{"invalid UTF-8 in a string slice", []string{"a", "\x80"}, "at /1:"},
		{"NaN", map[string]any{"x/y": math.NaN()}, "at /x~1y: NaN is not a JSON number"},
		{"+Inf", []any{math.Inf(1)}, "at /0: +Inf"},
		{"-Inf float32", float32(math.Inf(-1)), "-Inf"},
		{"json.Number not a number", json.Number("0x10"), `json.Number "0x10" is not a JSON number`},
		{"json.Number NaN", json.Number("NaN"), "not a JSON number"},
		{"json.Number empty", json.Number(""), "not a JSON number"},
		{"json.Number overflow", json.Number("1e400"), "overflows"},
		{"struct", map[string]any{"a~b": struct{}{}}, "at /a~0b: unsupported type struct {}"},
		{"channel", []any{make(chan int)}, "unsupported type chan int"},
		{"map[string]int", map[string]int{}, "unsupported type map[string]int"},
		{"pointer", new(string), "unsupported type *string"},
		{"self-referencing map", self, "nesting deeper than 10000 levels"},
		{"self-referencing slice", loop, "nesting deeper than 10000 levels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize(tc.in)
			if err == nil {
				t.Fatalf("accepted: %s", got)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q does not contain %q", err, tc.msg)
			}
			if _, err := Digest(tc.in); err == nil {
				t.Fatal("Digest accepted it")
			}
		})
	}
}

// TestCompareUTF16 holds compareUTF16 equal to a plain comparison of UTF-16 code units over
// random strings from every plane.
func TestCompareUTF16(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ref := func(a, b string) int { return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))) }
	for range 200000 {
		a := randomString(r, 4)
		b := a
		switch r.IntN(3) {
		case 0: // share a prefix
			rs := []rune(a)
			b = string(rs[:len(rs)/2]) + randomString(r, 3)
		case 1:
			b = randomString(r, 4)
		}
		if got, want := compareUTF16(a, b), ref(a, b); got != want {
			t.Fatalf("compareUTF16(%+q, %+q) = %d, want %d", a, b, got, want)
		}
	}
}

func TestDigestBytes(t *testing.T) {
	// BLAKE2b-256 of the empty string (RFC 7693 parameters, 32-byte output, no key).
	if got := DigestBytes(nil); got != "0x0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8" {
		t.Fatalf("DigestBytes(nil) = %s", got)
	}
	if got, want := NetworkGenesis("svc anchor log genesis"), DigestBytes([]byte("svc anchor log genesis")); got != want || len(got) != 66 {
		t.Fatalf("NetworkGenesis = %s", got)
	}
	// {} as in the first conformance vector.
	if got, err := Digest(map[string]any{}); err != nil || got != "0xc09da522dac261c3d2566230bed10d2f3ef13f8e7654576c12e857e07f786098" {
		t.Fatalf("Digest({}) = %s, %v", got, err)
	}
}
