package server_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
)

// Hostile TRQP queries are 400 Problem Details (trqpPost checks the form), never 500; the rest of
// the API keeps its own error body.
func TestTRQPHostileInput(t *testing.T) {
	h := newHarness(t, storetest.Dialects[0])
	ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", h.key("gov@example.com"), `{"name":"Board"}`).data()["namespace_id"].(string)
	big := strings.Repeat("a", 1<<20)
	valid := `"entity_id":"e","authority_id":"` + ns + `","action":"a","resource":"r"`
	for _, tc := range []struct{ name, body, detail string }{
		{"not JSON", `{"entity_id":`, "Invalid input"},
		{"not an object", `["entity_id"]`, "Invalid input"},
		{"empty body", ``, "Invalid input"},
		{"missing field", `{"entity_id":"e","authority_id":"a","action":"a"}`, "Invalid input: resource is missing"},
		{"empty field", `{"entity_id":"","authority_id":"a","action":"a","resource":"r"}`, "Invalid input: entity_id"},
		{"wrong type", `{"entity_id":1,"authority_id":"a","action":"a","resource":"r"}`, "Invalid input: entity_id"},
		{"null field", `{"entity_id":null,"authority_id":"a","action":"a","resource":"r"}`, "Invalid input: entity_id"},
		{"unknown field", `{` + valid + `,"extra":"x"}`, "Invalid input: extra is not a known field"},
		{"nested context", `{` + valid + `,"context":{"time":{"at":"now"}}}`, "Invalid input: context"},
		{"context not an object", `{` + valid + `,"context":"now"}`, "Invalid input: context"},
		{"context number", `{` + valid + `,"context":{"n":1}}`, "Invalid input: context"},
		{"time not RFC 3339", `{` + valid + `,"context":{"time":"yesterday"}}`, "Invalid input: context.time"},
		{"time with an offset", `{` + valid + `,"context":{"time":"2026-01-01T00:00:00+01:00"}}`, "Invalid input: context.time"},
		{"1 MiB entity", `{"entity_id":"` + big + `","authority_id":"a","action":"a","resource":"r"}`, "Invalid input: entity_id"},
		{"1 MiB context member", `{` + valid + `,"context":{"x":"` + big + `"}}`, "Invalid input: context"},
		{"duplicate member", `{` + valid + `,"entity_id":"f"}`, "Invalid input"},
		{"NUL", `{"entity_id":"\u0000","authority_id":"a","action":"a","resource":"r"}`, "Invalid input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, kind := range []string{"authorization", "recognition"} {
				status, out, raw := h.trqpPost(kind, tc.body)
				if status != http.StatusBadRequest {
					t.Fatalf("%s: status %d, want 400: %.300s", kind, status, raw)
				}
				if d, _ := out["detail"].(string); !strings.HasPrefix(d, tc.detail) {
					t.Fatalf("%s: detail %q, want %q...", kind, d, tc.detail)
				}
			}
		})
	}
	// Another media type is a 415 problem; another operation keeps the API's own error body.
	req := httptest.NewRequest("POST", "/authorization", strings.NewReader(`{`+valid+`}`))
	req.Header.Set("Content-Type", "text/plain")
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnsupportedMediaType || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("text/plain: %d %s %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes())
	}
	if r := h.do("GET", "/svc/lookup/did:svc:nope", "", nil); r.Status != http.StatusNotFound || r.Body["code"] != "namespace_not_found" {
		t.Fatalf("a lookup's error changed form: %d %s", r.Status, r.Raw)
	}
}

