package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// TestOriginReadsAgreeAtOnce: a namespace first indexed through this process (as svc serve's
// crawler does) reads as origin-hosted by every read at the commit, although the set of
// origin-hosted namespaces was read just before: the lookup carries its origin block, a
// withdrawn file's records read withdrawn in lookups and search as the state query says, and
// writes are refused. The server's clock stands still, so only the commit can refresh the set.
func TestOriginReadsAgreeAtOnce(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			at := time.Now()
			h := newHarnessWith(t, d, func(c *server.Config) { c.Now = func() time.Time { return at } })
			ctx := context.Background()
			key := h.key("local@example.com")
			local := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, map[string]any{"name": "Local"}).data()["namespace_id"].(string)
			h.must(http.StatusCreated, "POST", "/svc/"+local+"/create-registry", key, map[string]any{"registry_name": "people", "schema": map[string]any{"type": "object"}})
			h.must(http.StatusCreated, "POST", "/svc/"+local+"/people/add-record", key, map[string]any{"record_name": "a", "details": map[string]any{}})
			// The set of origin-hosted namespaces is read (none yet) by a lookup and a write.
			h.must(http.StatusOK, "GET", "/svc/lookup/"+local+"/people/a", "", nil)
			h.must(http.StatusNotFound, "POST", "/svc/pub.example/create-registry", key, map[string]any{"registry_name": "x", "schema": map[string]any{"type": "object"}})

			nsID := originHosted(t, h.store, []byte("{}"), "ab12", store.OriginWithdrawn, time.Now().Add(time.Hour), nil)
			if _, err := h.store.AddRecords(ctx, nsID, "keys", "did:web:localhost%3A8080", []directory.RecordInput{
				{RecordName: "k1", Details: map[string]any{"x": 1.0}}}); err != nil {
				t.Fatal(err)
			}
			rec := h.must(http.StatusOK, "GET", "/svc/lookup/pub.example/keys/k1", "", nil).data()
			if o, _ := rec["origin"].(map[string]any); o["state"] != "withdrawn" || rec["effective_state"] != "withdrawn" {
				t.Fatalf("the lookup of a record just indexed: %v", rec)
			}
			found := h.must(http.StatusOK, "GET", "/svc/search/pub.example?record_name=k1", "", nil)
			if res, _ := found.Body["data"].([]any); len(res) != 1 || res[0].(map[string]any)["effective_state"] != "withdrawn" {
				t.Fatalf("search: %s", found.Raw)
			}
			q := h.must(http.StatusOK, "GET", "/svc/query/pub.example/keys?state=live", "", nil).data()
			if recs, _ := q["records"].([]any); len(recs) != 0 {
				t.Fatalf("the live query: %v", recs)
			}
			r := h.must(http.StatusForbidden, "POST", "/svc/pub.example/keys/add-record", key, map[string]any{"record_name": "x", "details": map[string]any{}})
			if !strings.Contains(r.msg(), "hosted by its origin") {
				t.Fatalf("a write: %s", r.Raw)
			}
		})
	}
}

// TestNoSniffEverywhere: the relayed bytes of a publisher's manifest and file, JSON answers,
// refusals and the contract say X-Content-Type-Options: nosniff.
func TestNoSniffEverywhere(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	originHosted(t, h.store, []byte(`{"records":[{"name":"<script>alert(1)</script>"}]}`), "sha-256:f", store.OriginLive, time.Now().Add(time.Hour),
		[]byte(`{"type":"dedi-manifest"}`))
	for _, path := range []string{"/svc/dedi/pub.example/keys", "/svc/dedi/pub.example/manifest", "/svc/dedi/publishers",
		"/svc/lookup/pub.example/keys", "/svc/lookup/pub.example/nope", "/svc/lookup/pub.example/keys/%3Cimg%3E", "/openapi.yaml", "/nowhere"} {
		rec := h.rawGet(path)
		if got := rec.Header().Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
			t.Errorf("GET %s (%d): X-Content-Type-Options %q", path, rec.Code, got)
		}
	}
}
