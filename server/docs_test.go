package server_test

import (
	"context"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/store"
)

// TestDocsRenderInChromium loads /docs in headless Chromium and checks that Swagger UI rendered
// the operations of the embedded contract (no outside network: the assets are in the binary).
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
		t.Error("the Swagger UI assets were not embedded")
	}
}
