package proof

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseJSON strictly parses one JSON text (RFC 8259) into Go values as JavaScript's JSON.parse
// would: objects become map[string]any, arrays []any, numbers float64 (correctly rounded;
// -0 stays -0), and strings, booleans and null become string, bool and nil. Whitespace is
// JSON's four characters only; a byte order mark is not accepted.
//
// Beyond the JSON grammar it refuses what a stored entry must never hold, because the entry
// could not be stored faithfully or its digest recomputed by a client: trailing data after the
// value, nesting of objects and arrays deeper than maxDepth levels (the outermost container is
// level 1; maxDepth < 1 admits only scalars), NUL characters in any string or object key (raw
// or \u0000), UTF-16 surrogate escapes that do not form a pair (\ud800 alone, \udc00 alone,
// \udc00\ud800), bytes that are not valid UTF-8, numbers whose magnitude overflows float64
// (1e400; JSON.parse would make them Infinity) and duplicate object keys (compared after
// unescaping). Numbers too small for float64 become zero, as in JavaScript.
//
// Every refusal is a *ParseError, whose message names the JSON pointer (RFC 6901) of the
// offending place, for example `invalid JSON at /details/name (byte 42): NUL character
// (\u0000) in a string`.
func ParseJSON(data []byte, maxDepth int) (any, error) {
	p := parser{data: data, maxDepth: maxDepth}
	return p.document()
}

// ParseExactJSON is ParseJSON for text that is stored: it also refuses every number that
// float64 cannot keep as written, so that what is stored, digested and shown again is the
// number the client sent, never a neighbour of it. Refused are
//   - integers beyond ±(2^53−1), however written, up to 10^21: beyond 2^53−1 not every
//     integer is a float64 (RFC 7493 I-JSON; JavaScript's safe integers), so that
//     9007199254740993 would become …992, and below 10^21 numbers are stored as plain
//     integers. From 10^21 on they are stored in exponent form (1e+21) and are numbers
//     like any other;
//   - any number whose value changes when rounded to float64: more significant digits than
//     float64 holds (3.14159265358979323846), or so small it would become 0 (1e-400), since
//     its stored form, the shortest that round-trips, would name another number.
//
// Numbers that only change their spelling keep their value and are accepted (1.0 is stored as
// 1, 1E2 as 100, -0 as 0, 0.1 as 0.1; the value returned is the stored one, so -0 is 0), and
// every stored form is accepted again. The refusal names the JSON pointer of the number.
func ParseExactJSON(data []byte, maxDepth int) (any, error) {
	p := parser{data: data, maxDepth: maxDepth, exactNumbers: true}
	return p.document()
}

// maxSafeInteger is 2^53−1, the largest integer below which every integer is a float64.
const maxSafeInteger = 1<<53 - 1

// decodeJSON is ParseJSON admitting NUL characters: JSON.parse's reading of text that is only
// hashed, never stored, such as the reference's conformance vectors.
func decodeJSON(data []byte, maxDepth int) (any, error) {
	p := parser{data: data, maxDepth: maxDepth, allowNUL: true}
	return p.document()
}

// ParseError is a refusal of ParseJSON.
type ParseError struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value or member ("" is the
	// whole text). A duplicate key is reported at its member, other faults of a key at the
	// object holding it.
	Pointer string
	// Offset is the byte offset in the input at which the fault was found.
	Offset int
	// Reason says what is wrong.
	Reason string
}

func (e *ParseError) Error() string {
	where := e.Pointer
	if where == "" {
		where = "the top level"
	}
	return "invalid JSON at " + where + " (byte " + strconv.Itoa(e.Offset) + "): " + e.Reason
}

// CheckText reports whether a Go string may be stored inside JSON text: it must be valid
// UTF-8 (so it has no lone surrogates either) and hold no NUL character.
func CheckText(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("text is not valid UTF-8")
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Errorf("text contains a NUL character (at byte %d)", i)
	}
	return nil
}

