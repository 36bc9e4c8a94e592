package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/store"
)

// TestDocsRenderInChromium loads /docs in headless Chromium and checks that Swagger UI rendered
// the operations of the embedded contract (no outside network: the assets are in the binary),
// that each operation says what authentication it needs (public reads "key optional" with an
// open padlock until a key is given, key-only operations "key required", operations without
// authentication neither), and that the Servers list shows no markdown backticks.
func TestDocsRenderInChromium(t *testing.T) {
	chromium := requireTool(t, "chromium")
	h := newHarness(t, store.DialectSQLite)
	srv := httptest.NewServer(h.e)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=15000", "--dump-dom", srv.URL+"/docs")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	for _, want := range []string{"opblock", "/svc/lookup/{namespace}", "Look up a record", "/svc/verify-record-lookup", "svc trust directory"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Contains(dom, "docs-missing") && !strings.Contains(dom, "opblock") {
		t.Fatal("the Swagger UI assets were not embedded")
	}

	// Each operation's block, by its id (operations-<tag>-<operationId>), up to the next one.
	ops := map[string]string{}
	parts := strings.Split(dom, `id="operations-`)
	for _, p := range parts[1:] {
		id, rest, _ := strings.Cut(p, `"`)
		ops[id] = rest
	}
	for id, want := range map[string]string{
		"lookup-lookupNamespace":          "optional",
		"search-searchRecords":            "optional",
		"verification-verifyRecordLookup": "required",
		"publish-addRecord":               "required",
		"query-getRegistriesByTag":        "optional",
		"system-healthz":                  "none",
	} {
		block, ok := ops[id]
		if !ok {
			t.Errorf("no rendered operation %s", id)
			continue
		}
		optional, required := strings.Contains(block, "svc-auth-optional"), strings.Contains(block, "svc-auth-required")
		padlock := regexp.MustCompile(`aria-label="authorization button (locked|unlocked)"`).FindStringSubmatch(block)
		switch want {
		case "none":
			if optional || required || padlock != nil {
				t.Errorf("%s needs no key but shows an authentication label or padlock", id)
			}
		default:
			if optional != (want == "optional") || required != (want == "required") {
				t.Errorf("%s: want the label %q (optional %v, required %v)", id, "key "+want, optional, required)
			}
			if padlock == nil || padlock[1] != "unlocked" {
				t.Errorf("%s: want an open padlock before any key is given, got %v", id, padlock)
			}
		}
	}

	servers := regexp.MustCompile(`(?s)<option value="/">(.*?)</option>`).FindStringSubmatch(dom)
	if servers == nil || strings.Contains(servers[1], "`") || !strings.Contains(servers[1], "make run") {
		t.Errorf("the Servers list shows %q", servers)
	}
}

// TestDocsTrailingSlash: /docs/ sends the reader to /docs.
func TestDocsTrailingSlash(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	srv := httptest.NewServer(h.e)
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(srv.URL + "/docs/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != "/docs" {
		t.Fatalf("/docs/: %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, err = http.Get(srv.URL + "/docs/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/docs/ followed: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
}
