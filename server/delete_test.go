package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
)

// listed lists a field (at path) of the entries of a list answer: data.records, data.registries,
// or data itself.
func listed(r resp, path ...string) []string {
	var out []string
	var list []any
	if d, ok := r.Body["data"].(map[string]any); ok {
		list, _ = d["records"].([]any)
		if l, ok := d["registries"].([]any); ok {
			list = l
		}
	} else {
		list, _ = r.Body["data"].([]any)
	}
	for _, e := range list {
		m := e.(map[string]any)
		for _, p := range path[:len(path)-1] {
			m, _ = m[p].(map[string]any)
		}
		out = append(out, fmt.Sprint(m[path[len(path)-1]]))
	}
	slices.Sort(out)
	return out
}

// Delete and restore over HTTP, on both dialects: who may, what each refuses, what a deleted
// entry reads as (404 latest, its versions by version_id), what the lists leave out, and what a
// restore brings back.
func TestDeleteAndRestore(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner, delegate, stranger := h.key("owner@example.com"), h.key("delegate@example.com"), h.key("stranger@example.com")
		id := publish(t, h, owner) // employees: alice, bob (live), carol (draft)
		h.must(http.StatusOK, "POST", "/svc/"+id+"/add-delegate", owner, `{"email":"delegate@example.com"}`)
		reg := "/svc/" + id + "/employees"
		lookup := "/svc/lookup/" + id + "/employees/"
		aliceV1 := h.must(http.StatusOK, "GET", lookup+"alice", "", nil).data()["version"].(string)

		// delete-records: who may, and the illegal cases.
		del := func(key, body string) resp { return h.do("DELETE", reg+"/delete-records", key, body) }
		many := make([]string, 1001)
		for i := range many {
			many[i] = fmt.Sprintf("%q", fmt.Sprintf("r%d", i))
		}
		for _, c := range []struct {
			name, key, body string
			status          int
			msg             string
		}{
			{"anonymous", "", `{"records":["alice"]}`, 401, ""},
			{"stranger", stranger, `{"records":["alice"]}`, 403, "not the owner or a delegate"},
			{"empty", owner, `{"records":[]}`, 400, ""},
			{"oversized", owner, `{"records":[` + strings.Join(many, ",") + `]}`, 400, ""},
			{"no body", owner, ``, 400, ""},
			{"twice", owner, `{"records":["alice","alice"]}`, 400, "named twice"},
			{"unknown", owner, `{"records":["alice","nobody"]}`, 404, "nobody"},
			{"draft", owner, `{"records":["carol"]}`, 409, "carol"},
			{"reason too long", owner, `{"records":["alice"],"reason":"` + strings.Repeat("x", 1001) + `"}`, 400, ""},
			{"unknown registry", owner, `{"records":["alice"]}`, 404, ""},
		} {
			path := reg + "/delete-records"
			if c.name == "unknown registry" {
				path = "/svc/" + id + "/nothere/delete-records"
			}
			var body any
			if c.body != "" {
				body = c.body
			}
			r := h.do("DELETE", path, c.key, body)
			if r.Status != c.status || !strings.Contains(r.msg(), c.msg) {
				t.Fatalf("%s: %d %s, want %d %q", c.name, r.Status, r.Raw, c.status, c.msg)
			}
		}
		h.must(http.StatusOK, "GET", lookup+"alice", "", nil) // nothing was written

		// The delegate deletes alice: a tombstone, 404 to latest reads, readable by version_id.
		r := del(delegate, `{"records":["alice"],"reason":"left"}`)
		if r.Status != 200 {
			t.Fatalf("delete-records: %d %s", r.Status, r.Raw)
		}
		tomb := r.data()["records"].([]any)[0].(map[string]any)
		if tomb["state"] != "deleted" || tomb["version_count"].(float64) != 2 {
			t.Fatalf("tombstone: %v", tomb)
		}
		h.must(http.StatusNotFound, "GET", lookup+"alice", "", nil)
		got := h.must(http.StatusOK, "GET", lookup+"alice?version_id="+tomb["version"].(string), "", nil).data()
		if got["state"] != "deleted" || got["digest"] != tomb["digest"] {
			t.Fatalf("the tombstone by version_id: %v", got)
		}
		h.must(http.StatusOK, "GET", lookup+"alice?version_id="+aliceV1, "", nil)
		if n := listed(h.must(http.StatusOK, "GET", "/svc/query/"+id+"/employees", owner, nil), "record_name"); slices.Contains(n, "alice") {
			t.Fatalf("the query lists a deleted record: %v", n)
		}
		if n := listed(h.must(http.StatusOK, "GET", "/svc/search/"+id, owner, nil), "record_name"); slices.Contains(n, "alice") || !slices.Contains(n, "bob") {
			t.Fatalf("search: %v", n)
		}
		if r := del(owner, `{"records":["alice"]}`); r.Status != 409 || !strings.Contains(r.msg(), "alice") {
			t.Fatalf("deleting a deleted record: %d %s", r.Status, r.Raw)
		}
		h.must(http.StatusNotFound, "POST", reg+"/alice/suspend-record", owner, nil)
		h.must(http.StatusNotFound, "POST", reg+"/alice/update-record", owner, `{"description":"x"}`)

		// The lists of what the caller may restore.
		if n := listed(h.must(200, "GET", "/svc/deleted/records", delegate, nil), "record", "record_name"); !slices.Equal(n, []string{"alice"}) {
			t.Fatalf("deleted records of the delegate: %v", n)
		}
		if n := listed(h.must(200, "GET", "/svc/deleted/records", stranger, nil), "record", "record_name"); len(n) != 0 {
			t.Fatalf("deleted records of a stranger: %v", n)
		}
		h.must(http.StatusUnauthorized, "GET", "/svc/deleted/records", "", nil)

		// restore/records.
		ref := func(rec string) string {
			return `{"records":[{"namespace_id":"` + id + `","registry_name":"employees","record_name":"` + rec + `"}]}`
		}
		h.must(http.StatusUnauthorized, "POST", "/svc/restore/records", "", ref("alice"))
		h.must(http.StatusForbidden, "POST", "/svc/restore/records", stranger, ref("alice"))
		h.must(http.StatusConflict, "POST", "/svc/restore/records", owner, ref("bob"))
		h.must(http.StatusNotFound, "POST", "/svc/restore/records", owner, ref("nobody"))
		h.must(http.StatusBadRequest, "POST", "/svc/restore/records", owner, `{"records":[]}`)
		back := h.must(http.StatusOK, "POST", "/svc/restore/records", delegate, ref("alice")).data()["records"].([]any)[0].(map[string]any)
		if back["state"] != "live" || back["version_count"].(float64) != 3 {
			t.Fatalf("restored: %v", back)
		}
		h.must(http.StatusOK, "GET", lookup+"alice", "", nil)
		h.must(http.StatusConflict, "POST", "/svc/restore/records", owner, ref("alice"))

		// delete-registry hides the registry and its records; bob is deleted before it.
		h.must(200, "DELETE", reg+"/delete-records", owner, `{"records":["bob"]}`)
		h.must(http.StatusUnauthorized, "DELETE", reg+"/delete-registry", "", nil)
		h.must(http.StatusForbidden, "DELETE", reg+"/delete-registry", stranger, nil)
		h.must(http.StatusNotFound, "DELETE", "/svc/"+id+"/nothere/delete-registry", owner, nil)
		g := h.must(http.StatusOK, "DELETE", reg+"/delete-registry", delegate, `{"reason":"obsolete"}`).data()
		if g["registry"].(map[string]any)["state"] != "deleted" || g["records"].(float64) != 1 {
			t.Fatalf("delete-registry: %v", g)
		}
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+id+"/employees", "", nil)
		h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees?version_id="+g["registry"].(map[string]any)["version"].(string), "", nil)
		h.must(http.StatusNotFound, "GET", lookup+"alice", "", nil)
		h.must(http.StatusOK, "GET", lookup+"alice?version_id="+aliceV1, "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/query/"+id+"/employees", owner, nil)
		if n := listed(h.must(200, "GET", "/svc/query/"+id, owner, nil), "registry_name"); len(n) != 0 {
			t.Fatalf("registries listed: %v", n)
		}
		if n := listed(h.must(http.StatusOK, "GET", "/svc/search/"+id, owner, nil), "record_name"); len(n) != 0 {
			t.Fatalf("search in a deleted registry: %v", n)
		}
		h.must(http.StatusConflict, "DELETE", reg+"/delete-registry", owner, nil)
		h.must(http.StatusNotFound, "DELETE", reg+"/delete-records", owner, `{"records":["alice"]}`)
		h.must(http.StatusNotFound, "POST", reg+"/add-record", owner, `{"record_name":"x","details":{"email":"x@example.com"}}`)
		if r := h.do("POST", "/svc/restore/records", owner, ref("bob")); r.Status != 409 || !strings.Contains(r.msg(), "registry is deleted") {
			t.Fatalf("restoring a record of a deleted registry: %d %s", r.Status, r.Raw)
		}
		if n := listed(h.must(200, "GET", "/svc/deleted/registries", delegate, nil), "registry", "registry_name"); !slices.Equal(n, []string{"employees"}) {
			t.Fatalf("deleted registries: %v", n)
		}
		if n := listed(h.must(200, "GET", "/svc/deleted/records", owner, nil), "record", "record_name"); len(n) != 0 {
			t.Fatalf("deleted records of a deleted registry are not restorable on their own: %v", n)
		}

		// restore/registry.
		rr := `{"namespace_id":"` + id + `","registry_name":"employees"}`
		h.must(http.StatusUnauthorized, "POST", "/svc/restore/registry", "", rr)
		h.must(http.StatusForbidden, "POST", "/svc/restore/registry", stranger, rr)
		h.must(http.StatusNotFound, "POST", "/svc/restore/registry", owner, `{"namespace_id":"`+id+`","registry_name":"nothere"}`)
		h.must(http.StatusBadRequest, "POST", "/svc/restore/registry", owner, `{"namespace_id":"`+id+`"}`)
		g = h.must(http.StatusOK, "POST", "/svc/restore/registry", owner, rr).data()
		if g["registry"].(map[string]any)["state"] != "live" {
			t.Fatalf("restore/registry: %v", g)
		}
		h.must(http.StatusConflict, "POST", "/svc/restore/registry", owner, rr)
		h.must(http.StatusOK, "GET", lookup+"alice", "", nil)
		h.must(http.StatusNotFound, "GET", lookup+"bob", "", nil) // deleted before the registry

		// delete-namespace: the owner only.
		h.must(http.StatusUnauthorized, "DELETE", "/svc/"+id+"/delete-namespace", "", nil)
		h.must(http.StatusForbidden, "DELETE", "/svc/"+id+"/delete-namespace", stranger, nil)
		h.must(http.StatusForbidden, "DELETE", "/svc/"+id+"/delete-namespace", delegate, nil)
		h.must(http.StatusNotFound, "DELETE", "/svc/did:svc:nothere/delete-namespace", owner, nil)
		n := h.must(http.StatusOK, "DELETE", "/svc/"+id+"/delete-namespace", owner, `{"reason":"closing"}`).data()
		ns := n["namespace"].(map[string]any)
		if ns["state"] != "deleted" || n["registries"].(float64) != 1 || n["records"].(float64) != 1 {
			t.Fatalf("delete-namespace: %v", n)
		}
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+id, "", nil)
		if v := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"?version_id="+ns["version"].(string), "", nil).data(); v["state"] != "deleted" {
			t.Fatalf("the namespace's tombstone by version_id: %v", v)
		}
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+id+"/employees", "", nil)
		h.must(http.StatusNotFound, "GET", lookup+"alice", "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/query/"+id, owner, nil)
		h.must(http.StatusConflict, "DELETE", "/svc/"+id+"/delete-namespace", owner, nil)
		h.must(http.StatusNotFound, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"x","tag":"membership"}`)
		h.must(http.StatusNotFound, "DELETE", reg+"/delete-registry", owner, nil)
		h.must(http.StatusConflict, "POST", "/svc/restore/registry", owner, rr)
		if l := listed(h.must(200, "GET", "/svc/deleted/namespaces", owner, nil), "namespace", "namespace_id"); !slices.Equal(l, []string{id}) {
			t.Fatalf("deleted namespaces of the owner: %v", l)
		}
		if l := listed(h.must(200, "GET", "/svc/deleted/namespaces", delegate, nil), "namespace", "namespace_id"); len(l) != 0 {
			t.Fatalf("deleted namespaces of a delegate: %v", l)
		}

		// restore/namespace.
		rn := `{"namespace_id":"` + id + `"}`
		h.must(http.StatusUnauthorized, "POST", "/svc/restore/namespace", "", rn)
		h.must(http.StatusForbidden, "POST", "/svc/restore/namespace", delegate, rn)
		h.must(http.StatusForbidden, "POST", "/svc/restore/namespace", stranger, rn)
		h.must(http.StatusNotFound, "POST", "/svc/restore/namespace", owner, `{"namespace_id":"did:svc:nothere"}`)
		if v := h.must(http.StatusOK, "POST", "/svc/restore/namespace", owner, rn).data()["namespace"].(map[string]any); v["state"] != "live" {
			t.Fatalf("restore/namespace: %v", v)
		}
		h.must(http.StatusConflict, "POST", "/svc/restore/namespace", owner, rn)
		h.must(http.StatusOK, "GET", lookup+"alice", "", nil)
		h.must(http.StatusNotFound, "GET", lookup+"bob", "", nil)
		stats := h.must(http.StatusOK, "GET", "/svc/stats", "", nil).data()
		if stats["records"] != float64(1) || stats["registries"] != float64(1) || stats["namespaces"] != float64(1) {
			t.Fatalf("stats after the restores: %v", stats)
		}
	})
}

// A deleted namespace's verified domain is released in the delete's transaction: the domain
// no longer finds it, another namespace may verify it, and a restore does not take it back.
func TestDeleteNamespaceReleasesItsDomain(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, dns, _ := domainHarness(t, d, server.ReverifyConfig{})
			alice, bob := h.key("alice@example.com"), h.key("bob@example.com")
			a, b := newNamespace(t, h, alice, "A"), newNamespace(t, h, bob, "B")
			selfVerify(t, h, dns, alice, a, "acme.example")
			if v := h.must(http.StatusOK, "GET", "/svc/lookup/acme.example", "", nil).data(); v["namespace_id"] != a {
				t.Fatalf("the domain finds %v", v["namespace_id"])
			}
			// Bob cannot verify it while it is alice's.
			if r := gen(h, bob, b, "acme.example", "?verification_method=self_dns"); r.Status != http.StatusBadRequest {
				t.Fatalf("generate for a held domain: %d %s", r.Status, r.Raw)
			}
			h.must(http.StatusOK, "DELETE", "/svc/acme.example/delete-namespace", alice, nil)
			h.must(http.StatusNotFound, "GET", "/svc/lookup/acme.example", "", nil)
			selfVerify(t, h, dns, bob, b, "acme.example")
			if v := h.must(http.StatusOK, "GET", "/svc/lookup/acme.example", "", nil).data(); v["namespace_id"] != b {
				t.Fatalf("after the delete the domain finds %v", v["namespace_id"])
			}
			n := h.must(http.StatusOK, "POST", "/svc/restore/namespace", alice, `{"namespace_id":"`+a+`"}`).data()["namespace"].(map[string]any)
			if n["domain"] != nil || n["is_verified"] != false {
				t.Fatalf("the restored namespace: domain %v, verified %v", n["domain"], n["is_verified"])
			}
			if v := h.must(http.StatusOK, "GET", "/svc/lookup/"+a, "", nil).data(); v["domain"] != nil {
				t.Fatalf("the restored namespace took its domain back: %v", v["domain"])
			}
		})
	}
}
