package leaf

import (
	"strconv"
	"unicode/utf8"
)

// The leaf's RFC 8785 writer. A leaf holds only strings and one integer, so RFC 8785 comes
// down to three rules: members sorted by name (the order Leaf.AppendCanonical writes them in),
// no whitespace, and the serialization of ECMAScript's JSON.stringify for strings and numbers
// (RFC 8785 sections 3.2.2.2 and 3.2.2.3).

// jsonWriter appends the members of an object; bad names the first member whose string is not
// valid UTF-8 (which RFC 8785 cannot write).
type jsonWriter struct {
	b     []byte
	first bool // a member has been written
	bad   string
}

// name appends a member's name (plain ASCII, written as it is) and the colon.
func (w *jsonWriter) name(n string) {
	if w.first {
		w.b = append(w.b, ',')
	}
	w.first = true
	w.b = append(w.b, '"')
	w.b = append(w.b, n...)
	w.b = append(w.b, '"', ':')
}

// member appends a member with a string value.
func (w *jsonWriter) member(n, v string) {
	w.name(n)
	var ok bool
	if w.b, ok = appendString(w.b, v); !ok && w.bad == "" {
		w.bad = n
	}
}

const hexDigits = "0123456789abcdef"

// appendString appends s as an RFC 8785 string: '"' and '\' escaped with a backslash, the
// control characters U+0000..U+001F as \b, \t, \n, \f, \r or \u00xx (lowercase hex), every
// other character as its UTF-8 bytes (U+007F, U+2028 and U+2029 included). ok is false when s
// is not valid UTF-8.
func appendString(dst []byte, s string) (_ []byte, ok bool) {
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
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), true
}

// maxExact is the largest integer up to which every integer is an IEEE 754 double (2^53).
const maxExact = 1 << 53

// appendInteger appends n as RFC 8785 writes the number it is: a JSON number is an IEEE 754
// double, so n is first rounded to the nearest double (exact up to 2^53 in magnitude), and that
// double is written as ECMAScript writes it. Below 10^21 (every int64) that is its shortest
// round-tripping digits padded with zeros to the integer's length, which is what 'f' with
// precision -1 writes.
func appendInteger(dst []byte, n int64) []byte {
	if -maxExact <= n && n <= maxExact {
		return strconv.AppendInt(dst, n, 10)
	}
	return strconv.AppendFloat(dst, float64(n), 'f', -1, 64)
}
