package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// harness is a server in-process (no port) over a fresh store of one dialect.
type harness struct {
	t *testing.T
	// e is the server wrapped so that every response is validated against the contract.
	e     http.Handler
	srv   *server.Server
	store *store.Store
	dbURL string // the store's database, for a second store (another instance) on it
}

func newHarness(t *testing.T, dialect string) *harness { return newHarnessWith(t, dialect, nil) }

// newHarnessWith lets a test adjust the configuration (domain checker, re-verification).
func newHarnessWith(t *testing.T, dialect string, adjust func(*server.Config)) *harness {
	t.Helper()
	st, dbURL := storetest.OpenURL(t, dialect)
	// The lookup cache is on, as in production: every write-then-read in the tests checks that
	// writes empty it.
	cfg := server.Config{Store: st, Logger: slog.New(slog.DiscardHandler), DIDHost: "localhost%3A8080", LookupCacheTTL: time.Minute}
	if adjust != nil {
		adjust(&cfg)
	}
	srv, err := server.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, e: &contractChecked{t: t, e: srv.Echo()}, srv: srv, store: st, dbURL: dbURL}
}

// eachDialect runs fn per dialect with a fresh harness.
func eachDialect(t *testing.T, fn func(t *testing.T, h *harness)) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) { fn(t, newHarness(t, d)) })
	}
}

// key makes an API key for email.
func (h *harness) key(email string) string {
	h.t.Helper()
	k, _, err := h.store.CreateAPIKey(context.Background(), email)
	if err != nil {
		h.t.Fatal(err)
	}
	return k
}

type resp struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

func (r resp) msg() string { s, _ := r.Body["message"].(string); return s }

func (r resp) data() map[string]any { m, _ := r.Body["data"].(map[string]any); return m }

// do sends a request; body is a string (sent as is) or a value (JSON-encoded); headers are
// name, value pairs.
func (h *harness) do(method, path, key string, body any, headers ...string) resp {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	out := resp{Status: rec.Code, Header: rec.Header(), Raw: rec.Body.Bytes()}
	if len(out.Raw) > 0 {
		if err := json.Unmarshal(out.Raw, &out.Body); err != nil {
			h.t.Fatalf("%s %s: answer is not a JSON object: %q", method, path, out.Raw)
		}
		if _, ok := out.Body["message"].(string); !ok && !strings.HasSuffix(path, "/did.json") {
			h.t.Fatalf("%s %s: answer has no message: %s", method, path, out.Raw)
		}
	}
	return out
}

// must asserts the status and returns the answer.
func (h *harness) must(status int, method, path, key string, body any, headers ...string) resp {
	h.t.Helper()
	r := h.do(method, path, key, body, headers...)
	if r.Status != status {
		h.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, status, r.Raw)
	}
	return r
}

// referenceDir is the JavaScript reference (SVC_CONFORMANCE_DIR, else the repository's
// conformance directory) when node and its node_modules are there; otherwise the test is
// skipped, or failed under CI=true.
func referenceDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SVC_CONFORMANCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "conformance")
	}
	_, errNode := exec.LookPath("node")
	_, errMod := os.Stat(filepath.Join(dir, "node_modules", "canonicalize"))
	if errNode != nil || errMod != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the JavaScript reference is required in CI (node: %v, modules: %v)", errNode, errMod)
		}
		t.Skip("SKIPPING reference comparison: run `make conformance` (installs conformance/node_modules)")
	}
	return dir
}

// referenceDigests runs the JavaScript reference over objects (one per line) and returns its
// digests; skipped (or failed in CI) when node or the prepared reference is missing.
func referenceDigests(t *testing.T, objs []map[string]any) []string {
	t.Helper()
	dir := referenceDir(t)
	var in bytes.Buffer
	for _, o := range objs {
		b, _ := json.Marshal(o)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", "digest.mjs")
	cmd.Dir = dir
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node digest.mjs: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}
