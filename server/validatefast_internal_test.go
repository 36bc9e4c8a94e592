package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/svc-directory/svc/gen"
)

func contractOps(t *testing.T) map[opKey]*operation {
	t.Helper()
	doc, err := gen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = openapi3.Servers{}
	ops, err := loadOperations(doc)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

// The quick check passes a request only where the full check passes it: for every operation
// that has one, every path parameter is tried with values valid and not (empty, too long, out
// of pattern, odd characters), and with a query string and each declared header present.
func TestFastParamsPassOnlyWhatTheFullCheckPasses(t *testing.T) {
	values := []string{"a", "bench", "did:svc:TD1E9SChhkenuJHZzQxLjf", "person-0000000", "r0", "", " ", "a b", "é",
		"0x" + strings.Repeat("0", 32), "0X" + strings.Repeat("f", 32), strings.Repeat("x", 64), strings.Repeat("x", 300),
		"example.com", "_x", "x_", "-x", "x.", "1", "*", "%", "a/b", "0/x001/234.p/17", "did:web:example.com", "\t"}
	fastOps, fastPasses := 0, 0
	for key, op := range contractOps(t) {
		if op.fast == nil {
			continue
		}
		fastOps++
		method := key.method
		names := make([]string, 0, len(op.fast.path))
		for n := range op.fast.path {
			names = append(names, n)
		}
		for _, varied := range names {
			for _, v := range values {
				params := map[string]string{}
				for _, n := range names {
					params[n] = "a"
				}
				params[varied] = v
				for _, extra := range append([]string{"", "?x=1"}, op.fast.headers...) {
					target := "/x"
					if extra == "?x=1" {
						target += extra
					}
					req := httptest.NewRequest(method, target, nil)
					if extra != "" && extra != "?x=1" {
						req.Header.Set(extra, "a")
					}
					in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: op.route,
						Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, ExcludeRequestBody: true}}
					full := openapi3filter.ValidateRequest(context.Background(), in)
					if validMap(op.fast, req, params) {
						fastPasses++
						if full != nil {
							t.Errorf("%s %s=%q (%s): the quick check passes what the full check refuses: %v", key, varied, v, extra, full)
						}
					}
				}
			}
		}
	}
	if fastOps == 0 || fastPasses == 0 {
		t.Fatalf("the quick check stands for %d operations and passed %d requests: it is not in use", fastOps, fastPasses)
	}
}

// validMap is the quick check of path parameters given as a map.
func validMap(f *fastParams, req *http.Request, params map[string]string) bool {
	var names, values []string
	for n, v := range params {
		names, values = append(names, n), append(values, v)
	}
	return f.valid(req, names, values)
}

// The GETs of the hot path take the quick check: the lookups and /healthz.
func TestFastParamsCoverTheLookups(t *testing.T) {
	ops := contractOps(t)
	for _, key := range []opKey{{"GET", "/svc/lookup/:namespace/:registry_name/:record_name"}, {"GET", "/svc/lookup/:namespace/:registry_name"},
		{"GET", "/svc/lookup/:namespace"}, {"GET", "/healthz"}} {
		op := ops[key]
		if op == nil {
			t.Fatalf("no operation %s", key)
		}
		if op.fast == nil {
			t.Errorf("%s has no quick check", key)
		}
	}
	op := ops[opKey{"GET", "/svc/lookup/:namespace/:registry_name/:record_name"}]
	req := httptest.NewRequest(http.MethodGet, "/x", nil)
	if !validMap(op.fast, req, map[string]string{"namespace": "did:svc:TD1E9SChhkenuJHZzQxLjf", "registry_name": "r0", "record_name": "person-0000000"}) {
		t.Error("a plain record lookup does not pass the quick check")
	}
}
