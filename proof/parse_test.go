package proof

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParseJSONRefusals(t *testing.T) {
	tests := []struct {
		name, in string
		ptr      string // the JSON pointer the error must name
		reason   string // substring of the reason
	}{
		{"raw NUL in a value", "{\"details\":{\"name\":\"x\x00\"}}", "/details/name", "NUL character"},
		{"escaped NUL in a value", `{"details":{"name":"a\u0000b"}}`, "/details/name", `NUL character (\u0000)`},
		{"raw NUL in a key", "{\"meta\":{\"k\x00\":1}}", "/meta", "NUL character in an object key"},
		{"escaped NUL in a key", `{"meta":{"k\u0000":1}}`, "/meta", `NUL character (\u0000) in an object key`},
		{"NUL at the top level", `"\u0000"`, "", "NUL"},
		{"lone high surrogate", `{"d":["ok","\ud800"]}`, "/d/1", `unpaired UTF-16 surrogate \ud800`},
		{"lone high surrogate before text", `{"d":"\udbffx"}`, "/d", `unpaired UTF-16 surrogate \udbff`},
		{"lone high surrogate at the end of input", `["\ud800`, "/0", "unpaired"},
		{"lone low surrogate", `{"d":"\udc00x"}`, "/d", `unpaired UTF-16 surrogate \udc00`},
		{"lone low surrogate in a key", `{"a":{"\udfff":1}}`, "/a", "surrogate"},
		{"reversed pair", `["\udc00\ud800"]`, "/0", `\udc00`},
		{"high then non-surrogate escape", `["\ud800\u0041"]`, "/0", `\ud800`},
		{"two high surrogates", `["\ud800\ud800"]`, "/0", `\ud800`},
		{"duplicate key", `{"a":1,"a":2}`, "/a", `duplicate key "a"`},
		{"duplicate key after unescaping", `{"details":{"name":1,"n\u0061me":2}}`, "/details/name", "duplicate"},
		{"too deep", `{"a":[[[[1]]]]}`, "/a/0/0/0", "nesting deeper than 4 levels"},
		{"too deep objects", `[{"x":{"y":{"z":{}}}}]`, "/0/x/y/z", "nesting deeper than 4"},
		{"trailing data", `{} {}`, "", `unexpected '{' after the JSON value`},
		{"trailing comma in an array", `[1,]`, "/1", "expected a value"},
		{"trailing comma in an object", `{"a":1,}`, "", "expected a string key"},
		{"number overflow", `{"n":1e400}`, "/n", "number 1e400 overflows float64"},
		{"negative number overflow", `[-1.8e308]`, "/0", "overflows"},
		{"invalid UTF-8 in a value", "[\"ab\xff\"]", "/0", "string is not valid UTF-8"},
		{"invalid UTF-8 after an escape", "[\"\\n\xc3\x28\"]", "/0", "not valid UTF-8"},
		{"UTF-8 encoded surrogate", "[\"\xed\xa0\x80\"]", "/0", "not valid UTF-8"},
		{"invalid UTF-8 in a key", "{\"\xff\":1}", "", "object key is not valid UTF-8"},
		{"invalid UTF-8 outside strings", "[\xff]", "/0", "byte 0xff"},
		{"byte order mark", "\ufeff{}", "", "byte 0xef"},
		{"bad literal", `[tru]`, "/0", "invalid literal"},
		{"leading zero", `[01]`, "/0", "leading zero"},
		{"lone minus", `[-]`, "/0", "expected a digit"},
		{"bare fraction", `[1.]`, "/0", "after '.'"},
		{"bare exponent", `[1e+]`, "/0", "exponent"},
		{"plus sign", `[+1]`, "/0", "unexpected '+'"},
		{"raw control character", "[\"\n\"]", "/0", "unescaped control character U+000A"},
		{"invalid escape", `["\x41"]`, "/0", `invalid escape "\\x"`},
		{"short unicode escape", `["\u12"]`, "/0", `invalid \u escape`},
		{"unterminated string", `["abc`, "/0", "unterminated string"},
		{"unterminated object", `{"a":1`, "", "end of input"},
		{"missing colon", `{"a" 1}`, "/a", "expected ':'"},
		{"single quotes", `{'a':1}`, "", "expected a string key"},
		{"empty input", ``, "", "end of input"},
		{"only whitespace", " \n\t", "", "end of input"},
		{"non-JSON whitespace", "\v1", "", "byte 0x0b"},
		{"pointer escaping", `{"a/b":{"c~d":"\ud800"}}`, "/a~1b/c~0d", "surrogate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseJSON([]byte(tc.in), 4)
			if err == nil {
				t.Fatalf("accepted as %#v", v)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *ParseError", err, err)
			}
			if pe.Pointer != tc.ptr {
				t.Errorf("pointer %q, want %q (%v)", pe.Pointer, tc.ptr, err)
			}
			where := tc.ptr
			if where == "" {
				where = "the top level"
			}
			if msg := err.Error(); !strings.Contains(msg, "invalid JSON at "+where+" (byte ") || !strings.Contains(msg, tc.reason) {
				t.Errorf("message %q should name %s and say %q", msg, where, tc.reason)
			}
			if pe.Offset < 0 || pe.Offset > len(tc.in) {
				t.Errorf("offset %d outside the input", pe.Offset)
			}
		})
	}
}

