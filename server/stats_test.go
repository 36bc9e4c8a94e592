package server_test

import (
	"net/http"
	"testing"
)

// GET /svc/stats is public and counts what was published: one user, one namespace, one
// registry and two records after publish (its third record is a draft: drafts are private).
func TestStats(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		empty := h.must(http.StatusOK, "GET", "/svc/stats", "", nil).data()
		for _, k := range []string{"users", "namespaces", "registries", "records"} {
			if empty[k] != 0.0 {
				t.Fatalf("empty directory: %s = %v", k, empty[k])
			}
		}
		publish(t, h, h.key("owner@example.com"))
		got := h.must(http.StatusOK, "GET", "/svc/stats", "", nil).data()
		want := map[string]float64{"users": 1, "namespaces": 1, "registries": 1, "records": 2}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("after publish: %s = %v, want %v (%v)", k, got[k], v, got)
			}
		}
	})
}
