package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/explorer"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

// explorerSite publishes the namespace of publish (alice and bob live, carol a draft),
// integrates the log and answers the harness with the namespace id.
func explorerSite(t *testing.T, d string) (*harness, string) {
	t.Helper()
	lk, vkey := newLogKey(t)
	h := newHarnessWith(t, d, func(c *server.Config) { c.LogVerifierKey = vkey })
	key := h.key("owner@example.com")
	id := publish(t, h, key)
	if _, err := translog.NewIntegrator(h.store, lk, nil, nil).IntegrateOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h, id
}

func getPage(t *testing.T, h *harness, path string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	return rec
}

// TestExplorerPages: every page kind answers HTML with the strict CSP, shows what the JSON
// says, links to that JSON, works as plain links and forms (no script needed to browse), and
// never shows a draft; the JSON lookup URLs keep answering JSON; a browser opening / is sent
// to the explorer, an API client still gets the JSON 404.
func TestExplorerPages(t *testing.T) {
	eachDialectOf(t, func(t *testing.T, d string) {
		h, id := explorerSite(t, d)
		ns := "/explore/n/" + url.PathEscape(id)
		pages := map[string][]string{
			"/explore":                      {"Find a namespace", "Namespaces", "transparency log</a> holds <strong>"},
			"/explore?q=acm":                {"1 namespace found", `href="` + ns + `"`, "/svc/namespaces?page_size=20&amp;page=1&amp;q=acm"},
			ns:                              {"Acme", "employees", "Verify in this browser", "/svc/lookup/" + url.PathEscape(id), `data-lookup="{`},
			ns + "/employees":               {"employees", "alice", "bob", "Schema", "/svc/query/", `name="state"`},
			ns + "/employees?state=revoked": {"Records matching the search (0)", "/svc/search/"},
			ns + "/employees?name=ali":      {"alice", "Records matching the search (1)"},
			ns + "/employees/alice":         {"alice@example.com", "Version history", "effective state", "Proof", "SvcRecordProof", "Verify in this browser"},
			"/explore/log":                  {"Tree size", "Verifier key", "localhost:8080/svc/log&#43;", "No witnesses are configured"},
		}
		for path, wants := range pages {
			rec := getPage(t, h, path)
			body := rec.Body.String()
			if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
				t.Errorf("%s: %d %s", path, rec.Code, rec.Header().Get("Content-Type"))
				continue
			}
			if rec.Header().Get("Content-Security-Policy") != explorer.CSP || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: security headers %v", path, rec.Header())
			}
			for _, w := range wants {
				if !strings.Contains(body, w) {
					t.Errorf("%s lacks %q", path, w)
				}
			}
			if strings.Contains(body, "carol") {
				t.Errorf("%s shows the draft carol", path)
			}
			if strings.Contains(body, "<script>") || strings.Contains(body, " style=") || strings.Contains(body, " on") && strings.Contains(body, "=\"javascript") {
				t.Errorf("%s has inline script or style", path)
			}
		}
		// The draft is not found, as in the JSON.
		if rec := getPage(t, h, ns+"/employees/carol"); rec.Code != 404 || !strings.Contains(rec.Body.String(), "Record not found") {
			t.Errorf("the draft's page: %d %s", rec.Code, rec.Body.String())
		}
		for _, p := range []string{"/explore/n/did:svc:nothere", "/explore/nowhere", ns + "/nothere"} {
			if rec := getPage(t, h, p); rec.Code != 404 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
				t.Errorf("%s: %d", p, rec.Code)
			}
		}
		// The JSON lookups are JSON still, even to a browser's Accept.
		if rec := getPage(t, h, "/svc/lookup/"+id+"/employees/alice", "Accept", "text/html,*/*"); rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("lookup: %d %s", rec.Code, rec.Header().Get("Content-Type"))
		}
		if rec := getPage(t, h, "/", "Accept", "text/html,application/xhtml+xml,*/*;q=0.8"); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/explore" {
			t.Errorf("/ for a browser: %d %v", rec.Code, rec.Header())
		}
		if rec := getPage(t, h, "/", "Accept", "application/json"); rec.Code != 404 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Errorf("/ for an API client: %d %v", rec.Code, rec.Header())
		}
		if rec := getPage(t, h, "/explore/assets/style.css"); rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") {
			t.Errorf("style.css: %d %v", rec.Code, rec.Header())
		}
	})
}

// TestExplorerOriginHostedRecord: the page of an origin-hosted record (a DeDi file's entry)
// shows its origin block: the publisher, the file, its signing key, and the state the record
// reads as.
func TestExplorerOriginHostedRecord(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		nsID := originHosted(t, h.store, []byte("{}"), "ab12", store.OriginStale, time.Now().Add(-time.Hour), nil)
		if _, err := h.store.AddRecords(context.Background(), nsID, "keys", "did:web:localhost%3A8080", []directory.RecordInput{
			{RecordName: "k1", Details: map[string]any{"x": 1.0}}}); err != nil {
			t.Fatal(err)
		}
		rec := getPage(t, h, "/explore/n/pub.example/keys/k1")
		body := rec.Body.String()
		if rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, body)
		}
		for _, want := range []string{"Origin: publisher and signature", "publisher_domain", "pub.example", "https://pub.example/keys.json", "kid", "state-stale"} {
			if !strings.Contains(body, want) {
				t.Errorf("the origin-hosted record page lacks %q", want)
			}
		}
	})
}

// eachDialectOf runs fn per dialect.
func eachDialectOf(t *testing.T, fn func(t *testing.T, d string)) {
	for _, d := range []string{"sqlite", "postgres"} {
		t.Run(d, func(t *testing.T) { fn(t, d) })
	}
}

// TestExplorerNamesTheWitnesses: witness keys configured for the explorer are listed on the
// log page and handed to the verify button of entry pages (which then checks the cosigned
// checkpoint); without them the button's step says it is skipped.
func TestExplorerNamesTheWitnesses(t *testing.T) {
	h := newHarnessWith(t, "sqlite", func(c *server.Config) {
		c.LogWitnessKeys, c.LogWitnessQuorum = []string{"witness.example+0a0b0c0d+AAAA"}, 1
	})
	id := publish(t, h, h.key("owner@example.com"))
	if body := getPage(t, h, "/explore/log").Body.String(); !strings.Contains(body, "witness.example") || !strings.Contains(body, "cosignatures of 1 of these witnesses") {
		t.Errorf("the log page: %s", body)
	}
	if body := getPage(t, h, "/explore/n/"+url.PathEscape(id)).Body.String(); !strings.Contains(body, `data-witnesses="witness.example`) || !strings.Contains(body, `data-quorum="1"`) {
		t.Errorf("the namespace page does not hand the witnesses to the verify button")
	}
}
