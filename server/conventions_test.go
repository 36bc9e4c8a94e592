package server_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// send makes one request to a live server (HEAD bodies are only dropped by a real connection).
func send(t *testing.T, method, url, key string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	// No transparent gzip: the tests look at the encoding the server chose.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// TestHeadWhereverGet sends HEAD and GET to every GET route of the server (the contract's
// operations through the strict handlers, /healthz, /readyz, /openapi.yaml, /docs, /metrics):
// HEAD gets GET's status and headers, and no body.
func TestHeadWhereverGet(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	key := h.key("head@example.com")
	ns := publish(t, h, key)
	srv := httptest.NewServer(h.e)
	defer srv.Close()
	values := map[string]string{"namespace": ns, "namespace_id": ns, "registry_name": "employees", "record_name": "alice",
		"tag": "custom", "profile_id": "nobody", "domain": "example.com", "file": "swagger-ui.css"}
	param := regexp.MustCompile(`:[a-z_]+`)
	seen := 0
	for _, r := range h.srv.Echo().Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		path := param.ReplaceAllStringFunc(r.Path, func(p string) string {
			if v, ok := values[p[1:]]; ok {
				return v
			}
			return "x"
		})
		path = strings.ReplaceAll(path, "*", "")
		seen++
		t.Run(r.Path, func(t *testing.T) {
			get, getBody := send(t, http.MethodGet, srv.URL+path, key)
			head, headBody := send(t, http.MethodHead, srv.URL+path, key)
			if head.StatusCode != get.StatusCode {
				t.Fatalf("HEAD %s: %d, GET: %d", path, head.StatusCode, get.StatusCode)
			}
			if len(headBody) != 0 {
				t.Errorf("HEAD %s sent a body: %q", path, headBody)
			}
			for _, name := range []string{"Content-Type", "ETag", "Cache-Control"} {
				if head.Header.Get(name) != get.Header.Get(name) {
					t.Errorf("HEAD %s: %s %q, GET: %q", path, name, head.Header.Get(name), get.Header.Get(name))
				}
			}
			if r.Path != "/metrics" && get.ContentLength >= 0 && head.ContentLength != int64(len(getBody)) {
				t.Errorf("HEAD %s: Content-Length %d, GET's body has %d bytes", path, head.ContentLength, len(getBody))
			}
		})
	}
	for _, want := range []string{"/healthz", "/readyz", "/openapi.yaml", "/docs", "/metrics", "/svc/lookup/:namespace/:registry_name/:record_name"} {
		found := false
		for _, r := range h.srv.Echo().Routes() {
			found = found || (r.Method == http.MethodGet && r.Path == want)
		}
		if !found {
			t.Errorf("no GET route %s", want)
		}
	}
	if seen < 20 {
		t.Fatalf("only %d GET routes", seen)
	}
	// HEAD where there is no GET stays a 405 (or 404 off the routes).
	if res, _ := send(t, http.MethodHead, srv.URL+"/svc/create-namespace", key); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("HEAD /svc/create-namespace: %d, want 405", res.StatusCode)
	}
}

