package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

func TestMetrics(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	key := h.key("owner@example.com")
	id := publish(t, h, key)
	data := h.must(200, "GET", "/svc/lookup/"+id+"/employees/alice", "", nil).data()
	h.must(200, "POST", "/svc/verify-record-lookup", key, map[string]any{"record_lookup_response": map[string]any{"data": data}})
	h.must(404, "GET", "/svc/lookup/did:svc:nope", "", nil)
	h.do("GET", "/nowhere", "", nil)
	req := httptest.NewRequest("GET", "/metrics", nil)
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	body := rec.Body.String()
	for _, want := range []string{
		`svc_http_requests_total{method="GET",route="/svc/lookup/:namespace/:registry_name/:record_name",status="200"} 1`,
		`svc_http_requests_total{method="GET",route="/svc/lookup/:namespace",status="404"} 1`,
		`svc_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`svc_http_request_duration_seconds_bucket{method="POST",route="/svc/verify-record-lookup"`,
		`svc_lookup_verifications_total{kind="record",result="success"} 1`,
		`go_sql_open_connections{db_name="sqlite"}`,
		`go_sql_wait_duration_seconds_total{db_name="sqlite"}`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(body, id) {
		t.Error("a raw path (namespace id) leaked into the metric labels")
	}
}

// from sends a request from a client address with a raw Authorization header ("" for none).
func from(h *harness, method, path, addr, authorization string) *httptest.ResponseRecorder {
	h.t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req.RemoteAddr = addr
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	return rec
}

func TestRateLimitAndCORS(t *testing.T) {
	h := newHarnessWith(t, store.DialectSQLite, func(c *server.Config) {
		c.RateLimit = server.RateLimit{RPS: 0.5, Burst: 2}
		c.CORSOrigins = []string{"https://app.example"}
	})
	a, b := h.key("a@example.com"), h.key("b@example.com")
	const read = "/svc/lookup/did:svc:nope" // optional authentication: a key is checked
	// a's first request counts against its address; once authenticated, a has its own bucket.
	for i := 0; i < 3; i++ {
		if rec := from(h, "GET", read, "192.0.2.1:1", "Bearer "+a); rec.Code != http.StatusNotFound {
			t.Fatalf("a, request %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	rec := from(h, "GET", read, "192.0.2.1:1", "Bearer "+a)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "Too many requests") {
		t.Fatalf("a over its limit: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
	// b, from the same address, has its first request counted against the address (one token
	// left), then a bucket of its own.
	for i := 0; i < 3; i++ {
		if rec := from(h, "GET", read, "192.0.2.1:1", "  bearer   "+b+" "); rec.Code != http.StatusNotFound {
			t.Fatalf("b, request %d: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	if rec := from(h, "GET", "/healthz", "192.0.2.1:1", ""); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("anonymous from the address a and b started from: %d", rec.Code)
	}
	for i := 0; i < 2; i++ { // anonymous: per address
		if rec := from(h, "GET", "/healthz", "192.0.2.2:1", ""); rec.Code != http.StatusOK {
			t.Fatalf("anonymous %d: %d", i+1, rec.Code)
		}
	}
	if rec := from(h, "GET", "/healthz", "192.0.2.2:1", ""); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("anonymous over the limit: %d", rec.Code)
	}
	// IPv6 clients are limited by their /64.
	from(h, "GET", "/healthz", "[2001:db8::1]:1", "")
	from(h, "GET", "/healthz", "[2001:db8::2]:1", "")
	if rec := from(h, "GET", "/healthz", "[2001:db8::3]:1", ""); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("a third address of one IPv6 /64: %d", rec.Code)
	}

	for _, path := range []string{"/svc/lookup/did:svc:x", "/no/such/path"} {
		req := httptest.NewRequest(http.MethodOptions, path, nil)
		req.Header.Set("Origin", "https://app.example")
		req.Header.Set("Access-Control-Request-Method", "GET")
		req.Header.Set("Access-Control-Request-Headers", "authorization")
		req.RemoteAddr = "192.0.2.9:1234"
		rec := httptest.NewRecorder()
		h.e.ServeHTTP(rec, req)
		if rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example" {
			t.Fatalf("preflight of %s: %d %v", path, rec.Code, rec.Header())
		}
	}
	req := httptest.NewRequest(http.MethodOptions, "/svc/lookup/x", nil)
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.RemoteAddr = "192.0.2.10:1234"
	rec = httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	if rec.Code >= 500 || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("foreign origin: %d %v", rec.Code, rec.Header())
	}
}

// bulkBody is an add-records body of n records padded to about size bytes.
func bulkBody(n, size int) string {
	const rec = `{"record_name":"r%04d","details":{"email":"r%04d@example.com","bio":"%s"}}`
	pad := strings.Repeat("x", size/n-len(fmt.Sprintf(rec, 0, 0, ""))-1)
	var b strings.Builder
	b.WriteString(`{"records":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, rec, i, i, pad)
	}
	b.WriteString(`]}`)
	return b.String()
}

// TestBodyLimits: add-records takes up to 8 MiB, every other operation 1 MiB (docs/operator-guide.md, Limits).
func TestBodyLimits(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	key := h.key("owner@example.com")
	id := publish(t, h, key)
	reg := "/svc/" + id + "/employees"

	seven := bulkBody(1000, 7<<20)
	if len(seven) < 7<<20-4096 || len(seven) > 7<<20 {
		t.Fatalf("the 7 MiB batch is %d bytes", len(seven))
	}
	r := h.must(http.StatusCreated, "POST", reg+"/add-records", key, seven)
	if got := len(r.data()["records"].([]any)); got != 1000 {
		t.Fatalf("%d records added, want 1000", got)
	}
	before := countRows(t, h)
	nine := strings.ReplaceAll(bulkBody(1000, 9<<20), `"record_name":"r`, `"record_name":"s`)
	r = h.must(http.StatusRequestEntityTooLarge, "POST", reg+"/add-records", key, nine)
	if !strings.Contains(r.msg(), "8 MiB") {
		t.Fatalf("413 message %q does not name the 8 MiB limit", r.msg())
	}
	over1 := `{"details":{"email":"a@example.com","x":"` + strings.Repeat("a", 1<<20) + `"}}`
	r = h.must(http.StatusRequestEntityTooLarge, "POST", reg+"/alice/update-record", key, over1)
	if !strings.Contains(r.msg(), "1 MiB") {
		t.Fatalf("413 message %q does not name the 1 MiB limit", r.msg())
	}
	h.must(http.StatusRequestEntityTooLarge, "POST", reg+"/add-record", key, `{"record_name":"big",`+over1[1:])
	if after := countRows(t, h); after != before {
		t.Fatalf("refused bodies wrote: %v before, %v after", before, after)
	}
}

// TestMetricsLabelsAreBounded: made-up methods and paths, answered or refused with 429, leave a
// bounded number of series (issue 14: 20,000 made-up methods made 19,756 series).
func TestMetricsLabelsAreBounded(t *testing.T) {
	h := newHarnessWith(t, store.DialectSQLite, func(c *server.Config) {
		c.RateLimit = server.RateLimit{RPS: 0.001, Burst: 100}
	})
	paths := []string{"/healthz", "/svc/lookup/did:svc:x", "/svc/create-namespace", "/nowhere/%d", "/svc/lookup/a/b/c/d/%d"}
	const n = 20000
	statuses := map[int]int{}
	for i := range n {
		path := paths[i%len(paths)]
		if strings.Contains(path, "%d") {
			path = fmt.Sprintf(path, i)
		}
		req := httptest.NewRequest(fmt.Sprintf("M%05d", i), path, nil)
		req.RemoteAddr = fmt.Sprintf("192.0.2.%d:1234", i%100) // 100 addresses × burst 100: half pass, half get 429
		rec := httptest.NewRecorder()
		h.e.ServeHTTP(rec, req)
		statuses[rec.Code]++
	}
	if statuses[http.StatusTooManyRequests] < n/3 || statuses[http.StatusMethodNotAllowed] == 0 || statuses[http.StatusNotFound] == 0 {
		t.Fatalf("statuses %v: want 405s, 404s and 429s", statuses)
	}
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.RemoteAddr = "198.51.100.1:1234"
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	series, counters, all := 0, 0, 0
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		all++
		if strings.HasPrefix(line, "svc_http_") {
			series++
		}
		if strings.HasPrefix(line, "svc_http_requests_total{") {
			counters++
		}
	}
	t.Logf("after %d made-up methods (%v): %d svc_http_requests_total series, %d svc_http_* series, %d series in all, /metrics %d bytes",
		n, statuses, counters, series, all, rec.Body.Len())
	// 4 routes (3 templates and "unmatched") × statuses × one method label, with 16 lines per
	// histogram: well under 200.
	if series > 200 {
		t.Fatalf("%d svc_http_* series after %d made-up methods: labels are not bounded", series, n)
	}
	for _, want := range []string{
		`svc_http_requests_total{method="other",route="unmatched",status="404"}`,
		`svc_http_requests_total{method="other",route="/healthz",status="405"}`,
		`svc_http_requests_total{method="other",route="unmatched",status="429"}`,
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestRateLimitCannotBeBypassedWithKeys: keys that do not authenticate count against the
// client address, and once it is over its limit they are refused before any key lookup
// (issue 14: 600 unique junk headers were all answered 200, 600 unknown keys all 401).
func TestRateLimitCannotBeBypassedWithKeys(t *testing.T) {
	const burst = 10
	h := newHarnessWith(t, store.DialectSQLite, func(c *server.Config) {
		c.RateLimit = server.RateLimit{RPS: 0.001, Burst: burst}
	})
	valid := h.key("owner@example.com")
	// The valid key authenticates first (its first request counts against its address).
	if rec := from(h, "GET", "/svc/notifications/pending", "192.0.2.8:1", "Bearer "+valid); rec.Code != http.StatusOK {
		t.Fatalf("valid key: %d %s", rec.Code, rec.Body)
	}
	run := func(name, addr, path string, header func(i int) string, want int) {
		t.Helper()
		counts := map[int]int{}
		for i := range 600 {
			counts[from(h, "GET", path, addr, header(i)).Code]++
		}
		if counts[want] != burst || counts[http.StatusTooManyRequests] != 600-burst {
			t.Errorf("%s: answers %v; want %d × %d, then 429", name, counts, burst, want)
		}
	}
	run("unique junk headers", "192.0.2.5:1", "/healthz", func(i int) string { return fmt.Sprintf("Junk %d", i) }, http.StatusOK)
	run("unknown well-formed keys", "192.0.2.6:1", "/svc/lookup/did:svc:nope",
		func(i int) string { return fmt.Sprintf("Bearer svc_%043d", i) }, http.StatusUnauthorized)
	run("malformed bearer keys on an authenticated operation", "192.0.2.7:1", "/svc/notifications/pending",
		func(i int) string { return fmt.Sprintf("Bearer nonsense-%d", i) }, http.StatusUnauthorized)
	// The address is spent; the valid key, authenticated before, keeps its own bucket there.
	for i := range burst {
		if rec := from(h, "GET", "/svc/notifications/pending", "192.0.2.7:1", "Bearer "+valid); rec.Code != http.StatusOK {
			t.Fatalf("valid key, request %d after the address was spent: %d %s", i+1, rec.Code, rec.Body)
		}
	}
	if rec := from(h, "GET", "/svc/notifications/pending", "192.0.2.7:1", "Bearer "+valid); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("valid key over its own limit: %d", rec.Code)
	}
}

// TestBodiesOnDeleteAndGet: operations without a request body ignore a small one and refuse an
// oversized one with 413, like every other (the contract check cannot send these through its
// proxy).
func TestBodiesOnDeleteAndGet(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	key := h.key("owner@example.com")
	over := `{"x":"` + strings.Repeat("a", 1<<20) + `"}`
	for _, c := range []struct{ method, path string }{{"DELETE", "/svc/watch/nope"}, {"GET", "/svc/watch/subscriptions"}} {
		r := h.do(c.method, c.path, key, over)
		if r.Status != http.StatusRequestEntityTooLarge || !strings.Contains(r.msg(), "1 MiB") {
			t.Fatalf("%s %s with 1 MiB: %d %q", c.method, c.path, r.Status, r.msg())
		}
	}
	h.must(http.StatusNotFound, "DELETE", "/svc/watch/nope", key, `{"ignored":true}`)
	h.must(http.StatusOK, "GET", "/svc/watch/subscriptions", key, `{"ignored":true}`)
}
