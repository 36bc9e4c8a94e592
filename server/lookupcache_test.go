package server_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// cacheHarness is a harness with the lookup cache on a fake clock, and a second store on the
// same database standing for another instance: its writes reach the database but not this
// server's cache, so only the cache can explain an old answer.
func cacheHarness(t *testing.T, d string, ttl time.Duration) (h *harness, elsewhere *store.Store, advance func(time.Duration)) {
	t.Helper()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance = func(dt time.Duration) { mu.Lock(); now = now.Add(dt); mu.Unlock() }
	st, dbURL := storetest.OpenURL(t, d)
	elsewhere, err := store.Open(context.Background(), dbURL, nil, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = elsewhere.Close() })
	h = newHarnessOn(t, st, func(c *server.Config) { c.LookupCacheTTL = ttl; c.Now = clock })
	return h, elsewhere, advance
}

// TestLookupCacheServesRepeatsWithinTTL: a repeated latest lookup is answered from the cache
// until the TTL passes; a write through this instance empties it at once.
func TestLookupCacheServesRepeatsWithinTTL(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, elsewhere, advance := cacheHarness(t, d, time.Second)
			key := h.key("owner@example.com")
			id := publish(t, h, key)
			path := "/svc/lookup/" + id + "/employees/alice"
			first := h.must(http.StatusOK, "GET", path, "", nil).data()["digest"]

			desc := "changed elsewhere"
			if _, err := elsewhere.UpdateRecord(context.Background(), id, "employees", "alice", "", directory.RecordPatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			advance(500 * time.Millisecond)
			if got := h.must(http.StatusOK, "GET", path, "", nil).data()["digest"]; got != first {
				t.Fatalf("within the TTL the cached answer should be served: digest %v, first %v", got, first)
			}
			advance(600 * time.Millisecond)
			fresh := h.must(http.StatusOK, "GET", path, "", nil).data()
			if fresh["digest"] == first || fresh["description"] != desc {
				t.Fatalf("after the TTL the change must show: %v", fresh)
			}
			// A write through this instance empties the cache at once.
			h.must(http.StatusOK, "POST", "/svc/"+id+"/employees/alice/update-record", key, `{"description":"through the API"}`)
			if got := h.must(http.StatusOK, "GET", path, "", nil).data()["description"]; got != "through the API" {
				t.Fatalf("a write through the instance must empty the cache: description %v", got)
			}
		})
	}
}

// TestLookupCacheEmptiedOnCommitOnly: requests that write nothing (refused with 400, 409 or
// 412, or reads) leave the lookup cache as it is; the first write that commits, of any entry,
// empties it.
func TestLookupCacheEmptiedOnCommitOnly(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, elsewhere, _ := cacheHarness(t, d, time.Hour)
			key := h.key("owner@example.com")
			id := publish(t, h, key)
			path := "/svc/lookup/" + id + "/employees/alice"
			first := h.must(http.StatusOK, "GET", path, "", nil).data()
			desc := "changed elsewhere"
			if _, err := elsewhere.UpdateRecord(context.Background(), id, "employees", "alice", "", directory.RecordPatch{Description: &desc}); err != nil {
				t.Fatal(err)
			}
			cached := func(what string) {
				t.Helper()
				if got := h.must(http.StatusOK, "GET", path, "", nil).data()["digest"]; got != first["digest"] {
					t.Fatalf("after %s the cache was emptied: digest %v, cached %v", what, got, first["digest"])
				}
			}
			cached("reads")
			reg := "/svc/" + id + "/employees"
			h.must(http.StatusBadRequest, "POST", reg+"/add-record", key, `{"record_name":"dave","details":"not an object"}`)
			cached("a refused add-record (400)")
			h.must(http.StatusConflict, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"employees","schema":{"type":"object"}}`)
			cached("a refused create-registry (409)")
			h.must(http.StatusPreconditionFailed, "POST", reg+"/bob/update-record", key, `{"description":"x"}`,
				"If-Match", `"`+first["version"].(string)+`"`)
			cached("a refused update-record (412)")
			h.must(http.StatusNotFound, "POST", reg+"/nobody/update-record", key, `{"description":"x"}`)
			cached("an update of an unknown record (404)")

			// A committed write of another record empties the cache: alice's change shows.
			h.must(http.StatusOK, "POST", reg+"/bob/update-record", key, `{"description":"bob changed"}`)
			if got := h.must(http.StatusOK, "GET", path, "", nil).data()["description"]; got != desc {
				t.Fatalf("a committed write must empty the cache: description %v, want %q", got, desc)
			}
		})
	}
}
