package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	api "github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// contractOp is one operation of the contract, with a request path for it.
type contractOp struct {
	id, method, path string
	security         string // "required", "optional" or "none"
	probe            bool   // x-svc-probe
}

// wellFormed are values for the path parameters (the operations are reached; whether the
// entries exist does not matter here), and the required query parameters.
var wellFormed = map[string]string{
	"namespace": "did:web:example.com:ns", "namespace_id": "did:web:example.com:ns", "registry_name": "employees",
	"record_name": "alice", "domain": "example.com", "tag": "membership", "profile_id": "4vJ9JU1bJJE96FWSJKvHsj",
	"notification_id": "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6", "request_id": "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
	"key_id": "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6", "job_id": "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
	"subscription_id": "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6", "version": "0x" + strings.Repeat("ab", 16),
	"tile_path": "0/000.p/1", "id": "0190f2a1-b2c3-7d4e-8f60-718293a4b5c6",
}

// contractOps is every operation of the contract, read from it: an operation added to the
// contract is in every table made from this.
func contractOps(t *testing.T) []contractOp {
	t.Helper()
	doc, err := api.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var out []contractOp
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			sec := doc.Security
			if op.Security != nil {
				sec = *op.Security
			}
			o := contractOp{id: op.OperationID, method: method, security: "required"}
			switch {
			case len(sec) == 0:
				o.security = "none"
			default:
				for _, r := range sec {
					if len(r) == 0 {
						o.security = "optional"
					}
				}
			}
			o.probe, _ = op.Extensions["x-svc-probe"].(bool)
			o.path = param.ReplaceAllStringFunc(path, func(m string) string {
				v, ok := wellFormed[m[1:len(m)-1]]
				if !ok {
					t.Fatalf("%s: no well-formed value for the path parameter %s", o.id, m)
				}
				return v
			})
			var q []string
			for _, p := range op.Parameters {
				if p.Value != nil && p.Value.In == "query" && p.Value.Required {
					q = append(q, p.Value.Name+"=1")
				}
			}
			if len(q) > 0 {
				o.path += "?" + strings.Join(q, "&")
			}
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// request is an operation's request with the Authorization header auth ("": none), from addr.
func (o contractOp) request(auth, addr string) *http.Request {
	var req *http.Request
	if o.method == http.MethodPost || o.method == http.MethodPut || o.method == http.MethodPatch {
		req = httptest.NewRequest(o.method, o.path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptest.NewRequest(o.method, o.path, nil)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if addr != "" {
		req.RemoteAddr = addr + ":1234"
	}
	return req
}

// Issue 39, item 6: one authentication rule for every operation, as the contract declares it.
// The table is every operation of the contract × no key, a valid key, an unknown key and a
// revoked key: an operation that needs a key answers 401 without one; every operation but the
// probes answers 401 to an unknown or a revoked key (the API guide's promise, which /svc/stats,
// the tag query, did.json, the log and the DeDi reads broke) and lets a valid key through;
// only the probes (x-svc-probe) declare security: [] and ignore the header.
func TestOneAuthenticationRule(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	valid, revoked := h.key("valid@example.com"), h.key("revoked@example.com")
	if err := h.store.RevokeAPIKey(context.Background(), revoked); err != nil {
		t.Fatal(err)
	}
	unknown := "svc_" + strings.Repeat("A", 43)
	keys := []struct{ name, auth string }{{"no key", ""}, {"a valid key", "Bearer " + valid}, {"an unknown key", "Bearer " + unknown}, {"a revoked key", "Bearer " + revoked}}
	ops := contractOps(t)
	probes := 0
	for _, o := range ops {
		if o.security == "none" {
			if !o.probe {
				t.Errorf("%s declares security: [] and is not a probe", o.id)
			}
			probes++
		}
		for _, k := range keys {
			rec := httptest.NewRecorder()
			h.e.ServeHTTP(rec, o.request(k.auth, ""))
			want401 := false
			switch {
			case o.probe:
			case k.name == "no key":
				want401 = o.security == "required"
			case k.name != "a valid key":
				want401 = true
			}
			if got := rec.Code == http.StatusUnauthorized; got != want401 {
				t.Errorf("%s %s %s (security %s) with %s: %d, want 401: %v\n%.200s", o.id, o.method, o.path, o.security, k.name, rec.Code, want401, rec.Body)
			}
		}
	}
	if probes != 2 || len(ops) < 50 {
		t.Fatalf("%d operations, %d probes: the contract was not read", len(ops), probes)
	}
}

// Every operation but the probes authenticates a key that is sent, so a client's valid key is
// charged to the key's own rate bucket there too: its second request within the burst of one
// passes, where it was charged to its address (issue 39: "a keyed client is always charged to
// its address's rate bucket there").
func TestKeyHasItsOwnRateBucketOnEveryOperation(t *testing.T) {
	h := newHarnessWith(t, store.DialectSQLite, func(c *server.Config) { c.RateLimit = server.RateLimit{RPS: 0.001, Burst: 1} })
	for i, o := range contractOps(t) {
		if o.probe {
			continue
		}
		key := "Bearer " + h.key(fmt.Sprintf("client%d@example.com", i))
		addr := fmt.Sprintf("127.0.%d.%d", 1+i/200, 1+i%200)
		for n := 1; n <= 2; n++ {
			rec := httptest.NewRecorder()
			h.e.ServeHTTP(rec, o.request(key, addr))
			if rec.Code == http.StatusTooManyRequests || rec.Code == http.StatusUnauthorized {
				t.Errorf("%s %s: request %d with a valid key: %d", o.id, o.path, n, rec.Code)
			}
		}
		rec := httptest.NewRecorder()
		h.e.ServeHTTP(rec, o.request("", addr))
		if rec.Code != http.StatusTooManyRequests {
			t.Errorf("%s %s: an anonymous request from the address whose burst the key's first request used: %d", o.id, o.path, rec.Code)
		}
	}
}
