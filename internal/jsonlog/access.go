package jsonlog

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendAccess appends the access line a as slog's JSON handler writes it (time, level, msg,
// then the attributes of Access.Attrs, and a newline) and reports whether it could: false,
// with b unchanged, for what slog would write otherwise than plainly (a duration that is NaN or
// infinite, which it writes as an error; a time outside years 0-9999).
func AppendAccess(b []byte, a Access) ([]byte, bool) {
	if math.IsNaN(a.DurationMS) || math.IsInf(a.DurationMS, 0) {
		return b, false
	}
	t := a.Time.Round(0) // as slog: no monotonic reading
	if y := t.Year(); y < 0 || y >= 10000 {
		return b, false
	}
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","method":`...)
	b = appendString(b, a.Method)
	b = append(b, `,"route":`...)
	b = appendString(b, a.Route)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(a.Status), 10)
	b = append(b, `,"duration_ms":`...)
	b = appendFloat(b, a.DurationMS)
	b = append(b, `,"request_id":`...)
	b = appendString(b, a.RequestID)
	return append(b, "}\n"...), true
}

// appendFloat writes a finite float64 as encoding/json does (and so slog): the shortest
// decimal that reads back the same, in plain notation unless its magnitude is below 1e-6 or at
// least 1e21, where it is in exponent notation with no leading zero in the exponent ("1e-07"
// is written "1e-7").
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// The exponent has at least two digits: drop a leading zero of a two-digit one.
		if n := len(b); n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString writes s as a JSON string as slog's JSON handler does: quotes, backslashes and
// control characters escaped (\n, \r, \t by name, the others as \u00XX), each byte of invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped, and nothing else (no HTML escaping).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	const hexDigits = "0123456789abcdef"
	plain := 0 // s[plain:i] is still to be copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[plain:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			plain = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[plain:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[plain:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		plain = i
	}
	b = append(b, s[plain:]...)
	return append(b, '"')
}
