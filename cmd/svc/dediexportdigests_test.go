package main

import (
	"bytes"
	"context"
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

// TestDediExportDigests: svc dedi export --digests writes a digests document the manifest
// names; exported again after a record changed, the manifest and the unchanged files keep
// their bytes, the digests document and the changed file do not, and a crawling instance (on
// each dialect) follows the change, relays the digests document byte for byte, and its relayed
// bytes verify with svc dedi verify --digests. A registry whose schema is a core schema is
// exported naming the pinned URL, and verifies offline.
func TestDediExportDigests(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) { exportDigests(t, dialect) })
	}
}

func exportDigests(t *testing.T, dialect string) {
	ctx := context.Background()
	a := newExportService(t)
	revoke := string(coreSchema(t, "Revoke").Text())
	a.call("POST", "/svc/"+a.ns+"/create-registry", `{"registry_name":"revs","schema":`+revoke+`}`)
	a.call("POST", "/svc/"+a.ns+"/revs/add-record", `{"record_name":"r1","details":{"revoked_id":"cred-1","reason":"lost"}}`)

	dir := t.TempDir()
	var mu sync.Mutex
	dark := false
	origin := httptest.NewServer(staticDir(dir, &dark, &mu))
	t.Cleanup(origin.Close)
	_, p, _ := net.SplitHostPort(origin.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	dns := dnstest.Start(t)
	dns.SetAddrs("pub.test", "127.0.0.1")
	keyFile := filepath.Join(t.TempDir(), "k1.jwk")
	if code, _, errs := svc(t, "dedi", "key", "create", "--kid", "k1", "--out", keyFile); code != 0 {
		t.Fatal(errs)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	out := filepath.Join(dir, "dedi")
	export := func() {
		t.Helper()
		var stdout, stderr strings.Builder
		args := []string{"--url", a.url, "--namespace", a.ns, "--key", keyFile, "--base-url", "https://pub.test/dedi/",
			"--valid-for", "24h", "--manifest-valid-for", "720h", "--digests", "--out", out}
		if err := exportWith(ctx, args, &stdout, &stderr, func() time.Time { return now }); err != nil {
			t.Fatalf("export: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		if err := os.MkdirAll(filepath.Join(dir, ".well-known"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".well-known", "dedi.index.json"), readFile(t, filepath.Join(out, ".well-known", "dedi.index.json")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	export()
	manifest1, digests1 := readFile(t, filepath.Join(out, ".well-known", "dedi.index.json")), readFile(t, filepath.Join(out, "dedi.digests.json"))
	tiny1, keys1 := readFile(t, filepath.Join(out, "dedi.tiny.json")), readFile(t, filepath.Join(out, "dedi.keys.json"))
	m, err := dedi.ParseManifest(manifest1, dedi.Limits{})
	if err != nil || m.DigestsURL != "https://pub.test/dedi/dedi.digests.json" || m.Entry("keys").Digest != "" {
		t.Fatalf("the manifest: %+v, %v", m, err)
	}
	if f := parsedFile(t, filepath.Join(out, "dedi.revs.json")); f.Registry.SchemaURL != coreSchema(t, "Revoke").URL() {
		t.Fatalf("the core schema is not named by its pinned URL: %v", f.Registry.Schema)
	}
	at := now.Add(time.Hour).Format(time.RFC3339)
	for _, reg := range []string{"keys", "revs"} {
		if code, o, errs := svc(t, "dedi", "verify", filepath.Join(out, "dedi."+reg+".json"), "--manifest", filepath.Join(out, ".well-known", "dedi.index.json"),
			"--digests", filepath.Join(out, "dedi.digests.json"), "--at", at); code != 0 || strings.TrimSpace(o) != "authentic" || !strings.Contains(errs, "as the digests document lists") {
			t.Fatalf("verify %s offline: %d %s %s", reg, code, o, errs)
		}
	}
	if code, o, _ := svc(t, "dedi", "verify", filepath.Join(out, "dedi.keys.json"), "--manifest", filepath.Join(out, ".well-known", "dedi.index.json"),
		"--at", at); code != 1 || strings.TrimSpace(o) != "digests_unavailable" {
		t.Fatalf("verify without the digests document the manifest names: %d %s", code, o)
	}

	// The crawling instance.
	st := storetest.Open(t, dialect)
	srv, err := server.NewServer(server.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	b := httptest.NewServer(srv.Echo())
	t.Cleanup(b.Close)
	f := fetch.New(fetch.Options{Insecure: true, Port: port, Resolver: domainverify.NewDNSResolver(dns.Addr, 2*time.Second), Timeout: 5 * time.Second})
	crawler := ingest.New(ingest.Config{Store: st, Fetcher: f, Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }, CreatorDID: "did:web:b.test"})
	if _, err := st.AddDediPublisher(ctx, "pub.test"); err != nil {
		t.Fatal(err)
	}
	rep, err := crawler.Crawl(ctx, "pub.test")
	if err != nil || rep.Status != store.DediOK || rep.Digests != "authentic" {
		t.Fatalf("first crawl: %+v, %v", rep, err)
	}
	if code, _, raw := getJSON(t, b.URL+"/svc/dedi/pub.test/digests"); code != http.StatusOK || !bytes.Equal(raw, digests1) {
		t.Fatalf("the relayed digests document: %d %s", code, raw)
	}
	code, body, raw := getJSON(t, b.URL+"/svc/revoke/get-registry-by-tag")
	if regs, _ := body["data"].(map[string]any)["registries"].([]any); code != http.StatusOK || len(regs) != 1 {
		t.Fatalf("the core-schema registry as tag revoke: %d %s", code, raw)
	}

	// A record changes: the manifest keeps its bytes, and so does an unchanged file.
	a.call("POST", "/svc/"+a.ns+"/keys/b/update-record", `{"details":{"id":"b2"}}`)
	now = now.Add(time.Hour)
	export()
	if !bytes.Equal(readFile(t, filepath.Join(out, ".well-known", "dedi.index.json")), manifest1) {
		t.Fatal("the manifest changed with the content")
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, "dedi.tiny.json")), tiny1) {
		t.Fatal("an unchanged file was re-signed")
	}
	if bytes.Equal(readFile(t, filepath.Join(out, "dedi.digests.json")), digests1) || bytes.Equal(readFile(t, filepath.Join(out, "dedi.keys.json")), keys1) {
		t.Fatal("the digests document or the changed file kept its bytes")
	}
	rep, err = crawler.Crawl(ctx, "pub.test")
	if err != nil || rep.Status != store.DediOK || rep.Files["keys"].NewVersions != 1 || rep.Files["tiny"].NewVersions != 0 {
		t.Fatalf("the crawl after the change: %+v, %v", rep, err)
	}
	if d, _ := details(t, b.URL, "pub.test/keys/b"); d["id"] != "b2" {
		t.Fatalf("B did not follow: %v", d)
	}
	relayDir := t.TempDir()
	for name, path := range map[string]string{"manifest": "/svc/dedi/pub.test/manifest", "keys": "/svc/dedi/pub.test/keys", "digests": "/svc/dedi/pub.test/digests"} {
		code, _, raw := getJSON(t, b.URL+path)
		if code != http.StatusOK {
			t.Fatalf("relay %s: %d %s", path, code, raw)
		}
		if err := os.WriteFile(filepath.Join(relayDir, name+".json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, o, errs := svc(t, "dedi", "verify", filepath.Join(relayDir, "keys.json"), "--manifest", filepath.Join(relayDir, "manifest.json"),
		"--digests", filepath.Join(relayDir, "digests.json"), "--at", now.Add(time.Hour).Format(time.RFC3339)); code != 0 || strings.TrimSpace(o) != "authentic" {
		t.Fatalf("the relayed file does not verify: %d %s %s", code, o, errs)
	}
}

func coreSchema(t *testing.T, name string) *dedi.CoreSchema {
	t.Helper()
	for _, c := range dedi.CoreSchemas {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no core schema %s", name)
	return nil
}
