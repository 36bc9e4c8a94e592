package proof

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseJSON strictly parses one JSON text into Go values (map[string]any, []any, string,
// float64, bool, nil) as JSON.parse would, but refuses what a stored, re-verifiable entry must
// not hold: invalid JSON, trailing data, nesting deeper than maxDepth, NUL characters (raw or
// escaped), unpaired UTF-16 surrogate escapes, invalid UTF-8, numbers outside float64 and
// duplicate object keys. Errors name the JSON pointer of the offending place.
func ParseJSON(data []byte, maxDepth int) (any, error) {
	return parse(&parser{data: data, maxDepth: maxDepth})
}

// DecodeJSON is ParseJSON that accepts NUL characters in strings: JSON.parse's view of text that
// is only hashed, never stored (the conformance vectors, a lookup response under verification).
func DecodeJSON(data []byte, maxDepth int) (any, error) {
	return parse(&parser{data: data, maxDepth: maxDepth, allowNUL: true})
}

func parse(p *parser) (any, error) {
	p.skipSpace()
	v, err := p.value(0, "")
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errorf("", "unexpected data after the JSON value")
	}
	return v, nil
}

type parser struct {
	data     []byte
	pos      int
	maxDepth int
	allowNUL bool
}

// ParseError is a refusal of ParseJSON.
type ParseError struct {
	Pointer string // JSON pointer of the place ("" for the whole document)
	Offset  int
	Reason  string
}

func (e *ParseError) Error() string {
	where := e.Pointer
	if where == "" {
		where = "/"
	}
	return fmt.Sprintf("invalid JSON at %s (byte %d): %s", where, e.Offset, e.Reason)
}

func (p *parser) errorf(ptr, format string, args ...any) error {
	return &ParseError{Pointer: ptr, Offset: p.pos, Reason: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func (p *parser) value(depth int, ptr string) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf(ptr, "unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		if depth >= p.maxDepth {
			return nil, p.errorf(ptr, "nesting deeper than %d levels", p.maxDepth)
		}
		return p.object(depth, ptr)
	case c == '[':
		if depth >= p.maxDepth {
			return nil, p.errorf(ptr, "nesting deeper than %d levels", p.maxDepth)
		}
		return p.array(depth, ptr)
	case c == '"':
		return p.str(ptr)
	case c == 't':
		return true, p.literal("true", ptr)
	case c == 'f':
		return false, p.literal("false", ptr)
	case c == 'n':
		return nil, p.literal("null", ptr)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(ptr)
	default:
		return nil, p.errorf(ptr, "unexpected character %q", rune(c))
	}
}

func (p *parser) literal(word, ptr string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errorf(ptr, "invalid literal")
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int, ptr string) (any, error) {
	p.pos++ // {
	m := map[string]any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf(ptr, "expected a string key")
		}
		k, err := p.str(ptr)
		if err != nil {
			return nil, err
		}
		child := ptr + "/" + escapePointer(k)
		if _, dup := m[k]; dup {
			return nil, p.errorf(child, "duplicate key %q", k)
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf(child, "expected ':' after the key")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth+1, child)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf(ptr, "unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return m, nil
		default:
			return nil, p.errorf(ptr, "expected ',' or '}' in an object")
		}
	}
}

func (p *parser) array(depth int, ptr string) (any, error) {
	p.pos++ // [
	a := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, nil
	}
	for i := 0; ; i++ {
		p.skipSpace()
		v, err := p.value(depth+1, ptr+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf(ptr, "unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return a, nil
		default:
			return nil, p.errorf(ptr, "expected ',' or ']' in an array")
		}
	}
}

func hexVal(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

func (p *parser) hex4(ptr string) (rune, error) {
	if len(p.data)-p.pos < 4 {
		return 0, p.errorf(ptr, "truncated \\u escape")
	}
	var r rune
	for i := 0; i < 4; i++ {
		v, ok := hexVal(p.data[p.pos+i])
		if !ok {
			return 0, p.errorf(ptr, "invalid \\u escape")
		}
		r = r<<4 | v
	}
	p.pos += 4
	return r, nil
}

func (p *parser) str(ptr string) (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := p.data[start:p.pos]
			if !utf8.Valid(s) {
				return "", p.errorf(ptr, "string is not valid UTF-8")
			}
			p.pos++
			return string(s), nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.errorf(ptr, "unescaped control character in a string")
		}
		p.pos++
	}
	var b strings.Builder
	b.Write(p.data[start:p.pos])
	for {
		if p.pos >= len(p.data) {
			return "", p.errorf(ptr, "unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			s := b.String()
			if !utf8.ValidString(s) {
				return "", p.errorf(ptr, "string is not valid UTF-8")
			}
			return s, nil
		case c < 0x20:
			return "", p.errorf(ptr, "unescaped control character in a string")
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		p.pos++ // backslash
		if p.pos >= len(p.data) {
			return "", p.errorf(ptr, "unterminated escape")
		}
		e := p.data[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, err := p.hex4(ptr)
			if err != nil {
				return "", err
			}
			switch {
			case r == 0 && !p.allowNUL:
				return "", p.errorf(ptr, "NUL character (\\u0000) in a string")
			case utf16.IsSurrogate(r) && r < 0xDC00:
				if len(p.data)-p.pos < 6 || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
					return "", p.errorf(ptr, "unpaired UTF-16 surrogate \\u%04x", r)
				}
				p.pos += 2
				lo, err := p.hex4(ptr)
				if err != nil {
					return "", err
				}
				if lo < 0xDC00 || lo > 0xDFFF {
					return "", p.errorf(ptr, "unpaired UTF-16 surrogate \\u%04x", r)
				}
				b.WriteRune(utf16.DecodeRune(r, lo))
			case utf16.IsSurrogate(r):
				return "", p.errorf(ptr, "unpaired UTF-16 surrogate \\u%04x", r)
			default:
				b.WriteRune(r)
			}
		default:
			return "", p.errorf(ptr, "invalid escape \\%c", e)
		}
	}
}

func (p *parser) number(ptr string) (any, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.errorf(ptr, "invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf(ptr, "invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf(ptr, "invalid number")
		}
	}
	f, err := strconv.ParseFloat(string(p.data[start:p.pos]), 64)
	if err != nil {
		return nil, p.errorf(ptr, "number out of range")
	}
	return f, nil
}

// CheckText reports whether s may be stored inside JSON text: valid UTF-8 and no NUL.
func CheckText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("text is not valid UTF-8")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("text contains a NUL character")
	}
	return nil
}
