package proof

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxCanonicalDepth bounds the nesting of values given to Canonicalize. Values from ParseJSON
// are bounded by its maxDepth; this limit only stops a map or slice that contains itself
// from recursing without end.
const MaxCanonicalDepth = 10000

// Canonicalize returns the RFC 8785 (JSON Canonicalization Scheme) text of a JSON value given
// as Go values: the exact bytes the JavaScript reference (canonicalize over JSON.parse)
// produces. Object members are sorted by the UTF-16 code units of their names, there is no
// whitespace, numbers have their ECMAScript form (see FormatNumber) and strings are escaped as
// JSON.stringify escapes them.
//
// Accepted types: nil, bool, string, float64, float32, every Go integer type, json.Number,
// map[string]any, []any, map[string]string and []string; nil maps and slices are written as
// empty ones, {} and []. Integers and float32 are written as the float64 nearest to them, as
// a JavaScript number would hold them (integers beyond ±2^53 may round). It refuses NaN and ±Inf, strings and keys that are not valid UTF-8, json.Number
// text that is not a JSON number or overflows float64, other types, and nesting deeper than
// MaxCanonicalDepth; the error names the JSON pointer of the offending place.
func Canonicalize(v any) ([]byte, error) { return AppendCanonical(nil, v) }

// AppendCanonical appends the canonical text of v to dst and returns the extended slice, so a
// caller can reuse one buffer. On error the returned slice may hold partial output.
func AppendCanonical(dst []byte, v any) ([]byte, error) {
	dst, err := appendValue(dst, v, 0)
	if ve, ok := err.(*valueError); ok {
		ve.finish()
	}
	return dst, err
}

// valueError is a refusal of Canonicalize. The pointer is collected innermost first while
// the recursion unwinds (only on the error path) and put in order by finish.
type valueError struct {
	tokens  []string // escaped reference tokens, innermost first until finish
	pointer string
	reason  string
}

func (e *valueError) Error() string {
	where := e.pointer
	if where == "" {
		where = "the top level"
	}
	return "proof: cannot canonicalize the value at " + where + ": " + e.reason
}

func (e *valueError) finish() {
	var b strings.Builder
	for i := len(e.tokens) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(e.tokens[i])
	}
	e.pointer, e.tokens = b.String(), nil
}

func refuse(format string, args ...any) error {
	return &valueError{reason: fmt.Sprintf(format, args...)}
}

// within adds the reference token of a member or element to err's pointer.
func within(err error, token string) error {
	if ve, ok := err.(*valueError); ok {
		ve.tokens = append(ve.tokens, escapePointerToken(token))
	}
	return err
}

// appendValue appends the canonical text of v, found inside depth objects and arrays.
func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendStringChecked(dst, x)
	case float64:
		return appendFloat(dst, x)
	case float32:
		return appendFloat(dst, float64(x))
	case int:
		return appendFloat(dst, float64(x))
	case int64:
		return appendFloat(dst, float64(x))
	case int32:
		return appendFloat(dst, float64(x))
	case int16:
		return appendFloat(dst, float64(x))
	case int8:
		return appendFloat(dst, float64(x))
	case uint:
		return appendFloat(dst, float64(x))
	case uint64:
		return appendFloat(dst, float64(x))
	case uint32:
		return appendFloat(dst, float64(x))
	case uint16:
		return appendFloat(dst, float64(x))
	case uint8:
		return appendFloat(dst, float64(x))
	case json.Number:
		if !validNumber(string(x)) {
			return dst, refuse("json.Number %q is not a JSON number", string(x))
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return dst, refuse("json.Number %q overflows float64", string(x))
		}
		return appendFloat(dst, f)
	case map[string]any:
		if depth >= MaxCanonicalDepth {
			return dst, refuse("nesting deeper than %d levels", MaxCanonicalDepth)
		}
		return appendMap(dst, x, depth+1)
	case map[string]string:
		return appendStringMap(dst, x)
	case []any:
		if depth >= MaxCanonicalDepth {
			return dst, refuse("nesting deeper than %d levels", MaxCanonicalDepth)
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return dst, within(err, strconv.Itoa(i))
			}
		}
		return append(dst, ']'), nil
	case []string:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendStringChecked(dst, e); err != nil {
				return dst, within(err, strconv.Itoa(i))
			}
		}
		return append(dst, ']'), nil
	case TextAppender:
		return x.AppendCanonicalText(dst)
	}
	return dst, refuse("unsupported type %T", v)
}