// meta.trqp is checked where it is written: a malformed declaration is a 400 naming what is
// wrong, a pair two registries of one namespace declare is a 409, and nothing is written.
func TestTRQPDeclarations(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("gov@example.com")
		ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, `{"name":"Board"}`).data()["namespace_id"].(string)
		create := func(name, trqp string) resp {
			return h.do("POST", "/svc/"+ns+"/create-registry", key, `{"registry_name":"`+name+`","schema":{"type":"object"},"meta":{"trqp":`+trqp+`}}`)
		}
		for _, tc := range []struct{ trqp, msg string }{
			{`"x"`, "meta.trqp must be an object"},
			{`{}`, "meta.trqp declares no pair"},
			{`{"authorizations":{}}`, "meta.trqp.authorizations must be an array"},
			{`{"authorizations":[{"action":"a"}]}`, "meta.trqp.authorizations[0] must be an object with exactly action and resource"},
			{`{"authorizations":[{"action":"","resource":"r"}]}`, "meta.trqp.authorizations[0]: action and resource must be non-empty"},
			{`{"recognitions":[{"action":"a","resource":"r"},{"action":"a","resource":"r"}]}`, "meta.trqp.recognitions[1]: the pair (a, r) appears twice"},
			{`{"authorizations":[{"action":"a","resource":"r"}],"polarity":"neutral"}`, "meta.trqp.polarity must be"},
			{`{"authorizations":[{"action":"a","resource":"r"}],"entity":"details."}`, "meta.trqp.entity must be"},
			{`{"authorizations":[{"action":"a","resource":"r"}],"entity":"did"}`, "meta.trqp.entity must be"},
			{`{"authorizations":[{"action":"a","resource":"r"}],"extra":1}`, "meta.trqp.extra is not a known member"},
			{`{"authorizations":[{"action":"a","resource":"r"}],"governance_framework":"https://x.example"}`, "meta.trqp.governance_framework belongs in the namespace"},
		} {
			r := create("bad", tc.trqp)
			if r.Status != http.StatusBadRequest || !strings.Contains(r.msg(), tc.msg) {
				t.Fatalf("%s: %d %q, want 400 with %q", tc.trqp, r.Status, r.msg(), tc.msg)
			}
		}
		pair := `{"authorizations":[{"action":"issue","resource":"licence"}]}`
		if r := create("first", pair); r.Status != http.StatusCreated {
			t.Fatalf("first: %d %s", r.Status, r.Raw)
		}
		if r := create("second", `{"authorizations":[{"action":"verify","resource":"licence"},{"action":"issue","resource":"licence"}]}`); r.Status != http.StatusConflict ||
			!strings.Contains(r.msg(), "registry first already declares the pair (issue, licence)") {
			t.Fatalf("second: %d %s", r.Status, r.Raw)
		}
		// The same pair as a recognition is another question, and no conflict.
		if r := create("second", `{"recognitions":[{"action":"issue","resource":"licence"}]}`); r.Status != http.StatusCreated {
			t.Fatalf("second as recognition: %d %s", r.Status, r.Raw)
		}
		// update-registry: the registry's own declaration is no conflict; another's is.
		h.must(http.StatusOK, "POST", "/svc/"+ns+"/first/update-registry", key, `{"meta":{"trqp":`+pair+`,"note":"again"}}`)
		if r := h.do("POST", "/svc/"+ns+"/second/update-registry", key, `{"meta":{"trqp":`+pair+`}}`); r.Status != http.StatusConflict {
			t.Fatalf("update to a taken pair: %d %s", r.Status, r.Raw)
		}
		if r := h.do("POST", "/svc/"+ns+"/first/update-registry", key, `{"meta":{"trqp":{"polarity":"negative"}}}`); r.Status != http.StatusBadRequest {
			t.Fatalf("update to a malformed declaration: %d %s", r.Status, r.Raw)
		}
		// update-namespace: the governance framework URL.
		if r := h.do("POST", "/svc/"+ns+"/update-namespace", key, `{"meta":{"trqp":{"governance_framework":"ftp://x"}}}`); r.Status != http.StatusBadRequest ||
			!strings.Contains(r.msg(), "meta.trqp.governance_framework must be an http or https URL") {
			t.Fatalf("bad governance framework: %d %s", r.Status, r.Raw)
		}
		h.must(http.StatusOK, "POST", "/svc/"+ns+"/update-namespace", key, `{"meta":{"trqp":{"governance_framework":"https://board.example/egf"}}}`)
		got := h.must(http.StatusOK, "GET", "/svc/lookup/"+ns+"/first", "", nil).data()["meta"].(map[string]any)
		if got["note"] != "again" {
			t.Fatalf("first's meta: %v", got)
		}
	})
}

// Two registries declaring one pair at once: exactly one is created, the other is a 409.
func TestTRQPDeclarationRace(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("gov@example.com")
		ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, `{"name":"Board"}`).data()["namespace_id"].(string)
		h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", key, `{"registry_name":"existing","schema":{"type":"object"}}`)
		for round := 0; round < 5; round++ {
			pair := `{"trqp":{"authorizations":[{"action":"issue","resource":"r` + strconv.Itoa(round) + `"}]}}`
			statuses := make([]int, 2)
			var wg sync.WaitGroup
			for i := range statuses {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if i == 0 {
						statuses[i] = h.do("POST", "/svc/"+ns+"/create-registry", key,
							`{"registry_name":"new`+strconv.Itoa(round)+`","schema":{"type":"object"},"meta":`+pair+`}`).Status
					} else if round == 0 {
						statuses[i] = h.do("POST", "/svc/"+ns+"/existing/update-registry", key, `{"meta":`+pair+`}`).Status
					} else {
						statuses[i] = h.do("POST", "/svc/"+ns+"/create-registry", key,
							`{"registry_name":"other`+strconv.Itoa(round)+`","schema":{"type":"object"},"meta":`+pair+`}`).Status
					}
				}()
			}
			wg.Wait()
			ok, conflict := 0, 0
			for _, s := range statuses {
				switch s {
				case http.StatusCreated, http.StatusOK:
					ok++
				case http.StatusConflict:
					conflict++
				}
			}
			if ok != 1 || conflict != 1 {
				t.Fatalf("round %d: statuses %v, want one success and one 409", round, statuses)
			}
		}
	})
}

