package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// rowsOf are the record names a registry page's table lists, in order.
func rowsOf(body string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`<tr><td><a href="[^"]*"><bdi>([^<]*)</bdi>`).FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestExplorerRegistrySearch: the registry page searches its records through the details search
// (record name of any length, state, a details field path and value), pages the results (an
// exact total up to 100, beyond it "more than 100" and a next page while pages are full; a
// batch's records share their update time and go by id), never
// shows a draft, labels the records of other registries the partial registry match brings, and
// answers 400 with the page and a sentence for a form it cannot search. A registry closed to
// queries is neither listed nor searched, and its page goes to a record by exact name.
func TestExplorerRegistrySearch(t *testing.T) {
	eachDialectOf(t, func(t *testing.T, d string) {
		h, id := explorerSite(t, d)
		key := h.key("owner@example.com")
		var recs []string
		for i := range 120 {
			team := map[bool]string{true: "blue", false: "red"}[i%2 == 0]
			recs = append(recs, fmt.Sprintf(`{"record_name":"p%03d","details":{"email":"p%03d@example.com","name":{"first":"Team %s"}}}`, i, i, team))
		}
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-records", key, `{"records":[`+strings.Join(recs, ",")+`]}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"employees-old","schema":{"type":"object"}}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees-old/add-record", key, `{"record_name":"dave","details":{"email":"dave@example.com"}}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"secret","schema":{"type":"object"},"query_allowed":false}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/secret/add-record", key, `{"record_name":"hidden-one","details":{"x":"y"}}`)
		reg := "/explore/n/" + url.PathEscape(id) + "/employees"

		for _, c := range []struct {
			query      string
			rows       []string // the first rows, in order (nil: not checked)
			count      int      // rows on the page
			wants      []string
			notWants   []string
			prev, next bool
		}{
			{query: "", count: 50, wants: []string{"Records (122)", "Page 1 of 3", "/svc/query/"}, next: true},
			{query: "?name=al", rows: []string{"alice"}, count: 1, wants: []string{"(1)", "/svc/search/", "registry_name=employees"}},
			{query: "?name=ALI&state=live", rows: []string{"alice"}, count: 1},
			{query: "?field=email&value=BOB@", rows: []string{"bob"}, count: 1, wants: []string{"email=BOB%40"}},
			{query: "?field=name.first&value=team+blue", rows: []string{"p000", "p002"}, count: 50, wants: []string{"(60)", "Page 1 of 2"}, next: true},
			{query: "?field=name.first&value=team+blue&page=2", rows: []string{"p100", "p102"}, count: 10, wants: []string{"Page 2 of 2"}, prev: true},
			{query: "?name=p", rows: []string{"p000", "p001"}, count: 50, wants: []string{"(more than 100)", "Page 1<"}, next: true},
			{query: "?name=p&page=3", rows: []string{"p100", "p101"}, count: 20, prev: true},
			{query: "?name=car", count: 0, wants: []string{"(0)", "No records match"}},
			{query: "?field=email&value=carol", count: 0},
			{query: "?state=revoked", count: 0, wants: []string{"(0)"}},
			{query: "?name=dav", rows: []string{"dave"}, count: 1, wants: []string{`id="mixed"`, "/employees-old/dave", `scope="col">Registry`}},
			{query: "?name=bo", count: 1, notWants: []string{`id="mixed"`, `scope="col">Registry`}},
		} {
			rec := getPage(t, h, reg+c.query)
			body := rec.Body.String()
			if rec.Code != http.StatusOK {
				t.Errorf("%s: %d", c.query, rec.Code)
				continue
			}
			rows := rowsOf(body)
			if len(rows) != c.count {
				t.Errorf("%s: %d rows, want %d: %v", c.query, len(rows), c.count, rows)
			}
			for i, want := range c.rows {
				if i >= len(rows) || rows[i] != want {
					t.Errorf("%s: rows %v, want %v first", c.query, rows, c.rows)
					break
				}
			}
			for _, w := range c.wants {
				if !strings.Contains(body, w) {
					t.Errorf("%s lacks %q", c.query, w)
				}
			}
			if strings.Contains(strings.Join(rows, " "), "carol") {
				t.Errorf("%s lists the draft carol", c.query)
			}
			for _, w := range c.notWants {
				if strings.Contains(body, w) {
					t.Errorf("%s shows %q", c.query, w)
				}
			}
			if got := strings.Contains(body, `rel="prev"`); got != c.prev {
				t.Errorf("%s: previous page link %v, want %v", c.query, got, c.prev)
			}
			if got := strings.Contains(body, `rel="next"`); got != c.next {
				t.Errorf("%s: next page link %v, want %v", c.query, got, c.next)
			}
		}

		// A form the search cannot take: 400, the page with a sentence, no records.
		for query, want := range map[string]string{
			"?field=email":                       "Give both a details field",
			"?value=x":                           "Give both a details field",
			"?field=page&value=2":                "parameter of the search itself",
			"?field=a..b&value=x":                "is not a details path",
			"?state=draft":                       "There is no state",
			"?name=" + strings.Repeat("x", 1025): "record_name",
		} {
			rec := getPage(t, h, reg+query)
			body := rec.Body.String()
			if rec.Code != http.StatusBadRequest || !strings.Contains(body, `id="search-problem"`) || !strings.Contains(body, want) ||
				!strings.Contains(body, "Verify in this browser") || len(rowsOf(body)) != 0 {
				t.Errorf("%s: %d, want 400 with %q", query, rec.Code, want)
			}
		}

		// A registry closed to queries: neither listed nor searched, a lookup by exact name.
		secret := "/explore/n/" + url.PathEscape(id) + "/secret"
		for _, q := range []string{"", "?name=hidden"} {
			rec := getPage(t, h, secret+q)
			body := rec.Body.String()
			if rec.Code != http.StatusOK || !strings.Contains(body, `id="closed"`) || strings.Contains(body, "hidden-one") ||
				!strings.Contains(body, `name="record"`) || strings.Contains(body, "/svc/search/") || strings.Contains(body, "/svc/query/") {
				t.Errorf("the closed registry%s: %d", q, rec.Code)
			}
		}
		if rec := getPage(t, h, secret+"?record=hidden-one"); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != secret+"/hidden-one" {
			t.Errorf("go to a record by name: %d %v", rec.Code, rec.Header())
		}
		if rec := getPage(t, h, secret+"/hidden-one"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "hidden-one") {
			t.Errorf("the closed registry's record: %d", rec.Code)
		}
	})
}
