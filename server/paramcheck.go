package server

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf16"

	"github.com/getkin/kin-openapi/openapi3"
)

// stringCheck is the precompiled check of a path parameter's schema: what kin-openapi's
// VisitJSON checks of a string value (its length, its pattern, its enum), without the
// validation settings, the visited-schema bookkeeping and the pattern cache it goes through on
// every call. It is made only for a schema that holds nothing else (compileStringCheck);
// TestStringCheckIsVisitJSON holds it to VisitJSON's verdicts.
type stringCheck struct {
	schema   *openapi3.Schema // what VisitJSON is given when there is no precompiled check
	compiled bool
	min      int64
	max      int64 // -1: no maximum
	pattern  *regexp.Regexp
	seq      classSeq        // the pattern, when it is a run of classes (matched without pattern)
	enum     map[string]bool // nil: no enum
}

// newStringCheck returns the check of a string schema: precompiled when the schema holds only a
// type of string, lengths, a pattern that Go's regexp reads as kin-openapi does, string enum
// values and annotations; VisitJSON's otherwise.
func newStringCheck(s *openapi3.Schema) *stringCheck {
	c := &stringCheck{schema: s}
	if s == nil || s.Type == nil || !s.Type.Is(openapi3.TypeString) {
		return c
	}
	// What the schema holds besides what the precompiled check reads and the annotations.
	rest := *s
	rest.Type, rest.MinLength, rest.MaxLength, rest.Pattern, rest.Enum = nil, 0, nil, "", nil
	rest.Title, rest.Description, rest.Example, rest.Examples, rest.Extensions = "", "", nil, nil, nil
	rest.Origin = nil
	if b, err := json.Marshal(&rest); err != nil || string(b) != "{}" {
		return c
	}
	if s.Pattern != "" {
		if strings.Contains(s.Pattern, `\u`) { // kin-openapi rewrites \uXXXX before compiling
			return c
		}
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return c
		}
		c.pattern = re
		c.seq, _ = compileClassSeq(s.Pattern)
	}
	if s.Enum != nil {
		c.enum = map[string]bool{}
		for _, v := range s.Enum {
			str, ok := v.(string)
			if !ok {
				return &stringCheck{schema: s}
			}
			c.enum[str] = true
		}
	}
	c.min, c.max = int64(s.MinLength), -1
	if s.MaxLength != nil {
		c.max = int64(*s.MaxLength)
	}
	c.compiled = true
	return c
}

// valid reports whether v passes the schema.
func (c *stringCheck) valid(v string) bool {
	if !c.compiled {
		return c.schema.VisitJSON(v) == nil
	}
	if c.enum != nil && !c.enum[v] {
		return false
	}
	if c.min != 0 || c.max >= 0 {
		// The length as kin-openapi counts it.
		n := int64(0)
		for _, r := range v {
			if utf16.IsSurrogate(r) {
				n += 2
			} else {
				n++
			}
		}
		if n < c.min || c.max >= 0 && n > c.max {
			return false
		}
	}
	switch {
	case c.seq != nil:
		return c.seq.match(v)
	case c.pattern != nil:
		return c.pattern.MatchString(v)
	}
	return true
}
