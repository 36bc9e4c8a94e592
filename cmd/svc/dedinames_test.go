package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/client"
	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/domainverify/dnstest"
	genclient "github.com/svc-directory/svc/gen/client"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
)

// The hostile publisher's names (issue 42 §3, issue 39 §4), in a registry with a hostile name.
var (
	dediHostileRegistry = "<svg onload=alert(1)>"
	dediHostileNames    = []string{"<img src=x onerror=alert(1)>", "../../etc/passwd", "a/b?c#d", " spaced ", "ad\u202emin",
		"\u0430dmin", "admin", "100%", "100%41"}
)

// TestDediAnyNameEndToEnd: a publisher on loopback serves signed DeDi files whose names are
// the hostile file's; svc crawls them and serves each at its exact, percent-encoded address
// over HTTP: the lookup and versions (raw requests and the Go client), the registry's records,
// the search by name, the relay of the registry's file byte for byte, and the explorer's page.
// The look-alikes admin and аdmin are two records, each read as itself. Both dialects.
func TestDediAnyNameEndToEnd(t *testing.T) {
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) { dediAnyName(t, dialect) })
	}
}

func dediAnyName(t *testing.T, dialect string) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	docs := map[string][]byte{}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(origin.Close)
	_, p, _ := net.SplitHostPort(origin.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	dns := dnstest.Start(t)
	dns.SetAddrs("pub.test", "127.0.0.1")

	// The publisher: one registry of the hostile names, signed, listed by a signed manifest.
	key, err := dedi.GenerateKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	f := &dedi.File{SourceURL: "https://pub.test/dedi/hostile.json", Publisher: dedi.Publisher{Domain: "pub.test"}, Namespace: "pub.test",
		NextUpdate: now.Add(24 * time.Hour), Registry: dedi.Registry{Name: dediHostileRegistry, State: "live", UpdatedAt: now,
			Schema: map[string]any{"type": "object"}}}
	for i, n := range dediHostileNames {
		f.Records = append(f.Records, dedi.Record{Name: n, Details: map[string]any{"n": float64(i)}})
	}
	fileBytes, err := dedi.SignFile(f, key)
	if err != nil {
		t.Fatal(err)
	}
	docs["/dedi/hostile.json"] = fileBytes
	m := &dedi.Manifest{Domain: "pub.test", UpdatedAt: now, NextUpdate: now.Add(24 * time.Hour), Keys: []dedi.Key{key.Public()},
		Files: []dedi.Entry{{Registry: dediHostileRegistry, URL: f.SourceURL, Digest: dedi.Digest(fileBytes)}}}
	if docs[dedi.WellKnownPath], err = dedi.SignManifest(m, key); err != nil {
		t.Fatal(err)
	}

	// svc: crawl, then serve over HTTP on loopback.
	st := storetest.Open(t, dialect)
	fetcher := fetch.New(fetch.Options{Insecure: true, Port: port, Resolver: domainverify.NewDNSResolver(dns.Addr, 2*time.Second), Timeout: 5 * time.Second})
	crawler := ingest.New(ingest.Config{Store: st, Fetcher: fetcher, Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now }, CreatorDID: "did:web:b.test"})
	if _, err := st.AddDediPublisher(ctx, "pub.test"); err != nil {
		t.Fatal(err)
	}
	rep, err := crawler.Crawl(ctx, "pub.test")
	if err != nil || rep.Files[dediHostileRegistry].Outcome != "authentic" {
		t.Fatalf("crawl: %+v, %v", rep, err)
	}
	srv, err := server.NewServer(server.Config{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	b := httptest.NewServer(srv.Echo())
	t.Cleanup(b.Close)
	c, err := client.New(b.URL, "")
	if err != nil {
		t.Fatal(err)
	}

	get := func(path string) (int, []byte) {
		t.Helper()
		resp, err := http.Get(b.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	reg := url.PathEscape(dediHostileRegistry)
	if code, body := get("/svc/dedi/pub.test/" + reg); code != http.StatusOK || string(body) != string(fileBytes) {
		t.Fatalf("relay: %d, %d bytes (want the %d fetched)", code, len(body), len(fileBytes))
	}
	if res, err := c.GetDediFileWithResponse(ctx, "pub.test", dediHostileRegistry); err != nil || res.StatusCode() != http.StatusOK || string(res.Body) != string(fileBytes) {
		t.Fatalf("relay through the Go client: %v %v", err, res.Status())
	}
	for i, name := range dediHostileNames {
		code, body := get("/svc/lookup/pub.test/" + reg + "/" + url.PathEscape(name))
		if code != http.StatusOK || !strings.Contains(string(body), `"n":`+strconv.Itoa(i)+`}`) {
			t.Errorf("lookup of %q: %d %.300s", name, code, body)
		}
		res, err := c.LookupRecordWithResponse(ctx, "pub.test", dediHostileRegistry, name, nil)
		if err != nil || res.JSON200 == nil || res.JSON200.Data.RecordName != name || res.JSON200.Data.RegistryName != dediHostileRegistry ||
			res.JSON200.Data.Details["n"] != float64(i) {
			t.Errorf("Go client lookup of %q: %v %s", name, err, res.Body)
			continue
		}
		if err := client.VerifyLookupResponse("record", res); err != nil {
			t.Errorf("the lookup of %q does not verify: %v", name, err)
		}
		v, err := c.ListRecordVersionsWithResponse(ctx, "pub.test", dediHostileRegistry, name, nil)
		if err != nil || v.JSON200 == nil || v.JSON200.Data.RecordName != name || len(v.JSON200.Data.Versions) != 1 {
			t.Errorf("Go client versions of %q: %v %s", name, err, v.Body)
		}
		s, err := c.SearchRecordsWithResponse(ctx, "pub.test", &genclient.SearchRecordsParams{RecordName: &name})
		found := false
		if err == nil && s.JSON200 != nil {
			for _, r := range s.JSON200.Data {
				found = found || r.RecordName == name
				if r.RecordName != name && strings.Contains(name, "dmin") && strings.Contains(r.RecordName, "dmin") {
					t.Errorf("the search for %q found its look-alike %q", name, r.RecordName)
				}
			}
		}
		if !found {
			t.Errorf("the search for %q did not find it: %v %s", name, err, s.Body)
		}
		code, page := get("/explore/n/pub.test/" + reg + "/" + url.PathEscape(name))
		if code != http.StatusOK || strings.Contains(string(page), "<img") || strings.Contains(string(page), "<svg") {
			t.Errorf("the page of %q: %d", name, code)
		}
	}
	q, err := c.QueryRecordsWithResponse(ctx, "pub.test", dediHostileRegistry, nil)
	if err != nil || q.JSON200 == nil || len(q.JSON200.Data.Records) != len(dediHostileNames) {
		t.Fatalf("the registry's records: %v %s", err, q.Body)
	}
	if code, page := get("/explore/n/pub.test/" + reg); code != http.StatusOK || strings.Count(string(page), `class="flag flag-looks"`) != 2 {
		t.Errorf("the registry's page: %d, look-alikes flagged %d times", code, strings.Count(string(page), `class="flag flag-looks"`))
	}
}