func TestParseJSONAccepts(t *testing.T) {
	negZero := math.Copysign(0, -1)
	tests := []struct {
		name, in string
		want     any
	}{
		{"surrogate pair escapes", `"\ud83d\ude00\uD834\uDD1E"`, "😀𝄞"},
		{"all short escapes", `"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{"escapes mixed with UTF-8", `"Z\u00fcrich – Zürich \u2028"`, "Zürich – Zürich \u2028"},
		{"raw supplementary characters", `"👍🏽"`, "👍🏽"},
		{"numbers", `[0,-0,1.5e3,1E-2,-12.5e+1,123456789012345678901234567890,1e-400,0.1]`,
			[]any{0.0, negZero, 1500.0, 0.01, -125.0, 1.2345678901234568e29, 0.0, 0.1}},
		{"integer boundaries", `[999999999999999,9999999999999999,-999999999999999,9007199254740993,9007199254740995]`,
			[]any{999999999999999.0, 1e16, -999999999999999.0, 9007199254740992.0, 9007199254740996.0}},
		{"long integers", `[999999999999999999,1000000000000000000,9223372036854775807,9223372036854775808,18446744073709551616,12345678901234567890123]`,
			[]any{1e18, 1e18, 9223372036854775807.0, 9223372036854775808.0, 18446744073709551616.0, 1.2345678901234568e22}},
		{"largest double", `1.7976931348623157e308`, math.MaxFloat64},
		{"literals", `{"t":true,"f":false,"z":null}`, map[string]any{"t": true, "f": false, "z": nil}},
		{"whitespace everywhere", " \t\r\n{ \"a\" : [ 1 , { } , [ ] ] } \n", map[string]any{"a": []any{1.0, map[string]any{}, []any{}}}},
		{"deepest allowed nesting", `{"a":[[{"b":1}]]}`, map[string]any{"a": []any{[]any{map[string]any{"b": 1.0}}}}},
		{"scalar documents", `"x"`, "x"},
		{"empty key", `{"":1}`, map[string]any{"": 1.0}},
		{"proto key is an ordinary key", `{"__proto__":{"a":1}}`, map[string]any{"__proto__": map[string]any{"a": 1.0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tc.in), 4)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v\nwant %#v", got, tc.want)
			}
		})
	}
	// -0 keeps its sign, as JSON.parse keeps it.
	v, _ := ParseJSON([]byte(`-0`), 1)
	if f, ok := v.(float64); !ok || f != 0 || !math.Signbit(f) {
		t.Fatalf("-0 parsed as %#v", v)
	}
	// Depth 0 admits scalars only.
	if _, err := ParseJSON([]byte(`1`), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseJSON([]byte(`[]`), 0); err == nil {
		t.Fatal("maxDepth 0 admitted an array")
	}
	// Deep but allowed nesting.
	deep := strings.Repeat("[", 500) + strings.Repeat("]", 500)
	if _, err := ParseJSON([]byte(deep), 500); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseJSON([]byte(deep), 499); err == nil {
		t.Fatal("nesting 500 admitted at maxDepth 499")
	}
}

func TestDecodeJSONAdmitsNUL(t *testing.T) {
	v, err := decodeJSON([]byte("{\"k\\u0000\":\"a\\u0000b\"}"), 4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v, map[string]any{"k\x00": "a\x00b"}) {
		t.Fatalf("%#v", v)
	}
	// Raw NUL stays refused: it is a raw control character, which JSON.parse refuses too.
	if _, err := decodeJSON([]byte("[\"\x00\"]"), 4); err == nil {
		t.Fatal("raw NUL admitted")
	}
}

func TestCheckText(t *testing.T) {
	for _, ok := range []string{"", "plain", "Zürich 😀 \u2028 \ufeff", "\x01\x7f"} {
		if err := CheckText(ok); err != nil {
			t.Errorf("CheckText(%+q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"a\x00b", "\xff", "\xed\xa0\x80", "\xe2\x82"} {
		if err := CheckText(bad); err == nil {
			t.Errorf("CheckText(%+q) accepted", bad)
		}
	}
}

// ParseExactJSON returns what is stored: -0 (however written) is 0, as its canonical text "0"
// reads back; ParseJSON keeps -0, as JSON.parse does.
func TestExactNegativeZeroIsStoredZero(t *testing.T) {
	for _, text := range []string{"-0", "-0.0", "-0e5", "-0E-2"} {
		v, err := ParseExactJSON([]byte(text), 4)
		if f, ok := v.(float64); err != nil || !ok || f != 0 || math.Signbit(f) {
			t.Errorf("ParseExactJSON(%s) = %v (sign bit %v), %v; want 0", text, v, ok && math.Signbit(f), err)
		}
		v, err = ParseJSON([]byte(text), 4)
		if f, ok := v.(float64); err != nil || !ok || !math.Signbit(f) {
			t.Errorf("ParseJSON(%s) = %v, %v; want -0", text, v, err)
		}
	}
}
