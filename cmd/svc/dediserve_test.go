package main

import (
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
	"github.com/svc-directory/svc/domainverify/dnstest"
)

// TestServeCrawlsDediPublishers: svc dedi crawl crawls once from the command line, and svc
// serve in the background, under the fetch rules' test switch; the server serves what was
// accepted.
func TestServeCrawlsDediPublishers(t *testing.T) {
	dir := localPublisher(t)
	t.Setenv("SVC_DEDI_CRAWL_INTERVAL", "1h")
	t.Setenv("SVC_DID_HOST", "127.0.0.1%3A18302") // the server's identity, whichever command crawls

	k, err := dedi.GenerateKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	f := &dedi.File{SourceURL: "https://pub.test/dedi.keys.json", NextUpdate: now.Add(time.Hour), Publisher: dedi.Publisher{Domain: "pub.test"},
		Namespace: "pub.test", Registry: dedi.Registry{Name: "keys", State: "live", UpdatedAt: now, Schema: map[string]any{"type": "object"}},
		Records: []dedi.Record{{Name: "a", Details: map[string]any{"id": "served"}}}}
	fb, err := dedi.SignFile(f, k)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := dedi.SignManifest(&dedi.Manifest{Domain: "pub.test", Keys: []dedi.Key{k.Public()}, UpdatedAt: now, NextUpdate: now.Add(time.Hour),
		Files: []dedi.Entry{{Registry: "keys", URL: f.SourceURL, Digest: dedi.Digest(fb)}}}, k)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.MkdirAll(filepath.Join(dir, ".well-known"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "dedi.keys.json"), fb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".well-known", "dedi.index.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}

	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "svc.db")
	if code, out, errs := svc(t, "dedi", "publisher", "add", "--database-url", dbURL, "pub.test"); code != 0 {
		t.Fatalf("publisher add: %s %s", out, errs)
	}
	// Once from the command line, before the server is up.
	code, out, errs := svc(t, "dedi", "crawl", "--database-url", dbURL)
	if code != 0 || !strings.Contains(out, "pub.test ok authentic requests=2 new_versions=2") || !strings.Contains(out, "keys authentic state=live") {
		t.Fatalf("svc dedi crawl: %d %q %q", code, out, errs)
	}
	// The file gains a record, which svc serve indexes.
	f.Records = append(f.Records, dedi.Record{Name: "b", Details: map[string]any{"id": "by serve"}})
	if fb, err = dedi.SignFile(f, k); err != nil {
		t.Fatal(err)
	}
	if mb, err = dedi.SignManifest(&dedi.Manifest{Domain: "pub.test", Keys: []dedi.Key{k.Public()}, UpdatedAt: now, NextUpdate: now.Add(time.Hour),
		Files: []dedi.Entry{{Registry: "keys", URL: f.SourceURL, Digest: dedi.Digest(fb)}}}, k); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dedi.keys.json"), fb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".well-known", "dedi.index.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	// Removed and added again, the publisher is due now: the server crawls it in the background.
	for _, verb := range []string{"remove", "add"} {
		if code, out, errs := svc(t, "dedi", "publisher", verb, "--database-url", dbURL, "pub.test"); code != 0 {
			t.Fatalf("publisher %s: %s %s", verb, out, errs)
		}
	}
	srv := startServe(t, dbURL)
	waitServing(t, srv)
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, list, _ := getJSON(t, srv.base+"/svc/dedi/publishers")
		if p := list["data"].([]any)[0].(map[string]any); p["status"] == "ok" && p["file_count"] == 1.0 && p["last_success"] != nil {
			if code, _, _ := getJSON(t, srv.base+"/svc/lookup/pub.test/keys/b"); code == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("svc serve did not crawl pub.test:\n%s", srv.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, body, _ := getJSON(t, srv.base+"/svc/lookup/pub.test/keys/a")
	if d, _ := body["data"].(map[string]any)["details"].(map[string]any); code != http.StatusOK || d["id"] != "served" {
		t.Fatalf("lookup: %d %v", code, body)
	}
	// Indexed by svc dedi crawl (a) and by svc serve (b): both name the configured identity.
	for _, name := range []string{"a", "b"} {
		_, body, _ := getJSON(t, srv.base+"/svc/lookup/pub.test/keys/"+name)
		if p, _ := body["data"].(map[string]any)["proof"].(map[string]any); p["creator_did"] != "did:web:127.0.0.1%3A18302" {
			t.Errorf("record %s: creator %v", name, p["creator_did"])
		}
	}
	if code, _, raw := getJSON(t, srv.base+"/svc/dedi/pub.test/keys"); code != http.StatusOK || string(raw) != string(fb) {
		t.Fatalf("relay: %d", code)
	}
	_, list, raw := getJSON(t, srv.base+"/svc/dedi/publishers")
	if p := list["data"].([]any)[0].(map[string]any); p["status"] != "ok" || !strings.HasPrefix(p["next_crawl"].(string), strconv.Itoa(now.Year())) {
		t.Fatalf("publishers: %s", raw)
	}
}

// localPublisher serves a new folder as the publisher pub.test on loopback, for the commands the
// test runs: the test DNS server names 127.0.0.1 for pub.test, and the fetch rules' test switch
// sends its HTTPS fetches to the folder's HTTP server. It returns the folder.
func localPublisher(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var mu sync.Mutex
	dark := false
	origin := httptest.NewServer(staticDir(dir, &dark, &mu))
	t.Cleanup(origin.Close)
	_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
	dns := dnstest.Start(t)
	dns.SetAddrs("pub.test", "127.0.0.1")
	t.Setenv("SVC_VERIFY_INSECURE", "true")
	t.Setenv("SVC_VERIFY_HTTP_PORT", port)
	t.Setenv("SVC_DNS_SERVER", dns.Addr)
	return dir
}
