package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"net/http/httptest"

	"github.com/svc-directory/svc/store"
)

// requireTool finds a program the test needs: missing fails the test in CI, skips it elsewhere.
func requireTool(t *testing.T, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if p, err := exec.LookPath(path); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required in CI (make node-tools; .ci/run installs chromium)", path)
	}
	t.Skipf("SKIPPING: %s is not installed", path)
	return ""
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestTypeScriptClient proves the contract serves SDK generation: types generated from
// openapi.yaml with openapi-typescript, a program using openapi-fetch compiled with
// tsc --strict, run against a live server: publish, look up, verify.
func TestTypeScriptClient(t *testing.T) {
	root, _ := filepath.Abs("..")
	bin := filepath.Join(root, "node_modules", ".bin")
	node := requireTool(t, "node")
	gen := requireTool(t, filepath.Join(bin, "openapi-typescript"))
	tsc := requireTool(t, filepath.Join(bin, "tsc"))
	// The work directory sits inside the repository so that node finds node_modules.
	dir, err := os.MkdirTemp(filepath.Join(root, ".cache"), "tsclient-")
	if err != nil {
		if err = os.MkdirAll(filepath.Join(root, ".cache"), 0o755); err == nil {
			dir, err = os.MkdirTemp(filepath.Join(root, ".cache"), "tsclient-")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	for _, f := range []string{"main.ts", "tsconfig.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tsclient", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module"}`), 0o644)
	// The generator's default options, as an integrator runs it: a request field with a schema
	// default would become required, so the contract states server defaults in descriptions.
	run(t, dir, gen, filepath.Join(root, "openapi.yaml"), "-o", filepath.Join(dir, "schema.d.ts"))
	run(t, dir, tsc, "-p", "tsconfig.json")

	h := newHarness(t, store.DialectSQLite)
	srv := httptest.NewServer(h.e)
	defer srv.Close()
	key := h.key("ts@example.com")
	out := run(t, dir, node, filepath.Join(dir, "out", "main.js"), srv.URL, key)
	if !strings.HasPrefix(out, "ok ") || !strings.Contains(out, "Verification successful") {
		t.Fatalf("the TypeScript program said: %s", out)
	}
}
