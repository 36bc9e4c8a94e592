package proof

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonicalize returns the RFC 8785 (JCS) canonical text of a JSON value given as Go values.
func Canonicalize(v any) ([]byte, error) { return AppendCanonical(nil, v) }

// AppendCanonical appends the canonical text of v to dst.
func AppendCanonical(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case string:
		return appendString(dst, x)
	case float64:
		return appendNumber(dst, x)
	case float32:
		return appendNumber(dst, float64(x))
	case int:
		return appendNumber(dst, float64(x))
	case int64:
		return appendNumber(dst, float64(x))
	case int32:
		return appendNumber(dst, float64(x))
	case uint64:
		return appendNumber(dst, float64(x))
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return dst, fmt.Errorf("proof: number %q: %w", string(x), err)
		}
		return appendNumber(dst, f)
	case map[string]any:
		return appendObject(dst, len(x), func(yield func(string, any) bool) {
			for k, v := range x {
				if !yield(k, v) {
					return
				}
			}
		})
	case map[string]string:
		return appendObject(dst, len(x), func(yield func(string, any) bool) {
			for k, v := range x {
				if !yield(k, v) {
					return
				}
			}
		})
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = AppendCanonical(dst, e); err != nil {
				return dst, err
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
			if dst, err = appendString(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	return dst, fmt.Errorf("proof: unsupported type %T", v)
}

type member struct {
	key string
	val any
}

func appendObject(dst []byte, n int, each func(func(string, any) bool)) ([]byte, error) {
	ms := make([]member, 0, n)
	var bad error
	each(func(k string, v any) bool {
		if !utf8.ValidString(k) {
			bad = fmt.Errorf("proof: object key is not valid UTF-8")
			return false
		}
		ms = append(ms, member{key: k, val: v})
		return true
	})
	if bad != nil {
		return dst, bad
	}
	sort.Slice(ms, func(i, j int) bool { return lessUTF16(ms[i].key, ms[j].key) })
	dst = append(dst, '{')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendString(dst, m.key); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if dst, err = AppendCanonical(dst, m.val); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// lessUTF16 orders strings by their UTF-16 code units, as RFC 8785 requires.
func lessUTF16(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := unit(ra), unit(rb)
			if ua != ub {
				return ua < ub
			}
			// Same high surrogate: compare the low surrogates.
			_, la := utf16.EncodeRune(ra)
			_, lb := utf16.EncodeRune(rb)
			return la < lb
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) < len(b) && b != ""
}

// unit returns the first UTF-16 code unit of r.
func unit(r rune) rune {
	if r >= 0x10000 {
		hi, _ := utf16.EncodeRune(r)
		return hi
	}
	return r
}

const hexDigits = "0123456789abcdef"

func appendString(dst []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return dst, fmt.Errorf("proof: string is not valid UTF-8")
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
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
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), nil
}

func appendNumber(dst []byte, f float64) ([]byte, error) {
	s, err := FormatNumber(f)
	if err != nil {
		return dst, err
	}
	return append(dst, s...), nil
}

// FormatNumber gives the ECMAScript Number::toString form of f, as JSON.stringify prints it.
func FormatNumber(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("proof: %v is not a JSON number", f)
	}
	if f == 0 {
		return "0", nil
	}
	neg := f < 0
	if neg {
		f = -f
	}
	// Shortest round-trip digits and exponent: d1.d2d3...e±x
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expStr, _ := cutByte(e, 'e')
	exp, _ := strconv.Atoi(expStr)
	digits := make([]byte, 0, len(mant))
	for i := 0; i < len(mant); i++ {
		if mant[i] != '.' {
			digits = append(digits, mant[i])
		}
	}
	k := len(digits)
	n := exp + 1 // position of the decimal point relative to the digits
	var out []byte
	if neg {
		out = append(out, '-')
	}
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for i := 0; i < n-k; i++ {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for i := 0; i < -n; i++ {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(n-1), 10)
	}
	return string(out), nil
}

func cutByte(s string, c byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
