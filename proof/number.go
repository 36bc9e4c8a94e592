package proof

import (
	"fmt"
	"math"
	"strconv"
)

// FormatNumber returns the ECMAScript Number::toString form of f (ECMA-262, 6.1.6.1.20), which is
// how JSON.stringify and RFC 8785 write numbers: the shortest digits that round-trip, laid out
// as an integer up to 21 digits, as a plain decimal down to 1e-6, and in exponent form
// ("1e+21", "1.5e-7") otherwise. Negative zero is written "0". NaN and ±Inf are refused.
func FormatNumber(f float64) (string, error) {
	var buf [32]byte
	b, ok := appendNumber(buf[:0], f)
	if !ok {
		return "", fmt.Errorf("proof: %v is not a JSON number", f)
	}
	return string(b), nil
}

// appendNumber appends FormatNumber(f) to dst without allocating (but for growing dst). It
// reports false, appending nothing, for NaN and ±Inf.
func appendNumber(dst []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	if f == 0 { // +0 and -0
		return append(dst, '0'), true
	}
	// Integers below 2^53 in magnitude are exact and are their own shortest digits, so the
	// ES layout (digits followed by zeros, up to 21 digits) is their decimal form.
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(dst, int64(f), 10), true
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}

	// strconv gives the shortest digits that round-trip, the closest to f when several are as
	// short (ECMA-262 makes the same choice), as "d[.ddd]e±XX".
	var scratch [32]byte
	e := strconv.AppendFloat(scratch[:0], f, 'e', -1, 64)
	var digits [24]byte // at most 17 significant digits
	k := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[k] = e[i]
			k++
		}
	}
	i++ // 'e'
	negExp := e[i] == '-'
	exp := 0
	for i++; i < len(e); i++ {
		exp = exp*10 + int(e[i]-'0')
	}
	if negExp {
		exp = -exp
	}
	// In ECMA-262's terms f = s × 10^(n−k), where s has the k digits, so n = exp + 1.
	n := exp + 1
	d := digits[:k]
	switch {
	case k <= n && n <= 21: // an integer: the digits, then n−k zeros
		dst = append(dst, d...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21: // the decimal point inside the digits
		dst = append(dst, d[:n]...)
		dst = append(dst, '.')
		dst = append(dst, d[n:]...)
	case -6 < n && n <= 0: // "0.", then −n zeros, then the digits
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, d...)
	default: // exponent form: d[.ddd]e±x
		dst = append(dst, d[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, true
}
