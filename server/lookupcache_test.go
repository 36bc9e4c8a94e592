package server_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
)

// TestLookupCacheServesRepeatsWithinTTL: a repeated latest lookup is answered from the cache
// until the TTL passes. The record is changed behind the server's back (through the store, as
// another instance would), so only the cache can explain the old answer.
func TestLookupCacheServesRepeatsWithinTTL(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			var mu sync.Mutex
			now := time.Now()
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			advance := func(dt time.Duration) { mu.Lock(); now = now.Add(dt); mu.Unlock() }
			h := newHarnessWith(t, d, func(c *server.Config) { c.LookupCacheTTL = time.Second; c.Now = clock })
			key := h.key("owner@example.com")
			id := publish(t, h, key)
			path := "/svc/lookup/" + id + "/employees/alice"
			first := h.must(http.StatusOK, "GET", path, "", nil).data()["digest"]

			desc := "changed elsewhere"
			if _, err := h.store.UpdateRecord(context.Background(), id, "employees", "alice", "", store.RecordPatch{Description: &desc}); err != nil {
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
