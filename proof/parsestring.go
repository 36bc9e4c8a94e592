package proof

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON parser's strings (parse.go has the parser): their escapes, the control characters
// and invalid UTF-8 they refuse, and the words their refusals use.

// stringKind tells error messages whether a string is a value or an object key.
type stringKind bool

const (
	inValue stringKind = false
	inKey   stringKind = true
)

func (k stringKind) String() string {
	if k == inKey {
		return "object key"
	}
	return "string"
}

// article returns "a string" or "an object key".
func (k stringKind) article() string {
	if k == inKey {
		return "an object key"
	}
	return "a string"
}

// str parses the string at p.pos.
func (p *parser) str(what stringKind) (string, error) {
	p.pos++ // opening quote
	start := p.pos
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == '"':
			raw := p.data[start:p.pos]
			if i := invalidUTF8At(raw); i >= 0 {
				return "", p.failAt(start+i, "%s is not valid UTF-8", what)
			}
			p.pos++
			return string(raw), nil
		case c == '\\':
			return p.escapedStr(start, what)
		case c < 0x20:
			return "", p.control(c, what)
		}
		p.pos++
	}
	return "", p.fail("unterminated %s", what)
}

func (p *parser) control(c byte, what stringKind) error {
	if c == 0 {
		return p.fail("NUL character in %s", what.article())
	}
	return p.fail("unescaped control character U+%04X in %s", c, what.article())
}

// escapedStr continues str from its first backslash; the string began at start.
func (p *parser) escapedStr(start int, what stringKind) (string, error) {
	buf := p.scratch[:0]
	run := start // start of the current stretch of literal bytes
	for {
		if p.pos >= len(p.data) {
			return "", p.fail("unterminated %s", what)
		}
		c := p.data[p.pos]
		if c != '"' && c != '\\' {
			if c < 0x20 {
				return "", p.control(c, what)
			}
			p.pos++
			continue
		}
		literal := p.data[run:p.pos]
		if i := invalidUTF8At(literal); i >= 0 {
			return "", p.failAt(run+i, "%s is not valid UTF-8", what)
		}
		buf = append(buf, literal...)
		if c == '"' {
			p.pos++
			s := string(buf)
			p.scratch = buf
			return s, nil
		}
		escAt := p.pos
		p.pos++ // backslash
		if p.pos >= len(p.data) {
			return "", p.fail("unterminated %s", what)
		}
		e := p.data[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.failAt(escAt, "invalid \\u escape in %s", what.article())
			}
			switch {
			case r == 0 && !p.allowNUL:
				return "", p.failAt(escAt, "NUL character (\\u0000) in %s", what.article())
			case r >= 0xD800 && r <= 0xDBFF: // high surrogate: a low one must follow
				if p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					if lo, ok := p.hex4(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						buf = utf8.AppendRune(buf, utf16.DecodeRune(r, lo))
						break
					}
					p.pos = save
				}
				return "", p.failAt(escAt, "unpaired UTF-16 surrogate \\u%04x in %s", r, what.article())
			case r >= 0xDC00 && r <= 0xDFFF:
				return "", p.failAt(escAt, "unpaired UTF-16 surrogate \\u%04x in %s", r, what.article())
			default:
				buf = utf8.AppendRune(buf, r)
			}
		default:
			return "", p.failAt(escAt, "invalid escape %s in %s", strconv.Quote(string([]byte{'\\', e})), what.article())
		}
		run = p.pos
	}
}

// hex4 reads the four hex digits of a \u escape.
func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}
