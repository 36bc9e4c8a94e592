package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// TestStatementCounts counts, on Postgres, the statements and round trips that an add-record,
// an update-record and an uncached record lookup send the database, through a counting proxy
// in front of it (the service's code runs as in production). The bounds are the counts the
// code has today: a change that adds a statement to these paths fails here and must say why.
// Before the publish side ran each operation in one transaction (package entries), an
// add-record took 16 statements and read its registry twice, an update-record 14.
func TestStatementCounts(t *testing.T) {
	st, counter, _ := storetest.OpenCounting(t, store.Options{})
	// No lookup cache, so that every lookup reads the database.
	h := newHarnessOn(t, st, func(c *server.Config) { c.LookupCacheTTL = 0 })
	key := h.key("owner@example.com")
	ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, map[string]any{"name": "Acme"}).data()["namespace_id"].(string)
	h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", key, map[string]any{
		"registry_name": "people", "schema": map[string]any{"type": "object"}})
	// A first add and update warm the schema cache and the prepared statements.
	h.must(http.StatusCreated, "POST", "/svc/"+ns+"/people/add-record", key, map[string]any{"record_name": "warm", "details": map[string]any{"a": 1}})
	h.must(http.StatusOK, "POST", "/svc/"+ns+"/people/warm/update-record", key, map[string]any{"details": map[string]any{"a": 2}})
	h.must(http.StatusOK, "GET", "/svc/lookup/"+ns+"/people/warm", "", nil)

	type count struct {
		statements, roundTrips int64
		registryReads          int
	}
	measure := func(name string, fn func()) count {
		counter.Reset()
		fn()
		s, r := counter.Counts()
		c := count{statements: s, roundTrips: r}
		for _, q := range counter.Statements() {
			if readsRegistries(q) {
				c.registryReads++
			}
		}
		t.Logf("%s: %d statements, %d round trips, %d registry reads", name, c.statements, c.roundTrips, c.registryReads)
		for i, q := range counter.Statements() {
			t.Logf("  %d: %s", i+1, strings.Join(strings.Fields(q), " "))
		}
		return c
	}
	add := measure("add-record", func() {
		h.must(http.StatusCreated, "POST", "/svc/"+ns+"/people/add-record", key, map[string]any{"record_name": "alice", "details": map[string]any{"a": 1}})
	})
	update := measure("update-record", func() {
		h.must(http.StatusOK, "POST", "/svc/"+ns+"/people/alice/update-record", key, map[string]any{"details": map[string]any{"a": 2}})
	})
	lookup := measure("record lookup", func() {
		h.must(http.StatusOK, "GET", "/svc/lookup/"+ns+"/people/alice", "", nil)
	})
	// A miss says which level was missing from the read that missed: the fast path's statement,
	// then at most the general read that explains it. Before, the server asked again per level:
	// a record lookup under an unknown registry took 3 statements, one of an unknown version 3,
	// and a registry lookup of an unknown registry 2.
	missRecord := measure("record lookup, no such record", func() {
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/people/nobody", "", nil)
	})
	missRegistry := measure("record lookup, no such registry", func() {
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/nothing/alice", "", nil)
	})
	missVersion := measure("record lookup, no such version", func() {
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/people/alice?version_id=0x"+strings.Repeat("0", 32), "", nil)
	})
	missRegistryLookup := measure("registry lookup, no such registry", func() {
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/nothing", "", nil)
	})
	// A TRQP answer (docs/trqp.md, Cost): the authority's declarations (cached when the lookup
	// cache is on; here it is off) and the record with its log index, in one statement.
	h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", key, map[string]any{
		"registry_name": "licences", "schema": map[string]any{"type": "object"},
		"meta": map[string]any{"trqp": map[string]any{"authorizations": []any{map[string]any{"action": "issue", "resource": "lic"}}}}})
	h.must(http.StatusCreated, "POST", "/svc/"+ns+"/licences/add-record", key, map[string]any{"record_name": "alice", "details": map[string]any{}})
	ask := func() {
		if status, _, raw := h.trqpPost("authorization", trqpQuery("alice", ns, "issue", "lic", time.Time{})); status != http.StatusOK {
			t.Fatalf("%d %s", status, raw)
		}
	}
	ask() // prepares the statements
	trqpAnswer := measure("TRQP authorization", ask)
	for _, c := range []struct {
		name      string
		got       count
		max       int64
		maxRegRds int
	}{
		// A write reads the caller's access in a statement of its own, after the registry's
		// lock (store/writeaccess.go): one more than when it was read with the lock, stale.
		{"add-record", add, 12, 1},
		{"update-record", update, 11, 1},
		{"record lookup", lookup, 1, 1},
		{"record lookup, no such record", missRecord, 2, 2},
		{"record lookup, no such registry", missRegistry, 2, 2},
		{"record lookup, no such version", missVersion, 1, 1},
		{"registry lookup, no such registry", missRegistryLookup, 1, 1},
		{"TRQP authorization, its authority not cached", trqpAnswer, 2, 2},
	} {
		if c.got.statements > c.max || c.got.registryReads > c.maxRegRds {
			t.Errorf("%s: %s", c.name, fmt.Sprintf("%d statements (at most %d), %d registry reads (at most %d)", c.got.statements, c.max, c.got.registryReads, c.maxRegRds))
		}
	}
}

// readsRegistries reports whether a statement is a SELECT that reads the registries table.
func readsRegistries(q string) bool {
	q = strings.ReplaceAll(q, `"`, "")
	return strings.HasPrefix(strings.TrimSpace(q), "SELECT") &&
		(strings.Contains(q, "FROM registries") || strings.Contains(q, "JOIN registries"))
}
