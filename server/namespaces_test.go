package server_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// findNamespaces asks GET /svc/namespaces and answers the names found and the total.
func findNamespaces(t *testing.T, h *harness, key, query string) ([]string, float64) {
	t.Helper()
	r := h.must(200, "GET", "/svc/namespaces"+query, key, nil)
	var names []string
	for _, it := range r.Body["data"].([]any) {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	return names, r.Body["total"].(float64)
}

// TestSearchNamespaces: namespace discovery matches the name, the verified domain and the id,
// case-insensitively, with LIKE's wildcards and its escape character matched as themselves,
// exact matches first, paged; hostile values are answered (200 or 400), never a 500, and the
// same on both dialects.
func TestSearchNamespaces(t *testing.T) {
	answers := map[string]string{}
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h, dns, _ := domainHarness(t, d, server.ReverifyConfig{})
			owner := h.key("owner@example.com")
			ids := map[string]string{}
			for _, name := range []string{"Acme", "Acme Labs", "100% Pure", "under_score", `back\slash`, "Zürich Bank", "ZÜRICH Post", "Other"} {
				b, _ := json.Marshal(name)
				ids[name] = h.must(201, "POST", "/svc/create-namespace", owner, `{"name":`+string(b)+`}`).data()["namespace_id"].(string)
			}
			selfVerify(t, h, dns, owner, ids["Other"], "acme-verified.example")

			cases := map[string][]string{
				"":                 {"100% Pure", "Acme", "Acme Labs", "Other", "ZÜRICH Post", "Zürich Bank", `back\slash`, "under_score"},
				"?q=acme":          {"Acme", "Acme Labs", "Other"}, // Other by its verified domain
				"?q=ACME%20LABS":   {"Acme Labs"},
				"?q=acme-verified": {"Other"},
				"?q=%25":           {"100% Pure"},                  // % is itself, not every namespace
				"?q=_":             {"under_score"},                // _ is itself, not any one character
				"?q=%5C":           {`back\slash`},                 // \ is itself
				"?q=%5C%25":        nil,                            // \% is two characters, not an escaped %
				"?q=Z%C3%BCrich":   {"ZÜRICH Post", "Zürich Bank"}, // Unicode letters fold too
				"?q=" + url.QueryEscape(strings.Repeat("é", 256)): nil,
				"?q=%E2%80%AEacme":                     nil, // an RTL override is text like any other
				"?q=" + url.QueryEscape("<script>"):    nil,
				"?q=" + url.QueryEscape("' OR 1=1 --"): nil,
			}
			got := map[string]string{}
			for q, want := range cases {
				names, total := findNamespaces(t, h, "", q)
				if fmt.Sprint(names) != fmt.Sprint(want) || int(total) != len(want) {
					t.Errorf("%q: got %q (total %v), want %q", q, names, total, want)
				}
				got[q] = fmt.Sprint(names)
			}
			// The id matches, in any case; an exact match comes first.
			id := ids["Acme Labs"]
			if names, _ := findNamespaces(t, h, "", "?q="+url.QueryEscape(strings.ToUpper(id))); fmt.Sprint(names) != "[Acme Labs]" {
				t.Errorf("by id: %q", names)
			}
			if names, _ := findNamespaces(t, h, "", "?q=acme%20labs"); len(names) != 1 {
				t.Errorf("acme labs: %q", names)
			}
			names, _ := findNamespaces(t, h, "", "?q=Acme")
			if len(names) == 0 || names[0] != "Acme" {
				t.Errorf("the exact match is not first: %q", names)
			}
			// Paging: the pages make the whole, in order.
			var paged []string
			for p := 1; p <= 3; p++ {
				n, total := findNamespaces(t, h, owner, fmt.Sprintf("?page=%d&page_size=3", p))
				if total != 8 {
					t.Errorf("page %d: total %v", p, total)
				}
				paged = append(paged, n...)
			}
			if all, _ := findNamespaces(t, h, "", ""); fmt.Sprint(paged) != fmt.Sprint(all) {
				t.Errorf("pages %q, all %q", paged, all)
			}
			if n, total := findNamespaces(t, h, "", "?page=1000000000&page_size=100"); len(n) != 0 || total != 8 {
				t.Errorf("a page past the end: %q %v", n, total)
			}
			// Refused: too long, bad pages, NUL, invalid UTF-8.
			for _, q := range []string{"?q=" + strings.Repeat("a", 257), "?page=0", "?page_size=101", "?page=x", "?q=%00", "?q=%FF"} {
				r := h.do("GET", "/svc/namespaces"+q, "", nil)
				if r.Status != 400 || r.msg() == "" {
					t.Errorf("%s: %d %s", q, r.Status, r.Raw)
				}
			}
			if r := h.do("GET", "/svc/namespaces", "svc_not-a-key", nil); r.Status != 401 {
				t.Errorf("a bad key: %d", r.Status)
			}
			answers[d] = fmt.Sprint(got)
		})
	}
	if len(answers) == 2 && answers[store.DialectSQLite] != answers[store.DialectPostgres] {
		t.Errorf("the dialects differ:\nsqlite   %s\npostgres %s", answers[store.DialectSQLite], answers[store.DialectPostgres])
	}
}
