package server_test

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/svc-directory/svc/store"
)

// seedQueryData publishes a namespace with three registries and hundreds of records with
// Unicode, nested objects and arrays, drafts, an inactive registry and one that allows no
// queries. It returns the namespace id.
func seedQueryData(t *testing.T, h *harness, key string) string {
	t.Helper()
	id := newNamespace(t, h, key, "Query Co")
	h.must(201, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"people","schema":{"type":"object"}}`)
	h.must(201, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"secret-people","schema":{"type":"object"},"query_allowed":false}`)
	h.must(201, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"old-people","schema":{"type":"object"}}`)
	cities := []string{"Zürich", "ZÜRICH-Nord", "Paris", "Kraków", "Tōkyō", "100% City", "under_score"}
	for _, reg := range []string{"people", "secret-people", "old-people"} {
		var recs []string
		for i := 0; i < 120; i++ {
			state := "live"
			if i%10 == 0 {
				state = "draft"
			}
			recs = append(recs, fmt.Sprintf(`{"record_name":"Person-%03d","state":%q,"details":{"name":{"first":"Ada%d","last":"Lovelace"},`+
				`"email":"p%d@Example.com","address":{"city":%q,"zip":"%05d"},"tags":["eng","grade-%d",{"nested":"no"}],"n":%d,"ok":%v}}`,
				i, state, i, i, cities[i%len(cities)], i*7, i%3, i, i%2 == 0))
		}
		h.must(201, "POST", "/svc/"+id+"/"+reg+"/add-records", key, `{"records":[`+strings.Join(recs, ",")+`]}`)
	}
	h.must(200, "POST", "/svc/"+id+"/old-people/deactivate-registry", key, nil)
	return id
}

func names(t *testing.T, items []any, field string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		m := it.(map[string]any)
		out[i] = fmt.Sprint(m[field])
		if rn, ok := m["registry_name"]; ok && field == "record_name" {
			out[i] = fmt.Sprint(rn, "/", m[field])
		}
	}
	return out
}

func TestQueryTagAndSearchAgreeOnBothDialects(t *testing.T) {
	answers := map[string]map[string]string{} // dialect → query → answer
	for _, d := range []string{store.DialectSQLite, store.DialectPostgres} {
		t.Run(d, func(t *testing.T) {
			h := newHarness(t, d)
			owner, other := h.key("owner@example.com"), h.key("other@example.com")
			id := seedQueryData(t, h, owner)
			got := map[string]string{}
			answers[d] = got

			// Record query: the owner sees the 120 records, anyone else the 108 that are not drafts.
			q := h.must(200, "GET", "/svc/query/"+id+"/people", owner, nil).data()
			if q["total_records"] != 120.0 || q["total_pages"] != 6.0 || q["page_size"] != 20.0 || len(q["records"].([]any)) != 20 {
				t.Fatalf("record query: total %v pages %v", q["total_records"], q["total_pages"])
			}
			q = h.must(200, "GET", "/svc/query/"+id+"/people", "", nil).data()
			if q["total_records"] != 108.0 || q["total_pages"] != 6.0 || len(q["records"].([]any)) != 20 {
				t.Fatalf("anonymous record query: total %v pages %v", q["total_records"], q["total_pages"])
			}
			for _, tc := range []struct{ name, query string }{
				{"by name", "?sort=name&page_size=100&page=2"},
				{"by id", "?sort=id&page_size=5"},
				{"by status", "?sort=status&page_size=15"},
				{"by date", "?sort=date&page_size=7&page=3"},
				{"drafts", "?state=draft&sort=name&page_size=100"},
				{"name filter, any case", "?name=PERSON-05&sort=name"},
				{"underscore is literal", "?name=n_1&sort=name"},
				{"today", "?from=2000-01-01&to=2100-01-01&sort=name&page_size=3"},
				{"nothing before 2000", "?to=1999-12-31"},
			} {
				r := h.must(200, "GET", "/svc/query/"+id+"/people"+tc.query, owner, nil).data() // the owner's view, drafts included
				got["records "+tc.name] = fmt.Sprint(r["total_records"], names(t, r["records"].([]any), "record_name"))
			}
			if r := h.must(200, "GET", "/svc/query/"+id+"/people?state=draft", other, nil).data(); r["total_records"] != 0.0 {
				t.Fatalf("another user's query of drafts: %v", r["total_records"])
			}
			if !strings.HasPrefix(got["records by name"], "120 [Person-100") {
				t.Fatalf("sort by name, page 2: %s", got["records by name"])
			}
			if !strings.HasPrefix(got["records drafts"], "12 ") || !strings.HasPrefix(got["records name filter, any case"], "10 ") ||
				!strings.HasPrefix(got["records underscore is literal"], "0 ") || !strings.HasPrefix(got["records nothing before 2000"], "0 ") {
				t.Fatalf("filters: %v", got)
			}
			h.must(403, "GET", "/svc/query/"+id+"/secret-people", "", nil)
			h.must(403, "GET", "/svc/query/"+id+"/secret-people", other, nil)
			h.must(200, "GET", "/svc/query/"+id+"/secret-people", owner, nil)
			h.must(404, "GET", "/svc/query/"+id+"/nope", "", nil)
			h.must(404, "GET", "/svc/query/did:svc:nope", "", nil)
			h.must(400, "GET", "/svc/query/"+id+"/people?name=ab", "", nil)
			h.must(400, "GET", "/svc/query/"+id+"/people?sort=size", "", nil)
			h.must(400, "GET", "/svc/query/"+id+"/people?page=0", "", nil)
			h.must(400, "GET", "/svc/query/"+id+"/people?page_size=101", "", nil)
			h.must(400, "GET", "/svc/query/"+id+"/people?from=yesterday", "", nil)
			if r := h.must(200, "GET", "/svc/query/"+id+"/people?page=99", "", nil).data(); len(r["records"].([]any)) != 0 || r["total_records"] != 108.0 {
				t.Fatalf("page past the end: %v", r)
			}

			// Registry query.
			rq := h.must(200, "GET", "/svc/query/"+id+"?sort=name", "", nil).data()
			if rq["total_registries"] != 3.0 || fmt.Sprint(names(t, rq["registries"].([]any), "registry_name")) != "[old-people people secret-people]" {
				t.Fatalf("registry query: %v", rq)
			}
			if r := h.must(200, "GET", "/svc/query/"+id+"?status=inactive", "", nil).data(); r["total_registries"] != 1.0 {
				t.Fatalf("inactive registries: %v", r["total_registries"])
			}
			if r := h.must(200, "GET", "/svc/query/"+id+"?status=active&name=SECRET", "", nil).data(); r["total_registries"] != 1.0 {
				t.Fatalf("active + name: %v", r["total_registries"])
			}

			// Tag query: only live registries with a standard tag in verified namespaces.
			h.must(400, "GET", "/svc/custom/get-registry-by-tag", "", nil)
			h.must(400, "GET", "/svc/whatever/get-registry-by-tag", "", nil)
			h.must(201, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"members","tag":"membership"}`)
			if r := h.must(200, "GET", "/svc/membership/get-registry-by-tag", "", nil).data(); r["total_registries"] != 0.0 {
				t.Fatalf("unverified namespace listed: %v", r)
			}
			if err := h.store.MarkVerified(context.Background(), id, "query.example", store.MethodSelfDNS, 0); err != nil {
				t.Fatal(err)
			}
			tr := h.must(200, "GET", "/svc/membership/get-registry-by-tag", "", nil).data()
			regs := tr["registries"].([]any)
			if tr["total_registries"] != 1.0 || regs[0].(map[string]any)["namespace_id"] != id || tr["tag"] != "membership" {
				t.Fatalf("tag query: %v", tr)
			}
			// With status: the registries in that state instead (a revoked one is still listed there).
			h.must(201, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"old-members","tag":"membership"}`)
			h.must(200, "POST", "/svc/"+id+"/old-members/revoke-registry", owner, nil)
			for status, want := range map[string]string{"": "[members]", "active": "[members]", "revoked": "[old-members]", "archived": "[]"} {
				q := "/svc/membership/get-registry-by-tag"
				if status != "" {
					q += "?status=" + status
				}
				tr := h.must(200, "GET", q, "", nil).data()
				if got := fmt.Sprint(names(t, tr["registries"].([]any), "registry_name")); got != want {
					t.Fatalf("tag query, status %q: %s, want %s", status, got, want)
				}
			}
			h.must(400, "GET", "/svc/membership/get-registry-by-tag?status=live", "", nil)

			// Search.
			search := func(key string, params url.Values) resp {
				return h.do("GET", "/svc/search/"+id+"?"+params.Encode(), key, nil)
			}
			for _, tc := range []struct {
				name   string
				key    string
				params url.Values
			}{
				{"nested path, Unicode, any case", "", url.Values{"address.city": {"ZÜR"}}},
				{"array element", "", url.Values{"tags": {"GRADE-2"}}},
				{"object in an array does not match", "", url.Values{"tags": {"nested"}}},
				{"two paths", "", url.Values{"address.city": {"paris"}, "name.first": {"ada1"}}},
				{"number", "", url.Values{"n": {"11"}}},
				{"boolean", "", url.Values{"ok": {"true"}, "record_name": {"person-00"}}},
				{"percent is literal", "", url.Values{"address.city": {"100%"}}},
				{"underscore is literal", "", url.Values{"address.city": {"r_s"}}},
				{"record name", "", url.Values{"record_name": {"SON-11"}}},
				{"registry name", "", url.Values{"registry_name": {"old"}, "record_name": {"person-01"}}},
				{"a member sees drafts and closed registries", owner, url.Values{"record_name": {"person-010"}}},
				{"anonymous does not", "", url.Values{"record_name": {"person-010"}}},
				{"another user does not", other, url.Values{"record_name": {"person-010"}}},
				{"pages", "", url.Values{"email": {"example.com"}, "page": {"3"}, "page_size": {"7"}}},
				{"time window", "", url.Values{"from": {"2000-01-01T00:00:00Z"}, "to": {"2100-01-01T00:00:00.000Z"}, "record_name": {"person-11"}}},
				{"future from", "", url.Values{"from": {"2100-01-01T00:00:00Z"}}},
			} {
				r := search(tc.key, tc.params)
				if r.Status != 200 {
					t.Fatalf("%s: %d %s", tc.name, r.Status, r.Raw)
				}
				items := r.Body["data"].([]any)
				for _, it := range items {
					m := it.(map[string]any)
					if m["latest"] != true || m["namespace_id"] != id {
						t.Fatalf("%s: result %v", tc.name, m)
					}
				}
				got["search "+tc.name] = fmt.Sprint(r.Body["total"], " ", names(t, items, "record_name"))
			}
			expect := map[string]string{
				"search object in an array does not match":          "0 []",
				"search percent is literal":                         "30 ",
				"search anonymous does not":                         "0 []",
				"search another user does not":                      "0 []",
				"search a member sees drafts and closed registries": "3 ",
				"search future from":                                "0 []",
			}
			for k, want := range expect {
				if !strings.HasPrefix(got[k], strings.TrimPrefix(want, "prefix:")) {
					t.Fatalf("%s: %s, want %s", k, got[k], want)
				}
			}
			for _, k := range []string{"search nested path, Unicode, any case", "search array element", "search two paths",
				"search number", "search boolean", "search record name", "search registry name", "search pages", "search time window"} {
				if strings.HasPrefix(got[k], "0 ") {
					t.Fatalf("%s found nothing", k)
				}
			}
			// Anonymous searches never see the closed registry or drafts; beyond 100 matches the
			// total is a lower bound, and the pages go on to the last match.
			seen, n := map[string]bool{}, 0
			for page := 1; page <= 4; page++ {
				r := search("", url.Values{"page_size": {"100"}, "page": {fmt.Sprint(page)}, "email": {"example"}})
				if r.Body["total"] != 100.0 || r.Body["total_exact"] != false {
					t.Fatalf("page %d: total %v exact %v, want 100 false", page, r.Body["total"], r.Body["total_exact"])
				}
				for _, e := range r.Body["data"].([]any) {
					seen[e.(map[string]any)["record_id"].(string)] = true
					n++
				}
			}
			if len(seen) != 216 || n != 216 {
				t.Fatalf("anonymous sees %d records in %d results, want 216 once each (2 open registries × 108 live)", len(seen), n)
			}
			for _, bad := range []string{"a..b=x", "a%20b=x", "%24where=x", "a.=x", ".a=x", "a/b=x"} {
				r := h.do("GET", "/svc/search/"+id+"?"+bad, "", nil)
				if r.Status != 400 || !strings.Contains(r.msg(), "details path") {
					t.Fatalf("%s: %d %s", bad, r.Status, r.msg())
				}
			}
			h.must(400, "GET", "/svc/search/"+id+"?from=yesterday", "", nil)
			h.must(404, "GET", "/svc/search/did:svc:nope?x=1", "", nil)
			h.must(401, "GET", "/svc/search/"+id+"?x=1", "svc_bad", nil)
		})
	}
	if len(answers) == 2 {
		var keys []string
		for k := range answers[store.DialectSQLite] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if a, b := answers[store.DialectSQLite][k], answers[store.DialectPostgres][k]; a != b {
				t.Errorf("%s differs:\n sqlite   %s\n postgres %s", k, a, b)
			}
		}
	}
}

func TestListAsOf(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		id := seedQueryData(t, h, key)
		// As of yesterday nothing existed yet; as of today everything does.
		for _, tc := range []struct {
			path  string
			field string
			want  float64
		}{
			{"/svc/query/" + id + "?as_on=2020-01-01", "total_registries", 0},
			{"/svc/query/" + id + "?as_on=2100-01-01", "total_registries", 3},
			{"/svc/query/" + id + "/people?as_on=2020-01-01", "total_records", 0},
			{"/svc/query/" + id + "/people?as_on=2100-01-01", "total_records", 108}, // drafts are private
		} {
			if r := h.must(200, "GET", tc.path, "", nil).data(); r[tc.field] != tc.want {
				t.Fatalf("%s: %v = %v, want %v", tc.path, tc.field, r[tc.field], tc.want)
			}
		}
		if r := h.must(200, "GET", "/svc/query/"+id+"/people?as_on=2100-01-01", key, nil).data(); r["total_records"] != 120.0 {
			t.Fatalf("the owner's as_on query: %v records, want 120 (drafts included)", r["total_records"])
		}
		// The as_on listing shows the version in effect: the old description before an update.
		h.must(200, "POST", "/svc/"+id+"/people/Person-001/update-record", key, `{"description":"changed"}`)
		r := h.must(200, "GET", "/svc/query/"+id+"/people?as_on=2100-01-01&name=person-001", "", nil).data()
		recs := r["records"].([]any)
		if len(recs) != 1 || recs[0].(map[string]any)["description"] != "changed" || recs[0].(map[string]any)["version_count"] != 2.0 {
			t.Fatalf("as_on after an update: %v", recs)
		}
	})
}
