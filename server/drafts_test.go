package server_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// Drafts are private: only the namespace's owner and delegates see a draft version, in every
// read. To anonymous readers, other users and registry delegates a record whose versions are
// all drafts does not exist (404 in lookups, by version_id and as_on too, and in versions), and
// lists, search, the export, counts and statistics leave drafts out; once published, its draft
// versions stay hidden from them (both dialects).
func TestDraftsArePrivate(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner := h.key("owner@example.com")
		delegate, regDelegate, other := h.key("delegate@example.com"), h.key("rd@example.com"), h.key("other@example.com")
		id := publish(t, h, owner) // employees: alice, bob live; carol a draft
		reg := "/svc/" + id + "/employees"
		h.must(http.StatusOK, "POST", "/svc/"+id+"/add-delegate", owner, `{"email":"delegate@example.com"}`)
		h.must(http.StatusOK, "POST", reg+"/add-registry-delegate", owner, `{"email":"rd@example.com"}`)
		secret := h.must(http.StatusCreated, "POST", reg+"/add-record", owner,
			`{"record_name":"dora","details":{"email":"dora@example.com","ssn":"123-45-6789"},"state":"draft"}`).data()
		firstDraft := secret["version"].(string)
		second := h.must(http.StatusOK, "POST", reg+"/dora/update-record", owner, `{"details":{"email":"dora@example.com","ssn":"987-65-4321"}}`).data()["version"].(string)
		today := time.Now().UTC().Format(time.DateOnly)

		// The owner's lookup of the draft comes first: it must not be kept for the others.
		members := []string{owner, delegate}
		outsiders := map[string]string{"anonymous": "", "another user": other, "a registry delegate": regDelegate}
		for _, k := range members {
			h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/dora", k, nil)
			h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/dora?version_id="+firstDraft, k, nil)
			h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/dora?as_on="+today, k, nil)
			if vs := h.must(http.StatusOK, "GET", "/svc/versions/"+id+"/employees/dora", k, nil).data(); vs["total_versions"] != 2.0 {
				t.Fatalf("a member's versions of the draft: %v", vs)
			}
		}
		for who, k := range outsiders {
			for _, path := range []string{"/svc/lookup/" + id + "/employees/dora", "/svc/lookup/" + id + "/employees/dora?version_id=" + firstDraft,
				"/svc/lookup/" + id + "/employees/dora?as_on=" + today, "/svc/versions/" + id + "/employees/dora"} {
				if r := h.do("GET", path, k, nil); r.Status != http.StatusNotFound || r.msg() != "Record not found" || strings.Contains(string(r.Raw), "6789") {
					t.Fatalf("%s: GET %s: %d %s; want 404 Record not found", who, path, r.Status, r.Raw)
				}
			}
		}

		names := func(r resp) []string {
			var out []string
			for _, x := range r.data()["records"].([]any) {
				out = append(out, x.(map[string]any)["record_name"].(string))
			}
			slices.Sort(out)
			return out
		}
		searched := func(r resp) []string {
			var out []string
			for _, x := range r.Body["data"].([]any) {
				out = append(out, x.(map[string]any)["record_name"].(string))
			}
			slices.Sort(out)
			return out
		}
		exported := func(k string) [][]string {
			rows, err := csv.NewReader(bytes.NewReader(export(t, h, reg+"/export-records-as-csv", k))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			return rows
		}
		for _, k := range members {
			q := h.must(http.StatusOK, "GET", "/svc/query/"+id+"/employees", k, nil)
			if got := names(q); !slices.Equal(got, []string{"alice", "bob", "carol", "dora"}) || q.data()["total_records"] != 4.0 {
				t.Fatalf("a member's query: %v, %v", got, q.data()["total_records"])
			}
			if got := searched(h.must(http.StatusOK, "GET", "/svc/search/"+id+"?email=example", k, nil)); len(got) != 4 {
				t.Fatalf("a member's search: %v", got)
			}
			if rows := exported(k); len(rows) != 5 || rows[0][1] != "record_state" {
				t.Fatalf("a member's export: %q", rows)
			}
		}
		for who, k := range outsiders {
			for _, path := range []string{"/svc/query/" + id + "/employees", "/svc/query/" + id + "/employees?sort=date&page_size=1&page=2"} {
				q := h.must(http.StatusOK, "GET", path, k, nil)
				if q.data()["total_records"] != 2.0 || slices.Contains(names(q), "dora") || slices.Contains(names(q), "carol") {
					t.Fatalf("%s: %s lists %v of %v", who, path, names(q), q.data()["total_records"])
				}
			}
			if q := h.must(http.StatusOK, "GET", "/svc/query/"+id+"/employees?state=draft", k, nil); q.data()["total_records"] != 0.0 {
				t.Fatalf("%s: a query of drafts: %v", who, q.data())
			}
			if got := searched(h.must(http.StatusOK, "GET", "/svc/search/"+id+"?email=example", k, nil)); !slices.Equal(got, []string{"alice", "bob"}) {
				t.Fatalf("%s: search: %v", who, got)
			}
			rows := exported(k)
			if len(rows) != 3 || bytes.Contains([]byte(strings.Join(slices.Concat(rows...), ",")), []byte("ssn")) {
				t.Fatalf("%s: the export: %q", who, rows)
			}
			if g := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees", k, nil).data(); g["record_count"] != 2.0 {
				t.Fatalf("%s: the registry's record_count %v; want the 2 published", who, g["record_count"])
			}
			if rs := h.must(http.StatusOK, "GET", "/svc/query/"+id, k, nil).data()["registries"].([]any); rs[0].(map[string]any)["record_count"] != 2.0 {
				t.Fatalf("%s: the registry list's record_count: %v", who, rs)
			}
		}
		if st := h.must(http.StatusOK, "GET", "/svc/stats", "", nil).data(); st["records"] != 2.0 {
			t.Fatalf("stats count %v records; want the 2 published", st["records"])
		}
		// A draft's lookup, verified: the owner's key finds it; to anyone else it is not there.
		draftLookup := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/dora", owner, nil).data()
		verify := func(k string) resp {
			return h.do("POST", "/svc/verify-record-lookup", k, map[string]any{"record_lookup_response": map[string]any{"message": "found", "data": draftLookup}})
		}
		if r := verify(owner); r.Status != http.StatusOK {
			t.Fatalf("the owner's verification of the draft: %d %s", r.Status, r.Raw)
		}
		if r := verify(other); r.Status != http.StatusBadRequest || r.msg() != "Verification failed" {
			t.Fatalf("another user's verification of the draft: %d %s", r.Status, r.Raw)
		}

		// Published: everyone sees it from its public version on; its drafts stay private.
		published := h.must(http.StatusOK, "POST", reg+"/dora/publish-record", owner, nil).data()["version"].(string)
		for who, k := range outsiders {
			h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/dora", k, nil)
			vs := h.must(http.StatusOK, "GET", "/svc/versions/"+id+"/employees/dora", k, nil).data()
			if vs["total_versions"] != 1.0 || vs["versions"].([]any)[0] != published {
				t.Fatalf("%s: versions after publishing: %v", who, vs)
			}
			for _, v := range []string{firstDraft, second} {
				if r := h.do("GET", "/svc/lookup/"+id+"/employees/dora?version_id="+v, k, nil); r.Status != http.StatusNotFound || strings.Contains(string(r.Raw), "ssn") {
					t.Fatalf("%s: the draft version %s: %d %s", who, v, r.Status, r.Raw)
				}
			}
		}
		if vs := h.must(http.StatusOK, "GET", "/svc/versions/"+id+"/employees/dora", owner, nil).data(); vs["total_versions"] != 3.0 {
			t.Fatalf("the owner's versions after publishing: %v", vs)
		}
		if st := h.must(http.StatusOK, "GET", "/svc/stats", "", nil).data(); st["records"] != 3.0 {
			t.Fatalf("stats after publishing: %v", st["records"])
		}
		if g := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees", "", nil).data(); g["record_count"] != 3.0 {
			t.Fatalf("record_count after publishing: %v", g["record_count"])
		}
	})
}
