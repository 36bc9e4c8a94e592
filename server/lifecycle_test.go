package server_test

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// The lifecycle over HTTP: each change of state answers the new version, whose digest the
// JavaScript reference recomputes from the lookup; lookups, the record query and search show
// state and effective_state and filter on the latter; a revoked registry revokes its records
// as they read, in lookups answered from the cache too.
func TestLifecycleOverHTTP(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		id := publish(t, h, key) // employees: alice, bob, carol (draft)
		reg := "/svc/" + id + "/employees"
		lookup := func(name string) map[string]any {
			return h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/"+name, "", nil).data()
		}
		h.must(http.StatusCreated, "POST", reg+"/add-record", key,
			`{"record_name":"dave","details":{"email":"dave@example.com"},"valid_till":"`+time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)+`"}`)

		var objs []map[string]any
		var want []string
		for _, step := range []struct{ record, action, state string }{
			{"alice", "suspend", "suspended"}, {"alice", "reinstate", "live"}, {"alice", "suspend", "suspended"},
			{"bob", "revoke", "revoked"},
		} {
			before := lookup(step.record)
			got := h.must(http.StatusOK, "POST", reg+"/"+step.record+"/"+step.action+"-record", key, nil).data()
			if got["state"] != step.state || got["effective_state"] != step.state || got["version_count"] != before["version_count"].(float64)+1 {
				t.Fatalf("%s %s: state %v, effective %v, version_count %v", step.action, step.record, got["state"], got["effective_state"], got["version_count"])
			}
			looked := lookup(step.record)
			if looked["version"] != got["version"] || looked["digest"] != got["digest"] {
				t.Fatalf("%s %s: the lookup answers %v, the change %v", step.action, step.record, looked["version"], got["version"])
			}
			objs = append(objs, fieldsOf(t, "record", looked))
			want = append(want, looked["digest"].(string))
		}
		for i, d := range referenceDigests(t, objs) {
			if d != want[i] {
				t.Fatalf("change %d: the service's digest %s, the reference's %s", i, want[i], d)
			}
		}
		// The same change again answers the current version.
		again := h.must(http.StatusOK, "POST", reg+"/alice/suspend-record", key, nil).data()
		if again["version"] != lookup("alice")["version"] {
			t.Fatalf("a second suspend made a new version")
		}
		// dave is live past its valid_till: expired as it reads, live as it holds.
		if d := lookup("dave"); d["state"] != "live" || d["effective_state"] != "expired" {
			t.Fatalf("dave: state %v, effective_state %v", d["state"], d["effective_state"])
		}

		states := map[string]string{"alice": "suspended", "bob": "revoked", "carol": "draft", "dave": "expired"}
		filters := func(states map[string]string) {
			t.Helper()
			for _, state := range []string{"live", "draft", "suspended", "revoked", "expired"} {
				var wantNames []string
				for name, st := range states {
					if st == state {
						wantNames = append(wantNames, name)
					}
				}
				slices.Sort(wantNames)
				for _, path := range []string{"/svc/query/" + id + "/employees?sort=name&state=" + state, "/svc/search/" + id + "?record_state=" + state} {
					r := h.must(http.StatusOK, "GET", path, key, nil)
					var list []any
					if d, ok := r.Body["data"].(map[string]any); ok {
						list, _ = d["records"].([]any)
					} else {
						list, _ = r.Body["data"].([]any)
					}
					var names []string
					for _, e := range list {
						e := e.(map[string]any)
						names = append(names, e["record_name"].(string))
						if e["effective_state"] != state {
							t.Errorf("%s lists %v reading as %v", path, e["record_name"], e["effective_state"])
						}
					}
					slices.Sort(names)
					if !slices.Equal(names, wantNames) {
						t.Errorf("%s lists %v, want %v", path, names, wantNames)
					}
				}
			}
		}
		filters(states)

		// A cached lookup, then the registry is revoked: every record reads as revoked at once.
		lookup("alice")
		h.must(http.StatusOK, "POST", reg+"/revoke-registry", key, nil)
		a := lookup("alice")
		if a["state"] != "suspended" || a["effective_state"] != "revoked" || a["registry_state"] != "revoked" {
			t.Fatalf("alice after the registry's revocation: state %v, effective %v, registry %v", a["state"], a["effective_state"], a["registry_state"])
		}
		for name := range states {
			states[name] = "revoked"
		}
		filters(states)
	})
}
