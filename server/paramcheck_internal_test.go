package server

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// paramValues are values to try against a string schema: the lengths about its bounds, made of
// characters its pattern takes and does not, multi-byte and supplementary-plane characters.
func paramValues(rng *rand.Rand, s *openapi3.Schema) []string {
	vs := []string{"", "a", "0", "_", "-a", "a-", "a.b", "0x" + strings.Repeat("0", 32), "0x" + strings.Repeat("a", 31) + "g",
		"0X" + strings.Repeat("f", 32), "entries/000", "0/x001/234.p/17", "12/x999/000", "1/000.p/1234", "person-0000000",
		"did:svc:TD1E9SChhkenuJHZzQxLjf", "I0Ol", "é", "漢字", "🎉", "a\u2028", "x\ny", "\x00", "ｆｕｌｌ"}
	lengths := []int{0, 1, 2, 3, 31, 32, 33, 43, 44, 45, 63, 64, 65, 127, 128, 129, 252, 253, 254, 255, 256}
	if s.MaxLength != nil {
		m := int(*s.MaxLength)
		lengths = append(lengths, m-1, m, m+1)
	}
	alphabets := []string{"a", "Z9", "abc012._~-", "0123456789abcdef", "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
		"0x/.pentries", "é🎉漢", " !\"#$%&'()*+,/:;<=>?@[\\]^`{|}"}
	for _, n := range lengths {
		for _, alpha := range alphabets {
			runes := []rune(alpha)
			var sb strings.Builder
			for i := 0; i < n; i++ {
				sb.WriteRune(runes[rng.IntN(len(runes))])
			}
			vs = append(vs, sb.String())
			if n > 0 { // one character of another alphabet at the start, at the end
				vs = append(vs, "-"+sb.String()[1:], sb.String()+"🎉")
			}
		}
	}
	for _, e := range s.Enum {
		if str, ok := e.(string); ok {
			vs = append(vs, str, str+"x", strings.ToUpper(str))
		}
	}
	return vs
}

// The precompiled check of every path parameter of the contract gives VisitJSON's verdict on
// every value tried; and it is precompiled for each of them (none of the contract's path
// parameters needs VisitJSON).
func TestStringCheckIsVisitJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for key, op := range contractOps(t) {
		params := append(append(openapi3.Parameters{}, op.route.PathItem.Parameters...), op.route.Operation.Parameters...)
		for _, ref := range params {
			p := ref.Value
			if p.In != openapi3.ParameterInPath || p.Schema == nil || p.Schema.Value == nil {
				continue
			}
			s := p.Schema.Value
			c := newStringCheck(s)
			if !c.compiled {
				t.Errorf("%s: path parameter %s: no precompiled check for its schema", key, p.Name)
				continue
			}
			for _, v := range paramValues(rng, s) {
				checked++
				if got, want := c.valid(v), s.VisitJSON(v) == nil; got != want {
					t.Errorf("%s: path parameter %s=%q: precompiled %v, VisitJSON %v", key, p.Name, v, got, want)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no path parameter was checked")
	}
}

// Schemas the precompiled check does not stand for are left to VisitJSON.
func TestStringCheckLeavesOtherSchemasToVisitJSON(t *testing.T) {
	max := uint64(4)
	cases := []struct {
		schema   *openapi3.Schema
		compiled bool
	}{
		{&openapi3.Schema{Type: &openapi3.Types{"string"}, MaxLength: &max, Pattern: "^a+$", Description: "d"}, true},
		{&openapi3.Schema{Type: &openapi3.Types{"string"}, Enum: []any{"a", "b"}}, true},
		{&openapi3.Schema{Type: &openapi3.Types{"string"}, Format: "uuid"}, false},
		{&openapi3.Schema{Type: &openapi3.Types{"string"}, Pattern: `^\u0041$`}, false},
		{&openapi3.Schema{Type: &openapi3.Types{"string"}, Enum: []any{"a", 1.0}}, false},
		{&openapi3.Schema{Type: &openapi3.Types{"string"}, Nullable: true}, false},
		{&openapi3.Schema{Type: &openapi3.Types{"string", "null"}}, false},
		{&openapi3.Schema{Type: &openapi3.Types{"integer"}}, false},
	}
	for i, tc := range cases {
		c := newStringCheck(tc.schema)
		if c.compiled != tc.compiled {
			t.Errorf("case %d: compiled %v, want %v", i, c.compiled, tc.compiled)
		}
		for _, v := range []string{"", "a", "aaaa", "aaaaa", "b", "A", "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6", "x"} {
			if got, want := c.valid(v), tc.schema.VisitJSON(v) == nil; got != want {
				t.Errorf("case %d %q: %v, VisitJSON %v", i, v, got, want)
			}
		}
	}
}
