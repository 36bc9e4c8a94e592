package proof

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {0.1, "0.1"}, {-0.5, "-0.5"},
		{1e21, "1e+21"}, {1e20, "100000000000000000000"}, {123456789012345680000, "123456789012345680000"},
		{1e-6, "0.000001"}, {1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {123e-20, "1.23e-18"},
		{9007199254740992, "9007199254740992"}, {9007199254740994, "9007199254740994"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {5e-324, "5e-324"}, {1.0 / 3, "0.3333333333333333"},
		{4.35, "4.35"}, {0.000001234, "0.000001234"}, {1e300, "1e+300"}, {-1e-300, "-1e-300"}, {100, "100"},
		{1.7976931348623157e308 / 10, "1.7976931348623158e+307"}, {2.5e21, "2.5e+21"}, {333333333.3333333, "333333333.3333333"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			got, err := FormatNumber(tc.in)
			if err != nil || got != tc.want {
				t.Fatalf("FormatNumber(%v) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := FormatNumber(bad); err == nil {
			t.Fatalf("FormatNumber(%v) accepted", bad)
		}
	}
}

func TestCanonicalizeStringsAndKeys(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"escapes", "\"\\\b\f\n\r\t\x01\x1f", `"\"\\\b\f\n\r\t\u0001\u001f"`},
		{"html and separators stay literal", "<a>&\u2028\u2029\u007f", "\"<a>&\u2028\u2029\u007f\""},
		{"astral stays literal", "😀𝄞", `"😀𝄞"`},
		{"nul escaped", "a\x00b", `"a\u0000b"`},
		{"key order by UTF-16 units", map[string]any{"\uffff": 1, "😀": 2, "a": 3, "": 4, "A": 5, "aa": 6},
			"{\"\":4,\"A\":5,\"a\":3,\"aa\":6,\"😀\":2,\"\uffff\":1}"},
		{"nested and types", map[string]any{"b": []any{true, false, nil, 1.5, "x"}, "a": map[string]any{}},
			`{"a":{},"b":[true,false,null,1.5,"x"]}`},
		{"go ints", map[string]any{"i": 3, "j": int64(-4), "k": uint64(5), "n": json.Number("1e2")}, `{"i":3,"j":-4,"k":5,"n":100}`},
		{"string maps and slices", map[string]any{"m": map[string]string{"b": "1", "a": "2"}, "s": []string{"x"}}, `{"m":{"a":"2","b":"1"},"s":["x"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize(tc.in)
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
	for _, bad := range []any{"\xff", map[string]any{"\xfe": 1}, math.NaN(), struct{}{}, []any{make(chan int)}} {
		if _, err := Canonicalize(bad); err == nil {
			t.Fatalf("Canonicalize(%#v) accepted", bad)
		}
	}
}

func TestParseJSONRefusals(t *testing.T) {
	tests := []struct {
		name, in, ptr string
	}{
		{"raw NUL", "{\"a\":\"x\x00\"}", "/a"},
		{"raw control", "{\"a\":\"x\x01\"}", "/a"},
		{"escaped NUL", `{"a":{"b":"x\u0000"}}`, "/a/b"},
		{"NUL in key", `{"k\u0000":1}`, ""},
		{"lone high surrogate", `{"d":["ok","\ud800"]}`, "/d/1"},
		{"lone low surrogate", `{"d":"\udc00x"}`, "/d"},
		{"reversed pair", `["\udc00\ud800"]`, "/0"},
		{"high then non-surrogate", `["\ud800\u0041"]`, "/0"},
		{"duplicate key", `{"a":1,"a":2}`, "/a"},
		{"too deep", strings.Repeat("[", 5) + strings.Repeat("]", 5), "/0/0/0/0"},
		{"trailing data", `{} {}`, ""},
		{"huge number", `{"n":1e400}`, "/n"},
		{"invalid UTF-8", "[\"\xff\"]", "/0"},
		{"bad literal", `[tru]`, "/0"},
		{"leading zero", `[01]`, ""},
		{"control char", "[\"\n\"]", "/0"},
		{"empty", ``, ""},
		{"pointer escaping", `{"a/b":{"c~d":"\ud800"}}`, "/a~1b/c~0d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseJSON([]byte(tc.in), 4)
			if err == nil {
				t.Fatal("accepted")
			}
			pe, ok := err.(*ParseError)
			if !ok {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			if pe.Pointer != tc.ptr {
				t.Fatalf("pointer %q, want %q (%v)", pe.Pointer, tc.ptr, err)
			}
		})
	}
}

func TestParseJSONAccepts(t *testing.T) {
	v, err := ParseJSON([]byte(` {"s":"\ud83d\ude00 \u00e9\/","n":[-0,1.5e3,1E-2],"t":true,"f":false,"z":null,"d":[[[]]]} `), 4)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Canonicalize(v)
	if want := `{"d":[[[]]],"f":false,"n":[0,1500,0.01],"s":"😀 é/","t":true,"z":null}`; string(got) != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

// randomValue builds a random JSON value: nested objects and arrays, strings from every
// Unicode plane (controls, U+2028/2029, astral), random doubles and integers.
func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth > 4 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2, 3:
		return randomString(r)
	case 4:
		for {
			f := math.Float64frombits(r.Uint64())
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	case 5:
		switch r.IntN(4) {
		case 0:
			return float64(r.Int64N(1<<53)) * float64(1-2*r.IntN(2))
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return float64(r.IntN(1000)) / 1000
		default:
			return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		}
	case 6, 7:
		n := r.IntN(6)
		a := make([]any, n)
		for i := range a {
			a[i] = randomValue(r, depth+1)
		}
		return a
	default:
		n := r.IntN(6)
		m := make(map[string]any, n)
		for i := 0; i < n; i++ {
			m[randomString(r)] = randomValue(r, depth+1)
		}
		return m
	}
}

func randomString(r *rand.Rand) string {
	n := r.IntN(8)
	var b strings.Builder
	for i := 0; i < n; i++ {
		var c rune
		switch r.IntN(6) {
		case 0:
			c = rune(r.IntN(0x80)) // ASCII incl. controls and NUL
		case 1:
			c = []rune{'\u2028', '\u2029', '\ufeff', '\uffff', '\ue000', '"', '\\', '<', '&'}[r.IntN(9)]
		case 2:
			c = rune(0x80 + r.IntN(0x800-0x80))
		case 3:
			c = rune(0x800 + r.IntN(0xD800-0x800))
		case 4:
			c = rune(0xE000 + r.IntN(0x10000-0xE000))
		default:
			c = rune(0x10000 + r.IntN(0x110000-0x10000))
		}
		if utf8.ValidRune(c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// TestDifferentialAgainstJavaScript compares thousands of random values with the JavaScript
// reference (canonicalize + @noble/hashes), both the canonical text and the digest.
func TestDifferentialAgainstJavaScript(t *testing.T) {
	const n = 3000
	r := rand.New(rand.NewPCG(20261122, 1))
	values := make([]any, n)
	var input bytes.Buffer
	enc := json.NewEncoder(&input)
	enc.SetEscapeHTML(false)
	for i := range values {
		values[i] = map[string]any{"v": randomValue(r, 0)}
		if err := enc.Encode(values[i]); err != nil {
			t.Fatal(err)
		}
	}
	canon := runReference(t, input.Bytes(), true)
	digests := runReference(t, input.Bytes(), false)
	if len(canon) != n || len(digests) != n {
		t.Fatalf("reference answered %d/%d lines for %d values", len(canon), len(digests), n)
	}
	for i, v := range values {
		got, err := Canonicalize(v)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		if !bytes.Equal(got, canon[i]) {
			t.Fatalf("value %d canonical text differs:\n go %q\n js %q", i, got, canon[i])
		}
		if d := DigestBytes(got); d != string(digests[i]) {
			t.Fatalf("value %d digest differs: go %s js %s", i, d, digests[i])
		}
	}
	t.Logf("%d random values agree with the JavaScript reference", n)
}