// invalidUTF8At returns the offset of the first byte of s that is not valid UTF-8, or -1.
func invalidUTF8At(s []byte) int {
	if utf8.Valid(s) {
		return -1
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// escapePointerToken escapes a member name as an RFC 6901 reference token.
func escapePointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

type parser struct {
	data     []byte
	pos      int
	maxDepth int
	allowNUL bool
	// exactNumbers refuses numbers that float64 does not keep as written (ParseExactJSON).
	exactNumbers bool
	path         []segment // where the parser is, rendered as a JSON pointer only on error
	scratch      []byte    // reused for strings with escapes
	// each, when set, takes the elements of the array of the top-level member eachMember
	// (ParseJSONEach).
	each       func(i int, v any, start, end int)
	eachMember string
	deferred   bool
}

// segment is one step of the path: an object member (index < 0) or an array element.
type segment struct {
	key   string
	index int
}

func (p *parser) pointer() string {
	var b strings.Builder
	for _, s := range p.path {
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(escapePointerToken(s.key))
		}
	}
	return b.String()
}

// failAt reports a fault found at byte offset off, at the current path.
func (p *parser) failAt(off int, format string, args ...any) error {
	return &ParseError{Pointer: p.pointer(), Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func (p *parser) fail(format string, args ...any) error {
	return p.failAt(p.pos, format, args...)
}

func (p *parser) document() (any, error) {
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.fail("unexpected %s after the JSON value", describe(p.data[p.pos]))
	}
	return v, nil
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

// describe names an unexpected input byte for an error message.
func describe(c byte) string {
	if c > ' ' && c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// value parses the value at p.pos, inside depth enclosing objects and arrays.
func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of input, expected a value")
	}
	switch c := p.data[p.pos]; c {
	case '{', '[':
		if depth >= p.maxDepth {
			return nil, p.fail("nesting deeper than %d levels", p.maxDepth)
		}
		if c == '{' {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case '"':
		return p.str(inValue)
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.number()
	default:
		return nil, p.fail("unexpected %s, expected a value", describe(c))
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.fail("invalid literal, expected %s", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // '{'
	m := make(map[string]any)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			if p.pos >= len(p.data) {
				return nil, p.fail("unexpected end of input in an object, expected a key")
			}
			return nil, p.fail("unexpected %s in an object, expected a string key", describe(p.data[p.pos]))
		}
		keyAt := p.pos
		k, err := p.str(inKey)
		if err != nil {
			return nil, err
		}
		p.path = append(p.path, segment{key: k, index: -1})
		if _, dup := m[k]; dup {
			return nil, p.failAt(keyAt, "duplicate key %s", strconv.Quote(k))
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after the key")
		}
		p.pos++
		p.skipSpace()
		var v any
		if p.each != nil && depth == 1 && k == p.eachMember && p.pos < len(p.data) && p.data[p.pos] == '[' {
			v, err = p.eachArray(depth)
		} else {
			v, err = p.value(depth)
		}
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		m[k] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in an object, expected ',' or '}'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			return m, nil
		default:
			return nil, p.fail("unexpected %s in an object, expected ',' or '}'", describe(p.data[p.pos]))
		}
	}
}

func (p *parser) array(depth int) (any, error) { return p.elements(depth, nil) }

// elements parses an array's elements after its '[' into a []any; or, with each (the array
// ParseJSONEach defers), gives each element to each with its text's span and keeps none.
func (p *parser) elements(depth int, each func(i int, v any, start, end int)) (any, error) {
	p.pos++ // '['
	a := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, nil
	}
	for i := 0; ; i++ {
		p.path = append(p.path, segment{index: i})
		start := p.pos
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		if each != nil {
			each(i, v, start, p.pos)
		} else {
			a = append(a, v)
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unexpected end of input in an array, expected ',' or ']'")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			return a, nil
		default:
			return nil, p.fail("unexpected %s in an array, expected ',' or ']'", describe(p.data[p.pos]))
		}
	}
}