// The Ayra profile's reads: the service's metadata and the declared authorization pairs of an
// authority; /entities/{entity_id} is not served.
func TestTRQPAyraReads(t *testing.T) {
	h := newHarness(t, storetest.Dialects[0])
	key := h.key("gov@example.com")
	ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, `{"name":"Board"}`).data()["namespace_id"].(string)
	for _, c := range []struct{ name, trqp string }{
		{"b", `{"authorizations":[{"action":"verify","resource":"lic"},{"action":"issue","resource":"lic"}]}`},
		{"a", `{"authorizations":[{"action":"issue","resource":"badge"}],"recognitions":[{"action":"govern","resource":"lic"}]}`},
	} {
		h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", key, `{"registry_name":"`+c.name+`","schema":{"type":"object"},"meta":{"trqp":`+c.trqp+`}}`)
	}
	get := func(path string) (int, string, string) {
		rec := httptest.NewRecorder()
		h.e.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Header().Get("Content-Type"), strings.TrimSpace(rec.Body.String())
	}
	if code, _, body := get("/metadata"); code != 200 || !strings.Contains(body, `"id":"did:web:localhost%3A8080"`) {
		t.Fatalf("metadata: %d %s", code, body)
	}
	if code, _, _ := get("/entities/alice"); code != 404 {
		t.Fatalf("entities: %d, want 404 (not served)", code)
	}
	if code, _, body := get("/lookups/authorizations?authority_id=" + ns); code != 200 ||
		body != `[{"action":"issue","resource":"badge"},{"action":"issue","resource":"lic"},{"action":"verify","resource":"lic"}]` {
		t.Fatalf("lookup: %d %s", code, body)
	}
	for path, want := range map[string]int{
		"/lookups/authorizations?authority_id=did:web:nobody.example": 404,
		"/lookups/authorizations":                                     400,
	} {
		if code, ct, body := get(path); code != want || ct != "application/problem+json" {
			t.Fatalf("%s: %d %s %s, want %d problem", path, code, ct, body, want)
		}
	}
}

// The authority's declarations are cached between writes: a write that changes them is seen by
// the next query (the cache is emptied on every commit).
func TestTRQPDeclarationChangeIsSeen(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("gov@example.com")
		ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, `{"name":"Board"}`).data()["namespace_id"].(string)
		h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", key,
			`{"registry_name":"lic","schema":{"type":"object"},"meta":{"trqp":{"authorizations":[{"action":"issue","resource":"lic"}]}}}`)
		h.must(http.StatusCreated, "POST", "/svc/"+ns+"/lic/add-record", key, `{"record_name":"alice","details":{}}`)
		q := trqpQuery("alice", ns, "issue", "lic", time.Time{})
		for range 2 { // the second from the cache
			if status, out, raw := h.trqpPost("authorization", q); status != 200 || out["authorized"] != true {
				t.Fatalf("%d %s", status, raw)
			}
		}
		h.must(http.StatusOK, "POST", "/svc/"+ns+"/lic/update-registry", key,
			`{"meta":{"trqp":{"authorizations":[{"action":"issue","resource":"lic"}],"polarity":"negative"}}}`)
		if status, out, raw := h.trqpPost("authorization", q); status != 200 || out["authorized"] != false || out["message"] != "listed as revoked" {
			t.Fatalf("after the polarity changed: %d %s", status, raw)
		}
		h.must(http.StatusOK, "POST", "/svc/"+ns+"/lic/update-registry", key, `{"meta":{}}`)
		if status, _, raw := h.trqpPost("authorization", q); status != 404 {
			t.Fatalf("after the declaration was removed: %d %s", status, raw)
		}
	})
}

// The queries are anonymous reads within the rate limits: past the burst, 429 as a Problem
// Details document with Retry-After.
func TestTRQPRateLimited(t *testing.T) {
	h := newHarnessWith(t, storetest.Dialects[0], func(c *server.Config) { c.RateLimit = server.RateLimit{RPS: 0.001, Burst: 2} })
	body := `{"entity_id":"e","authority_id":"did:web:nobody.example","action":"a","resource":"r"}`
	for i, want := range []int{404, 404, 429} {
		req := httptest.NewRequest("POST", "/authorization", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.e.ServeHTTP(rec, req)
		if rec.Code != want || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Fatalf("request %d: %d %s %s, want %d problem", i, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes(), want)
		}
		if want == 429 && rec.Header().Get("Retry-After") == "" {
			t.Fatalf("429 without Retry-After")
		}
	}
}
