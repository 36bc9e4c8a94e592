package server

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// The contract's check of a request's parameters (openapi3filter.ValidateRequest) decodes every
// declared parameter, query and headers included, on every request. Most GETs carry nothing but
// their path: for those, what it would find is known from the path parameters alone, each
// checked against its schema exactly as it checks them. fastParams says when that holds; when
// it does not, or when a path parameter fails, the full check runs and gives its own answer, so
// every refusal is the one it always was.

// fastParams is what an operation's quick check needs: its path parameters' checks, or nil
// when the operation has a parameter the quick check cannot stand for.
type fastParams struct {
	path    map[string]*stringCheck
	headers []string // the declared header parameters, canonical: any present takes the full check
}

// newFastParams returns the quick check of an operation, or nil when only the full check will
// do: a parameter that is required outside the path (its absence is a refusal), has a default
// (the full check adds it to the request), is described by content rather than a schema, or a
// path parameter that is not a plain string in the simple style (the full check parses it).
func newFastParams(item *openapi3.PathItem, op *openapi3.Operation) *fastParams {
	f := &fastParams{path: map[string]*stringCheck{}}
	params := append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...)
	for _, ref := range params {
		p := ref.Value
		if p == nil || p.Content != nil || p.Schema == nil || p.Schema.Value == nil {
			return nil
		}
		s := p.Schema.Value
		if s.Default != nil || len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Not != nil {
			return nil
		}
		switch p.In {
		case openapi3.ParameterInPath:
			if !s.Type.Is(openapi3.TypeString) || (p.Style != "" && p.Style != openapi3.SerializationSimple) || p.Explode != nil && *p.Explode {
				return nil
			}
			f.path[p.Name] = newStringCheck(s)
		case openapi3.ParameterInQuery:
			if p.Required {
				return nil
			}
		case openapi3.ParameterInHeader:
			if p.Required {
				return nil
			}
			f.headers = append(f.headers, http.CanonicalHeaderKey(p.Name))
		default: // cookies
			return nil
		}
	}
	return f
}

// valid reports whether the full check would pass the request: no query string, none of the
// declared headers, and each path parameter (names, unescaped values: no name twice) non-empty
// and valid against its schema.
// False means only that the full check must run.
func (f *fastParams) valid(req *http.Request, names, values []string) bool {
	if f == nil || req.URL.RawQuery != "" || req.URL.ForceQuery {
		return false
	}
	for _, h := range f.headers {
		if _, ok := req.Header[h]; ok {
			return false
		}
	}
	if len(names) != len(f.path) {
		return false
	}
	for i, name := range names {
		c := f.path[name]
		if c == nil || values[i] == "" || !c.valid(values[i]) {
			return false
		}
	}
	return true
}
