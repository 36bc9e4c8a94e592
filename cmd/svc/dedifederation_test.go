package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/domainverify/dnstest"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// staticDir serves the files of dir by path, with an ETag of their content (a file rewritten
// within the same second is still told apart), answering If-None-Match with 304.
func staticDir(dir string, dark *bool, mu *sync.Mutex) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		off := *dark
		mu.Unlock()
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
		if off || err != nil || strings.Contains(r.URL.Path, "..") {
			http.NotFound(w, r)
			return
		}
		sum := sha256.Sum256(b)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		_, _ = w.Write(b)
	})
}

func getJSON(t *testing.T, url string) (int, map[string]any, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out, b
}

func details(t *testing.T, base, path string) (map[string]any, string) {
	t.Helper()
	code, body, raw := getJSON(t, base+"/svc/lookup/"+path)
	if code != http.StatusOK {
		t.Fatalf("lookup %s: %d %s", path, code, raw)
	}
	d := body["data"].(map[string]any)
	det, _ := d["details"].(map[string]any)
	st, _ := d["effective_state"].(string)
	return det, st
}

// TestDediFederation: instance A exports a namespace (svc dedi export), a static server
// serves the files for pub.test (resolved by the loopback DNS server), instance B ingests
// them: B's lookups return A's details, B refuses writes to the namespace, and B's relayed bytes
// verify with svc dedi verify. Then the publisher changes a record (a new version on B),
// removes one, rotates its key with an overlap (still live), removes the old key while a file
// is still signed with it (withdrawn), and goes dark past next_update (stale, still served).
func TestDediFederation(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) { federation(t, dialect) })
	}
}