// TextAppender is a value that writes its own canonical text, for a caller that keeps a large
// part of a document as text (ParseJSONEach) and canonicalizes it piece by piece into the
// output of Canonicalize instead of holding it all as Go values.
type TextAppender interface {
	AppendCanonicalText(dst []byte) ([]byte, error)
}

func appendFloat(dst []byte, f float64) ([]byte, error) {
	dst, ok := appendNumber(dst, f)
	if !ok {
		return dst, refuse("%v is not a JSON number", f)
	}
	return dst, nil
}

func appendStringChecked(dst []byte, s string) ([]byte, error) {
	dst, ok := appendString(dst, s)
	if !ok {
		return dst, refuse("string is not valid UTF-8")
	}
	return dst, nil
}

// smallObject is the member count up to which an object's keys are sorted in a buffer on the
// stack.
const smallObject = 32

// sortedKeys returns the keys of m in RFC 8785 order, in buf when it is large enough. It
// refuses keys that are not valid UTF-8, whose order would not be defined.
func sortedKeys[V any](m map[string]V, buf []string) ([]string, error) {
	keys := buf[:0]
	for k := range m {
		if !utf8.ValidString(k) {
			return nil, refuse("object key %q is not valid UTF-8", k)
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareUTF16)
	return keys, nil
}

func appendMap(dst []byte, m map[string]any, depth int) ([]byte, error) {
	var buf [smallObject]string
	keys, err := sortedKeys(m, buf[:])
	if err != nil {
		return dst, err
	}
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst, _ = appendString(dst, k) // valid UTF-8, checked by sortedKeys
		dst = append(dst, ':')
		if dst, err = appendValue(dst, m[k], depth); err != nil {
			return dst, within(err, k)
		}
	}
	return append(dst, '}'), nil
}

func appendStringMap(dst []byte, m map[string]string) ([]byte, error) {
	var buf [smallObject]string
	keys, err := sortedKeys(m, buf[:])
	if err != nil {
		return dst, err
	}
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst, _ = appendString(dst, k)
		dst = append(dst, ':')
		if dst, err = appendStringChecked(dst, m[k]); err != nil {
			return dst, within(err, k)
		}
	}
	return append(dst, '}'), nil
}

// compareUTF16 orders valid UTF-8 strings by their UTF-16 code units, as RFC 8785 sorts object
// members. UTF-8 byte order is code point order, which differs from UTF-16 order only between
// U+E000..U+FFFF and the supplementary planes (written as surrogates U+D800..U+DFFF, which come
// before U+E000). So the strings are compared at their first differing character, mapped to a
// weight in UTF-16 order.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmp.Compare(len(a), len(b))
	}
	// The strings hold the same characters before byte i, so the differing character starts
	// at the same place in both.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return cmp.Compare(utf16Weight(ra), utf16Weight(rb))
}

// utf16Weight maps a character to a number that orders characters as their UTF-16 forms do:
// U+E000..U+FFFF move above the supplementary planes, whose surrogate pairs keep code point
// order among themselves.
func utf16Weight(r rune) rune {
	if r >= 0xE000 && r <= 0xFFFF {
		return r + 0x110000
	}
	return r
}

const hexDigits = "0123456789abcdef"

// appendString appends s as JSON.stringify writes a string: '"' and '\' escaped with a
// backslash; \b \f \n \r \t; other characters below U+0020 as \u00xx in lowercase hex;
// everything else as literal UTF-8 (including '<', '>', '&', '/', U+007F, U+2028, U+2029 and
// supplementary characters). It reports false, with partial output, when s is not valid UTF-8.
func appendString(dst []byte, s string) ([]byte, bool) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				return dst, false
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), true
}

// validNumber reports whether s is a number by the JSON grammar (RFC 8259, section 6).
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = skipDigits(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		j := skipDigits(s, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := skipDigits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
