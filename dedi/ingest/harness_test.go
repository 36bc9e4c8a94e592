package ingest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/domainverify/dnstest"
	"github.com/svc-directory/svc/store"
)

// clock is the tests' injected time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// origin is a static HTTP server on loopback serving documents by path, with ETags, reached
// by name through the loopback DNS server under the test switch.
type origin struct {
	srv      *httptest.Server
	dns      *dnstest.Server
	port     int
	mu       sync.Mutex
	docs     map[string][]byte // by host + path
	handlers map[string]http.HandlerFunc
	requests atomic.Int64
	notMod   atomic.Int64
	byPath   sync.Map // host+path → *atomic.Int64
}

func newOrigin(t *testing.T) *origin {
	t.Helper()
	o := &origin{dns: dnstest.Start(t), docs: map[string][]byte{}, handlers: map[string]http.HandlerFunc{}}
	o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.srv.Close)
	_, p, _ := net.SplitHostPort(o.srv.Listener.Addr().String())
	o.port, _ = strconv.Atoi(p)
	return o
}

func (o *origin) serve(w http.ResponseWriter, r *http.Request) {
	o.requests.Add(1)
	host, _, _ := net.SplitHostPort(r.Host)
	n, _ := o.byPath.LoadOrStore(host+r.URL.Path, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	o.mu.Lock()
	b, ok := o.docs[host+r.URL.Path]
	h := o.handlers[host+r.URL.Path]
	o.mu.Unlock()
	if h != nil {
		h(w, r)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	sum := sha256.Sum256(b)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	if r.Header.Get("If-None-Match") == etag {
		o.notMod.Add(1)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	_, _ = w.Write(b)
}

func (o *origin) put(host, path string, b []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs[host+path] = b
}

func (o *origin) handle(host, path string, h http.HandlerFunc) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.handlers[host+path] = h
}

func (o *origin) dark(host string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k := range o.docs {
		if len(k) > len(host) && k[:len(host)] == host && k[len(host)] == '/' {
			delete(o.docs, k)
		}
	}
}

func (o *origin) fetcher(mod func(*fetch.Options)) *fetch.Fetcher {
	opts := fetch.Options{Insecure: true, Port: o.port, Resolver: domainverify.NewDNSResolver(o.dns.Addr, 2*time.Second), Timeout: 3 * time.Second, HeaderTimeout: 2 * time.Second}
	if mod != nil {
		mod(&opts)
	}
	return fetch.New(opts)
}

// publisher is a DeDi publisher at domain: its keys, registries and records, which publish
// signs and puts on the origin.
type publisher struct {
	domain   string
	keys     []dedi.PrivateKey // listed by the manifest
	signer   dedi.PrivateKey   // signs the manifest
	fileKey  dedi.PrivateKey   // signs the files
	files    map[string]*dedi.File
	order    []string
	updated  time.Time
	validFor time.Duration
	o        *origin
}

func newPublisher(t *testing.T, o *origin, domain string, now time.Time) *publisher {
	t.Helper()
	k, err := dedi.GenerateKey("key-1")
	if err != nil {
		t.Fatal(err)
	}
	o.dns.SetAddrs(domain, "127.0.0.1")
	return &publisher{domain: domain, keys: []dedi.PrivateKey{k}, signer: k, fileKey: k, files: map[string]*dedi.File{}, updated: now,
		validFor: 24 * time.Hour, o: o}
}

func (p *publisher) registry(name string, recs ...dedi.Record) *dedi.File {
	f := &dedi.File{SourceURL: "https://" + p.domain + "/dedi/dedi." + name + ".json", Publisher: dedi.Publisher{Domain: p.domain},
		Namespace: p.domain, Registry: dedi.Registry{Name: name, State: "live",
			Schema: map[string]any{"type": "object", "required": []any{"id"}}}, Records: recs}
	p.files[name] = f
	p.order = append(p.order, name)
	return f
}

func rec(name string, details map[string]any) dedi.Record {
	return dedi.Record{Name: name, Details: details}
}

// publish signs every file (updated_at now) and the manifest, and serves them.
func (p *publisher) publish(t *testing.T, now time.Time) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	m := &dedi.Manifest{Domain: p.domain, UpdatedAt: now, NextUpdate: now.Add(p.validFor)}
	for _, k := range p.keys {
		m.Keys = append(m.Keys, k.Public())
	}
	for _, name := range p.order {
		f := p.files[name]
		f.Registry.UpdatedAt, f.NextUpdate = now, now.Add(p.validFor)
		b, err := dedi.SignFile(f, p.fileKey)
		if err != nil {
			t.Fatal(err)
		}
		p.o.put(p.domain, "/dedi/dedi."+name+".json", b)
		out[name] = b
		m.Files = append(m.Files, dedi.Entry{Registry: name, URL: f.SourceURL, Digest: dedi.Digest(b)})
	}
	b, err := dedi.SignManifest(m, p.signer)
	if err != nil {
		t.Fatal(err)
	}
	p.o.put(p.domain, dedi.WellKnownPath, b)
	out["manifest"] = b
	return out
}

func newService(s *store.Store, o *origin, c *clock) *ingest.Service {
	return newServiceWith(s, o, c, nil)
}

func newServiceWith(s *store.Store, o *origin, c *clock, mod func(*fetch.Options)) *ingest.Service {
	return ingest.New(ingest.Config{Store: s, Fetcher: o.fetcher(mod), Now: c.Now, Logger: slog.New(slog.DiscardHandler), Interval: time.Hour, CreatorDID: testDID})
}

func mustCrawl(t *testing.T, svc *ingest.Service, domain string) ingest.Report {
	t.Helper()
	rep, err := svc.Crawl(t.Context(), domain)
	if err != nil {
		t.Fatalf("crawl %s: %v", domain, err)
	}
	return rep
}

func fileState(t *testing.T, s *store.Store, domain, registry string) store.DediFile {
	t.Helper()
	f, err := s.DediFile(t.Context(), domain, registry)
	if err != nil {
		t.Fatalf("file %s/%s: %v", domain, registry, err)
	}
	return f
}

func describe(rep ingest.Report) string { return fmt.Sprintf("%+v", rep) }

// count is how many requests host+path got.
func (o *origin) count(hostPath string) int64 {
	n, ok := o.byPath.Load(hostPath)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

// testDID is the server's DID in these tests.
const testDID = "did:web:svc.test"
