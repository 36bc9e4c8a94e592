package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// While the primary database is lost, a write answers 503 with Retry-After and the code
// primary_unavailable (never 500) and writes nothing, a read that needs the primary answers
// the same, and readiness answers 503 for writes and, without replicas, for reads; once the
// primary is back the same server writes again.
func TestLosingThePrimaryAnswers503(t *testing.T) {
	_, dbURL := storetest.OpenURL(t, store.DialectPostgres)
	via, p := testdb.LosingPostgres(t, dbURL)
	// The authentication is cached, so that the write itself meets the lost primary.
	st, err := store.Open(context.Background(), via, slog.New(slog.DiscardHandler), store.Options{MaxOpenConns: 4, AuthCacheTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	srv, err := server.NewServer(server.Config{Store: st, Logger: slog.New(slog.DiscardHandler), DIDHost: "localhost%3A8080", LookupCacheTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, e: &contractChecked{t: t, e: srv.Echo()}, srv: srv, store: st, dbURL: dbURL}
	owner := h.key("owner@example.com")
	ns := draftsRegistry(t, h, owner)
	reg := "/svc/" + ns + "/people"
	h.must(http.StatusCreated, "POST", reg+"/add-record", owner, map[string]any{"record_name": "a", "details": map[string]any{"n": 1}})
	if r := h.must(http.StatusOK, "GET", "/readyz?need=write", "", nil); r.Body["writable"] != true {
		t.Fatalf("readyz before: %s", r.Raw)
	}

	p.Lose()
	unavailable := func(r resp, what string) {
		t.Helper()
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "2" || r.Body["code"] != "primary_unavailable" {
			t.Fatalf("%s without the primary: %d Retry-After %q %s", what, r.Status, r.Header.Get("Retry-After"), r.Raw)
		}
	}
	unavailable(h.do("POST", reg+"/add-record", owner, map[string]any{"record_name": "b", "details": map[string]any{"n": 2}}), "add-record")
	unavailable(h.do("POST", reg+"/add-records", owner, map[string]any{"records": []any{map[string]any{"record_name": "c", "details": map[string]any{"n": 3}}}}), "add-records")
	unavailable(h.do("GET", "/svc/lookup/"+ns+"/people/a?version_id=0x0197a0000000700080000000000000ff", "", nil), "a lookup by version")
	for _, path := range []string{"/readyz", "/readyz?need=write"} {
		if r := h.do("GET", path, "", nil); r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "2" || r.Body["code"] != "unavailable" {
			t.Fatalf("%s without a database to read: %d %s", path, r.Status, r.Raw)
		}
	}

	p.Restore()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := h.do("POST", reg+"/add-record", owner, map[string]any{"record_name": "d", "details": map[string]any{"n": 4}})
		if r.Status == http.StatusCreated {
			break
		}
		if r.Status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("after the primary came back: %d %s", r.Status, r.Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/people/b", "", nil)
	h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/people/c", "", nil)
	if r := h.must(http.StatusOK, "GET", "/readyz", "", nil); r.Body["writable"] != true {
		t.Fatalf("readyz after: %s", r.Raw)
	}
}
