package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/domainverify/dnstest"
)

// TestDediVerifyFetchDigests: svc dedi verify --fetch fetches the digests document the
// manifest names; when the file does not have the digest it lists (the publisher updated
// between the two fetches), it fetches the document once more before it refuses.
func TestDediVerifyFetchDigests(t *testing.T) {
	k := dediKey("key-1")
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	f := dedi.File{SourceURL: "https://pub.test/dedi/dedi.keys.json", NextUpdate: at("2026-09-01T00:00:00Z"),
		Publisher: dedi.Publisher{Domain: "pub.test"}, Namespace: "pub.test",
		Registry: dedi.Registry{Name: "keys", State: "live", UpdatedAt: at("2026-08-20T00:00:00Z"), Schema: map[string]any{"type": "object"}},
		Records:  []dedi.Record{{Name: "a", Details: map[string]any{"id": "a"}}}}
	oldFile, err := dedi.SignFile(&f, k)
	if err != nil {
		t.Fatal(err)
	}
	f.Records[0].Details["n"] = 2.0
	f.Registry.UpdatedAt = at("2026-08-21T00:00:00Z")
	newFile, err := dedi.SignFile(&f, k)
	if err != nil {
		t.Fatal(err)
	}
	digestsOf := func(file []byte, updated string) []byte {
		b, err := dedi.SignDigests(&dedi.Digests{Domain: "pub.test", UpdatedAt: at(updated), NextUpdate: at("2026-08-25T00:00:00Z"),
			Digests: map[string]string{"keys": dedi.Digest(file)}}, k)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	oldDigests, newDigests := digestsOf(oldFile, "2026-08-20T00:00:00Z"), digestsOf(newFile, "2026-08-21T00:00:00Z")
	manifest, err := dedi.SignManifest(&dedi.Manifest{Domain: "pub.test", Keys: []dedi.Key{k.Public()}, UpdatedAt: at("2026-08-20T00:00:00Z"),
		NextUpdate: at("2026-09-01T00:00:00Z"), DigestsURL: "https://pub.test" + dedi.DigestsPath,
		Files: []dedi.Entry{{Registry: "keys", URL: f.SourceURL}}}, k)
	if err != nil {
		t.Fatal(err)
	}
	var digestsServed atomic.Int64
	var stuck atomic.Bool // the digests document never moves on
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case dedi.WellKnownPath:
			_, _ = w.Write(manifest)
		case dedi.DigestsPath:
			if digestsServed.Add(1) == 1 || stuck.Load() {
				_, _ = w.Write(oldDigests)
				return
			}
			_, _ = w.Write(newDigests)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	d := dnstest.Start(t)
	d.SetAddrs("pub.test", "127.0.0.1")
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	t.Setenv("SVC_DNS_SERVER", d.Addr)
	t.Setenv("SVC_VERIFY_INSECURE", "true")
	t.Setenv("SVC_VERIFY_HTTP_PORT", port)
	fp := filepath.Join(t.TempDir(), "file.json")
	if err := os.WriteFile(fp, newFile, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := svc(t, "dedi", "verify", fp, "--fetch", "--at", "2026-08-22T00:00:00Z")
	if code != 0 || strings.TrimSpace(out) != "authentic" || digestsServed.Load() != 2 || !strings.Contains(errs, "as the digests document lists") {
		t.Fatalf("exit %d %q %s; the digests document fetched %d times", code, out, errs, digestsServed.Load())
	}
	stuck.Store(true)
	digestsServed.Store(0)
	code, out, _ = svc(t, "dedi", "verify", fp, "--fetch", "--at", "2026-08-22T00:00:00Z")
	if code != 1 || strings.TrimSpace(out) != "digest_mismatch" || digestsServed.Load() != 2 {
		t.Fatalf("a file the digests document does not list: exit %d %q, fetched %d times", code, out, digestsServed.Load())
	}
}