func federation(t *testing.T, dialect string) {
	ctx := context.Background()
	a := newExportService(t) // instance A (its own SQLite database)
	dir := t.TempDir()
	var mu sync.Mutex
	dark := false
	origin := httptest.NewServer(staticDir(dir, &dark, &mu))
	t.Cleanup(origin.Close)
	_, p, _ := net.SplitHostPort(origin.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	dns := dnstest.Start(t)
	dns.SetAddrs("pub.test", "127.0.0.1")

	keyDir := t.TempDir()
	key1, key2 := filepath.Join(keyDir, "k1.jwk"), filepath.Join(keyDir, "k2.jwk")
	pub := map[string]string{}
	for kid, f := range map[string]string{"k1": key1, "k2": key2} {
		code, out, errs := svc(t, "dedi", "key", "create", "--kid", kid, "--out", f)
		if code != 0 {
			t.Fatal(errs)
		}
		pub[kid] = filepath.Join(keyDir, kid+".pub.json")
		if err := os.WriteFile(pub[kid], []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	export := func(key string, extra ...string) {
		t.Helper()
		var stdout, stderr strings.Builder
		args := append([]string{"--url", a.url, "--namespace", a.ns, "--key", key, "--base-url", "https://pub.test/dedi/",
			"--valid-for", "24h", "--out", filepath.Join(dir, "dedi")}, extra...)
		if err := exportWith(ctx, args, &stdout, &stderr, func() time.Time { return now }); err != nil {
			t.Fatalf("export: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		// The manifest goes to the domain's well-known path.
		if err := os.MkdirAll(filepath.Join(dir, ".well-known"), 0o755); err != nil {
			t.Fatal(err)
		}
		m := readFile(t, filepath.Join(dir, "dedi", ".well-known", "dedi.index.json"))
		if err := os.WriteFile(filepath.Join(dir, ".well-known", "dedi.index.json"), m, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	export(key1)

	// Instance B.
	st := storetest.Open(t, dialect)
	srv, err := server.NewServer(server.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	b := httptest.NewServer(srv.Echo())
	t.Cleanup(b.Close)
	bKey, _, err := st.CreateAPIKey(ctx, "someone@example.com")
	if err != nil {
		t.Fatal(err)
	}
	f := fetch.New(fetch.Options{Insecure: true, Port: port, Resolver: domainverify.NewDNSResolver(dns.Addr, 2*time.Second), Timeout: 5 * time.Second})
	crawler := ingest.New(ingest.Config{Store: st, Fetcher: f, Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }, CreatorDID: "did:web:b.test"})
	if _, err := st.AddDediPublisher(ctx, "pub.test"); err != nil {
		t.Fatal(err)
	}
	crawl := func(want string) ingest.Report {
		t.Helper()
		rep, err := crawler.Crawl(ctx, "pub.test")
		if err != nil || rep.Manifest != want {
			t.Fatalf("crawl: %+v, %v; want the manifest's outcome %s", rep, err, want)
		}
		return rep
	}
	rep := crawl("authentic")
	if rep.Files["keys"].State != store.OriginLive || rep.Files["retired"].State != store.OriginInactive {
		t.Fatalf("first crawl: %+v", rep.Files)
	}
	if d, state := details(t, b.URL, "pub.test/keys/a"); d["ü"] != "ß" || d["n"] != 1.5 || state != "live" {
		t.Fatalf("B's lookup of keys/a: %v %s", d, state)
	}

	// B refuses every write to the origin-hosted namespace.
	req, _ := http.NewRequest("POST", b.URL+"/svc/pub.test/keys/add-record", strings.NewReader(`{"record_name":"x","details":{"id":"x"}}`))
	req.Header.Set("Authorization", "Bearer "+bKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "hosted by its origin") {
		t.Fatalf("a write to the origin-hosted namespace: %d %s", resp.StatusCode, body)
	}

	// The relayed bytes are the published ones and verify.
	relayDir := t.TempDir()
	for name, path := range map[string]string{"manifest": "/svc/dedi/pub.test/manifest", "keys": "/svc/dedi/pub.test/keys"} {
		code, _, raw := getJSON(t, b.URL+path)
		if code != http.StatusOK {
			t.Fatalf("relay %s: %d %s", path, code, raw)
		}
		if err := os.WriteFile(filepath.Join(relayDir, name+".json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := readFile(t, filepath.Join(dir, "dedi", "dedi.keys.json")); string(want) != string(readFile(t, filepath.Join(relayDir, "keys.json"))) {
		t.Fatal("the relayed file is not the published bytes")
	}
	if code, out, errs := svc(t, "dedi", "verify", filepath.Join(relayDir, "keys.json"), "--manifest", filepath.Join(relayDir, "manifest.json"),
		"--at", now.Add(time.Hour).Format(time.RFC3339)); code != 0 || strings.TrimSpace(out) != "authentic" {
		t.Fatalf("the relayed file does not verify: %d %s %s", code, out, errs)
	}

	// A record changes: B gets a new version.
	a.call("POST", "/svc/"+a.ns+"/keys/b/update-record", `{"details":{"id":"b2"}}`)
	now = now.Add(time.Hour)
	export(key1)
	if rep = crawl("authentic"); rep.Files["keys"].NewVersions != 1 {
		t.Fatalf("change: %+v", rep.Files["keys"])
	}
	if d, _ := details(t, b.URL, "pub.test/keys/b"); d["id"] != "b2" {
		t.Fatalf("B's keys/b after the change: %v", d)
	}
	// A record is removed: its latest lookup on B answers 404.
	a.call("POST", "/svc/"+a.ns+"/keys/a/suspend-record", ``)
	now = now.Add(time.Hour)
	export(key1)
	crawl("authentic")
	if code, _, raw := getJSON(t, b.URL+"/svc/lookup/pub.test/keys/a"); code != http.StatusNotFound {
		t.Fatalf("a record removed from the file still answers its latest lookup: %d %s", code, raw)
	}
	// Its versions stay readable by version_id.
	vcode, vbody, vraw := getJSON(t, b.URL+"/svc/versions/pub.test/keys/a")
	if vcode != http.StatusOK {
		t.Fatalf("versions of the removed record: %d %s", vcode, vraw)
	}
	vs, _ := vbody["data"].(map[string]any)["versions"].([]any)
	if len(vs) < 2 {
		t.Fatalf("versions of the removed record: %s", vraw)
	}
	if d, _ := details(t, b.URL, "pub.test/keys/a?version_id="+vs[len(vs)-1].(string)); d["ü"] != "ß" {
		t.Fatalf("the first version of the removed record: %v", d)
	}
	// Rotation with an overlap: the manifest lists both keys; still live.
	now = now.Add(time.Hour)
	export(key2, "--extra-key", pub["k1"])
	if rep = crawl("authentic"); rep.Files["keys"].State != store.OriginLive {
		t.Fatalf("rotation: %+v", rep.Files["keys"])
	}
	// The old key removed while a file is still signed with it: that file is withdrawn.
	now = now.Add(time.Hour)
	export(key1, "--extra-key", pub["k2"])
	mPath := filepath.Join(dir, ".well-known", "dedi.index.json")
	m, err := dedi.ParseManifest(readFile(t, mPath), dedi.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	k2, err := dedi.ParsePrivateJWK(readFile(t, key2))
	if err != nil {
		t.Fatal(err)
	}
	m.Keys = []dedi.Key{k2.Public()}
	signed, err := dedi.SignManifest(m, k2)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mPath, signed, 0o644); err != nil {
		t.Fatal(err)
	}
	rep = crawl("authentic")
	if rep.Files["keys"].State != store.OriginWithdrawn || rep.Files["keys"].Outcome != "not_authenticated" {
		t.Fatalf("old key removed: %+v", rep.Files["keys"])
	}
	if d, _ := details(t, b.URL, "pub.test/keys/b"); d["id"] != "b2" {
		t.Fatal("a withdrawn file lost its data")
	}
	// Re-signed with the new key: live again.
	now = now.Add(time.Hour)
	export(key2)
	if rep = crawl("authentic"); rep.Files["keys"].State != store.OriginLive {
		t.Fatalf("re-signed: %+v", rep.Files["keys"])
	}
	// Dark past next_update: stale, the data still served.
	mu.Lock()
	dark = true
	mu.Unlock()
	now = now.Add(25 * time.Hour)
	crawl("unavailable_authority")
	if fs, _ := st.DediFile(ctx, "pub.test", "tiny"); fs.State != store.OriginStale {
		t.Fatalf("tiny after going dark: %s", fs.State)
	}
	if d, _ := details(t, b.URL, "pub.test/tiny/only"); d["x"] != true {
		t.Fatal("stale data is not served")
	}
	code, list, raw := getJSON(t, b.URL+"/svc/dedi/publishers")
	if code != http.StatusOK {
		t.Fatalf("publishers: %d %s", code, raw)
	}
	pubs := list["data"].([]any)
	p0 := pubs[0].(map[string]any)
	if len(pubs) != 1 || p0["domain"] != "pub.test" || p0["status"] != "failed" || p0["last_success"] == nil || p0["file_count"].(float64) != 4 {
		t.Fatalf("publishers: %s", raw)
	}
}
