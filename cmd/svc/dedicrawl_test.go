package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
)

// TestDediCrawlOneBadFile: svc dedi crawl does not exit 1 for one file the directory refuses
// (a record of 70,000 bytes of details): that file is invalid, with the record named; the
// file listed after it is indexed; the publisher reads failed.
func TestDediCrawlOneBadFile(t *testing.T) {
	dir := localPublisher(t)

	k, err := dedi.GenerateKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	m := &dedi.Manifest{Domain: "pub.test", Keys: []dedi.Key{k.Public()}, UpdatedAt: now, NextUpdate: now.Add(time.Hour)}
	for _, r := range []struct{ registry, details string }{{"big", strings.Repeat("x", 70000)}, {"after", "fine"}} {
		f := &dedi.File{SourceURL: "https://pub.test/dedi." + r.registry + ".json", NextUpdate: now.Add(time.Hour), Publisher: dedi.Publisher{Domain: "pub.test"},
			Namespace: "pub.test", Registry: dedi.Registry{Name: r.registry, State: "live", UpdatedAt: now, Schema: map[string]any{"type": "object"}},
			Records: []dedi.Record{{Name: "r1", Details: map[string]any{"v": r.details}}}}
		b, err := dedi.SignFile(f, k)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "dedi."+r.registry+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		m.Files = append(m.Files, dedi.Entry{Registry: r.registry, URL: f.SourceURL, Digest: dedi.Digest(b)})
	}
	mb, err := dedi.SignManifest(m, k)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.MkdirAll(filepath.Join(dir, ".well-known"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".well-known", "dedi.index.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "svc.db")
	if code, out, errs := svc(t, "dedi", "publisher", "add", "--database-url", dbURL, "pub.test"); code != 0 {
		t.Fatalf("publisher add: %s %s", out, errs)
	}
	code, out, errs := svc(t, "dedi", "crawl", "--database-url", dbURL)
	if code != 0 || !strings.Contains(out, "pub.test failed invalid requests=3") || !strings.Contains(out, "after authentic state=live new_versions=") ||
		!strings.Contains(out, "big invalid state= new_versions=0") || !strings.Contains(out, "(r1): details are") {
		t.Fatalf("svc dedi crawl: %d %q %q", code, out, errs)
	}
}
