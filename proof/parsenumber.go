package proof

import (
	"math"
	"strconv"
)

// The JSON parser's numbers (parse.go has the parser): their grammar, and what ParseExactJSON
// refuses of them (an integer past 2^53 - 1, a number whose value its text does not keep).

func (p *parser) digits() int {
	n := 0
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

func (p *parser) number() (any, error) {
	start := p.pos
	neg := p.data[p.pos] == '-'
	if neg {
		p.pos++
	}
	intStart := p.pos
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
		if p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			return nil, p.failAt(start, "invalid number: leading zero")
		}
	case p.digits() == 0:
		return nil, p.failAt(start, "invalid number: expected a digit")
	}
	simple := true // an integer without fraction or exponent
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return nil, p.failAt(start, "invalid number: expected a digit after '.'")
		}
		simple = false
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return nil, p.failAt(start, "invalid number: expected a digit in the exponent")
		}
		simple = false
	}
	// Up to 18 digits fit an int64 exactly, and converting it rounds to the nearest float64
	// (ties to even), as JSON.parse rounds the decimal text.
	if simple && p.pos-intStart <= 18 {
		var n int64
		for _, c := range p.data[intStart:p.pos] {
			n = n*10 + int64(c-'0')
		}
		if p.exactNumbers && n > maxSafeInteger {
			return nil, p.unsafeInteger(start)
		}
		f := float64(n)
		if neg && (n != 0 || !p.exactNumbers) {
			f = -f // "-0" is -0, as in JavaScript; stored text holds 0 (RFC 8785), so the exact value is 0
		}
		return f, nil
	}
	text := p.data[start:p.pos]
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil { // the grammar is checked, so only overflow is left
		return nil, p.failAt(start, "number %s overflows float64", text)
	}
	if p.exactNumbers && math.Abs(f) > maxSafeInteger && math.Abs(f) < 1e21 {
		return nil, p.unsafeInteger(start)
	}
	if p.exactNumbers && !keepsValue(text, f) {
		stored, _ := FormatNumber(f)
		return nil, p.failAt(start, "number %s cannot be stored exactly (it would become %s); send fewer digits, or the number as a string", text, stored)
	}
	if p.exactNumbers && f == 0 {
		f = 0 // -0.0 and -0e5 too are stored as 0, and so read
	}
	return f, nil
}

func (p *parser) unsafeInteger(start int) error {
	return p.failAt(start, "number %s is an integer beyond ±(2^53−1), where not every integer can be stored exactly; send it as a string", p.data[start:p.pos])
}

// keepsValue reports whether f, a correctly rounded reading of the JSON number text, is the
// number text denotes: whether the shortest digits that round-trip f, the form f is written
// in, are text's own significant digits at the same scale.
func keepsValue(text []byte, f float64) bool {
	digits, exp, ok := decimal(text)
	if !ok {
		return false
	}
	if digits == "" || f == 0 { // zero (of either sign) on either side
		return digits == "" && f == 0
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], math.Abs(f), 'e', -1, 64)
	fd, fexp, _ := decimal(e)
	return digits == fd && exp == fexp
}

// decimal splits a JSON number (or strconv's 'e' form) into its significant digits, without
// leading or trailing zeros ("" for zero), and the power of ten of the last one; the sign is
// dropped. ok is false for an exponent too large to matter to float64 (its value then is 0 or
// overflows, and the caller compares it as not kept).
func decimal(text []byte) (digits string, exp int, ok bool) {
	var b []byte
	i := 0
	if i < len(text) && text[i] == '-' {
		i++
	}
	frac := 0
	inFrac := false
	for ; i < len(text) && text[i] != 'e' && text[i] != 'E'; i++ {
		switch c := text[i]; {
		case c == '.':
			inFrac = true
		default:
			if len(b) > 0 || c != '0' {
				b = append(b, c)
			}
			if inFrac {
				frac++
			}
		}
	}
	if i < len(text) { // exponent
		i++
		neg := false
		if text[i] == '+' || text[i] == '-' {
			neg = text[i] == '-'
			i++
		}
		if len(text)-i > 9 {
			return "", 0, len(b) == 0 // zero stays zero at any scale
		}
		for ; i < len(text); i++ {
			exp = exp*10 + int(text[i]-'0')
		}
		if neg {
			exp = -exp
		}
	}
	exp -= frac
	for len(b) > 0 && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
		exp++
	}
	if len(b) == 0 {
		return "", 0, true
	}
	return string(b), exp, true
}