// lockedBuffer is a log destination shared by the server's goroutines and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines(t *testing.T, msg string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Bytes())
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// TestAccessLogLinePerRequest checks one "request" line per request, with the method as sent,
// the route template, the status (also of errors answered by the error handler), the duration
// and the request id the client got.
func TestAccessLogLinePerRequest(t *testing.T) {
	var logs lockedBuffer
	st := storetest.Open(t, store.DialectSQLite)
	srvr, err := server.NewServer(server.Config{Store: st, Logger: slog.New(slog.NewJSONHandler(&logs, nil)), DIDHost: "localhost%3A8080"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(srvr.Echo())
	defer srv.Close()
	key, _, err := st.CreateAPIKey(t.Context(), "log@example.com")
	if err != nil {
		t.Fatal(err)
	}
	reqs := []struct {
		method, path, route string
		status              int
	}{
		{"GET", "/healthz", "/healthz", 200},
		{"HEAD", "/readyz", "/readyz", 200},
		{"GET", "/svc/lookup/did:svc:nope/employees/alice", "/svc/lookup/:namespace/:registry_name/:record_name", 404},
		{"POST", "/svc/create-namespace", "/svc/create-namespace", 401},
		{"GET", "/no/such/path", "unmatched", 404},
		{"GET", "/docs", "/docs", 200},
	}
	ids := map[string]bool{}
	for _, r := range reqs {
		res, _ := send(t, r.method, srv.URL+r.path, "")
		if res.StatusCode != r.status {
			t.Fatalf("%s %s: %d, want %d", r.method, r.path, res.StatusCode, r.status)
		}
		ids[res.Header.Get("X-Request-Id")] = true
	}
	if res, _ := send(t, "GET", srv.URL+"/svc/notifications/pending", key); res.StatusCode != 200 {
		t.Fatalf("notifications: %d", res.StatusCode)
	} else {
		ids[res.Header.Get("X-Request-Id")] = true
	}
	srv.Close() // all handlers have returned
	lines := logs.lines(t, "request")
	if len(lines) != len(reqs)+1 {
		t.Fatalf("%d access log lines for %d requests:\n%s", len(lines), len(reqs)+1, logs.b.String())
	}
	for i, r := range reqs {
		l := lines[i]
		if l["method"] != r.method || l["route"] != r.route || l["status"] != float64(r.status) || l["level"] != "INFO" {
			t.Errorf("line %d: %v, want %s %s %d", i, l, r.method, r.route, r.status)
		}
		if d, ok := l["duration_ms"].(float64); !ok || d < 0 || d > float64(time.Minute.Milliseconds()) {
			t.Errorf("line %d: duration_ms %v", i, l["duration_ms"])
		}
		if id, _ := l["request_id"].(string); id == "" || !ids[id] {
			t.Errorf("line %d: request_id %v is not one the client got", i, l["request_id"])
		}
		if strings.Contains(l["route"].(string), "did:svc:nope") {
			t.Errorf("line %d logs the raw path", i)
		}
	}
}

// TestDocsCompressedAndCached: /docs and its assets are served gzip-compressed when accepted,
// the assets under hashed URLs with a year of immutable caching, the page with no-cache; both
// with an ETag that answers 304.
func TestDocsCompressedAndCached(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	srv := httptest.NewServer(h.e)
	defer srv.Close()

	res, body := send(t, "GET", srv.URL+"/docs", "", "Accept-Encoding", "br, gzip;q=0.8")
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Cache-Control") != "no-cache" ||
		res.Header.Get("ETag") == "" || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("/docs: %d %v", res.StatusCode, res.Header)
	}
	page := gunzip(t, body)
	assets := regexp.MustCompile(`"(/docs/[a-z-]+\.(?:js|css)\?v=[0-9a-f]+)"`).FindAllStringSubmatch(string(page), -1)
	if len(assets) != 3 {
		t.Fatalf("the page refers to %d hashed assets, want 3 (bundle, css, init.js): %s", len(assets), page)
	}
	if res, _ := send(t, "GET", srv.URL+"/docs", "", "If-None-Match", res.Header.Get("ETag")); res.StatusCode != http.StatusNotModified {
		t.Errorf("/docs with its ETag: %d, want 304", res.StatusCode)
	}
	for _, a := range assets {
		url := srv.URL + a[1]
		res, gz := send(t, "GET", url, "", "Accept-Encoding", "gzip")
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" ||
			res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || res.Header.Get("ETag") == "" {
			t.Fatalf("%s: %d %v", a[1], res.StatusCode, res.Header)
		}
		plain, raw := send(t, "GET", url, "", "Accept-Encoding", "gzip;q=0, identity")
		if plain.Header.Get("Content-Encoding") != "" || !bytes.Equal(gunzip(t, gz), raw) {
			t.Fatalf("%s: the identity and gzip forms differ (%v)", a[1], plain.Header)
		}
		if strings.Contains(a[1], "bundle") && len(gz)*3 > len(raw) {
			t.Errorf("%s: gzip %d bytes of %d", a[1], len(gz), len(raw))
		}
		for _, etag := range []string{res.Header.Get("ETag"), plain.Header.Get("ETag")} {
			if res, _ := send(t, "GET", url, "", "If-None-Match", etag, "Accept-Encoding", "gzip"); res.StatusCode != http.StatusNotModified {
				t.Errorf("%s with If-None-Match %s: %d, want 304", a[1], etag, res.StatusCode)
			}
		}
	}
	if res, _ := send(t, "GET", srv.URL+"/docs/nothing.js", ""); res.StatusCode != 404 {
		t.Errorf("/docs/nothing.js: %d", res.StatusCode)
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDocsAssetsMatchPackageJSON: the committed Swagger UI bundle is the swagger-ui-dist
// version package.json names (`make docs-assets` refreshes both files from npm).
func TestDocsAssetsMatchPackageJSON(t *testing.T) {
	raw, err := os.ReadFile("../package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	want := pkg.DevDependencies["swagger-ui-dist"]
	if want == "" {
		t.Fatal("package.json names no swagger-ui-dist")
	}
	bundle, err := os.ReadFile("docs/swagger-ui-bundle.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(bundle, []byte(`PACKAGE_VERSION:"`+want+`"`)) {
		t.Fatalf("server/docs/swagger-ui-bundle.js is not swagger-ui-dist %s: run `make docs-assets` and commit", want)
	}
	if css, err := os.ReadFile("docs/swagger-ui.css"); err != nil || len(css) < 10_000 {
		t.Fatalf("server/docs/swagger-ui.css: %d bytes, %v", len(css), err)
	}
}
