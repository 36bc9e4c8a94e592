package fetch

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/domainverify/dnstest"
)

// origin is a real HTTP server on loopback, reached by name through a real DNS server on
// loopback, under the test switch (http to its port).
type origin struct {
	srv  *httptest.Server
	dns  *dnstest.Server
	port int
	mux  *http.ServeMux
	stop chan struct{} // closed at the end: releases hanging handlers
}

func newOrigin(t *testing.T, names ...string) *origin {
	t.Helper()
	o := &origin{mux: http.NewServeMux(), stop: make(chan struct{}), dns: dnstest.Start(t)}
	o.srv = httptest.NewServer(o.mux)
	t.Cleanup(func() { close(o.stop); o.srv.Close() })
	_, p, _ := net.SplitHostPort(o.srv.Listener.Addr().String())
	o.port, _ = strconv.Atoi(p)
	for _, n := range names {
		o.dns.SetAddrs(n, "127.0.0.1")
	}
	return o
}

func (o *origin) fetcher(mod func(*Options)) *Fetcher {
	opts := Options{Insecure: true, Port: o.port, Resolver: domainverify.NewDNSResolver(o.dns.Addr, 2*time.Second), Timeout: 5 * time.Second}
	if mod != nil {
		mod(&opts)
	}
	return New(opts)
}

func TestFetchOverTheTestSwitch(t *testing.T) {
	o := newOrigin(t, "pub.test")
	var conditional atomic.Int32
	o.mux.HandleFunc("/dedi/a.json", func(w http.ResponseWriter, r *http.Request) {
		if r.Host != "pub.test:"+strconv.Itoa(o.port) {
			http.Error(w, "host "+r.Host, 400)
			return
		}
		if r.Header.Get("If-None-Match") == `"v1"` {
			conditional.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT")
		fmt.Fprint(w, `{"a":1}`)
	})
	o.mux.HandleFunc("/lm.json", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-Modified-Since") == "Wed, 21 Oct 2026 07:28:00 GMT" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT")
		fmt.Fprint(w, `{}`)
	})
	f := o.fetcher(nil)
	ctx := context.Background()
	res, err := f.File(ctx, "https://pub.test/dedi/a.json", "", "")
	if err != nil || string(res.Body) != `{"a":1}` || res.ETag != `"v1"` || res.NotModified || res.URL != "https://pub.test/dedi/a.json" {
		t.Fatalf("%+v %v", res, err)
	}
	again, err := f.File(ctx, res.URL, res.ETag, res.LastModified)
	if err != nil || !again.NotModified || again.Body != nil || conditional.Load() != 1 {
		t.Fatalf("conditional GET: %+v %v (conditional requests %d)", again, err, conditional.Load())
	}
	first, _ := f.File(ctx, "https://pub.test/lm.json", "", "")
	again, err = f.File(ctx, "https://pub.test/lm.json", "", first.LastModified)
	if err != nil || !again.NotModified {
		t.Fatalf("If-Modified-Since: %+v %v", again, err)
	}
	if _, err := f.File(ctx, "https://pub.test/missing.json", "", ""); !errors.Is(err, ErrStatus) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("404: %v", err)
	}
	if _, err := f.File(ctx, "https://unknown.test/a.json", "", ""); err == nil || !strings.Contains(err.Error(), "unknown.test") {
		t.Fatalf("a name the DNS server does not know: %v", err)
	}
}

func TestFetchRefusesNonHTTPS(t *testing.T) {
	o := newOrigin(t, "pub.test")
	o.mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://pub.test/x", http.StatusFound)
	})
	o.mux.HandleFunc("/to-other-port", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://pub.test:1/x", http.StatusFound)
	})
	for _, insecure := range []bool{true, false} {
		f := o.fetcher(func(opt *Options) { opt.Insecure = insecure })
		for _, u := range []string{"http://pub.test/a.json", "ftp://pub.test/a.json", "pub.test/a.json", "//pub.test/a"} {
			if _, err := f.File(context.Background(), u, "", ""); err == nil {
				t.Errorf("insecure=%v: %s was fetched", insecure, u)
			}
		}
	}
	f := o.fetcher(nil)
	if _, err := f.File(context.Background(), "https://pub.test/to-ftp", "", ""); !errors.Is(err, ErrNotHTTPS) {
		t.Fatalf("redirect to ftp: %v", err)
	}
	if _, err := f.File(context.Background(), "https://pub.test/to-other-port", "", ""); !errors.Is(err, ErrNotHTTPS) {
		t.Fatalf("redirect to plain http on another port: %v", err)
	}
	if _, err := f.File(context.Background(), "https://pub.test:8443/x", "", ""); err == nil || !strings.Contains(err.Error(), "port 8443") {
		t.Fatalf("another port: %v", err)
	}
	if _, err := f.File(context.Background(), "https://user:pw@pub.test/a", "", ""); err == nil {
		t.Fatal("credentials in the URL")
	}
}

func TestFetchRedirects(t *testing.T) {
	o := newOrigin(t, "pub.test", "cdn.test")
	o.mux.HandleFunc("/loop/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/b", http.StatusFound) })
	o.mux.HandleFunc("/loop/b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/a", http.StatusFound) })
	o.mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://cdn.test/final.json", http.StatusMovedPermanently)
	})
	o.mux.HandleFunc("/final.json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.Host) })
	f := o.fetcher(nil)
	if _, err := f.File(context.Background(), "https://pub.test/loop/a", "", ""); !errors.Is(err, ErrTooManyRedirects) {
		t.Fatalf("redirect loop: %v", err)
	}
	res, err := f.File(context.Background(), "https://pub.test/moved", "", "")
	if err != nil || res.URL != "https://cdn.test/final.json" || !strings.HasPrefix(string(res.Body), "cdn.test:") {
		t.Fatalf("redirect to another host: %+v %v", res, err)
	}
}

func TestFetchCaps(t *testing.T) {
	o := newOrigin(t, "pub.test")
	stream := func(n int64, length bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if length {
				w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
			}
			chunk := bytes.Repeat([]byte(" "), 1<<20)
			for sent := int64(0); sent < n; sent += int64(len(chunk)) {
				if _, err := w.Write(chunk[:min(int64(len(chunk)), n-sent)]); err != nil {
					return
				}
			}
		}
	}
	o.mux.Handle("/big.json", stream(65<<20, false))
	o.mux.Handle("/big-declared.json", stream(65<<20, true))
	o.mux.Handle("/1m.json", stream(1<<20, false))
	o.mux.Handle("/1m1.json", stream(1<<20+1, false))
	o.mux.Handle("/.well-known/dedi.index.json", stream(2<<20, false))
	f := o.fetcher(func(opt *Options) { opt.Timeout = time.Minute })
	ctx := context.Background()
	for _, u := range []string{"https://pub.test/big.json", "https://pub.test/big-declared.json"} {
		if _, err := f.File(ctx, u, "", ""); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("65 MiB file %s: %v", u, err)
		}
	}
	if _, err := f.Manifest(ctx, "pub.test", "", ""); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("2 MiB manifest: %v", err)
	}
	small := o.fetcher(func(opt *Options) { opt.MaxFileBytes = 1 << 20 })
	if res, err := small.File(ctx, "https://pub.test/1m.json", "", ""); err != nil || len(res.Body) != 1<<20 {
		t.Fatalf("a file of exactly the configured cap: %d %v", len(res.Body), err)
	}
	if _, err := small.File(ctx, "https://pub.test/1m1.json", "", ""); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a byte over the configured cap: %v", err)
	}
}

func TestFetchSlowOrigins(t *testing.T) {
	o := newOrigin(t, "pub.test")
	o.mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-o.stop:
		case <-r.Context().Done():
		}
	})
	o.mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		for i := 0; i < 1000; i++ {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-o.stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	f := o.fetcher(func(opt *Options) { opt.Timeout = 800 * time.Millisecond; opt.HeaderTimeout = 400 * time.Millisecond })
	for _, path := range []string{"/hang", "/trickle"} {
		start := time.Now()
		_, err := f.File(context.Background(), "https://pub.test"+path, "", "")
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("%s: %v", path, err)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Fatalf("%s took %v", path, took)
		}
	}
}

// TestFetchSecure: without the test switch, names that resolve to loopback, private or
// link-local addresses are refused before any connection, and a permitted address is reached
// over verified TLS.
func TestFetchSecure(t *testing.T) {
	d := dnstest.Start(t)
	var dialled atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "tls") }))
	srv.Config.ConnState = func(net.Conn, http.ConnState) { dialled.Add(1) }
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	port, _ := strconv.Atoi(p)
	resolver := domainverify.NewDNSResolver(d.Addr, 2*time.Second)
	for name, addr := range map[string]string{"loop.test": "127.0.0.1", "private.test": "10.0.0.1", "link.test": "169.254.169.254", "v6.test": "::1"} {
		d.SetAddrs(name, addr)
		f := New(Options{Resolver: resolver, Port: port, Timeout: 2 * time.Second})
		if _, err := f.File(context.Background(), "https://"+name+"/a.json", "", ""); !errors.Is(err, ErrNonPublicAddress) {
			t.Fatalf("%s (%s): %v", name, addr, err)
		}
	}
	if dialled.Load() != 0 {
		t.Fatalf("%d connections to refused addresses", dialled.Load())
	}
	// example.com is a name of httptest's certificate; the test lets 127.0.0.1 stand for a
	// public address.
	d.SetAddrs("example.com", "127.0.0.1")
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	allow := func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") }
	f := New(Options{Resolver: resolver, Port: port, Timeout: 2 * time.Second, AllowAddr: allow, RootCAs: pool})
	res, err := f.File(context.Background(), "https://example.com/a.json", "", "")
	if err != nil || string(res.Body) != "tls" {
		t.Fatalf("TLS fetch: %+v %v", res, err)
	}
	unverified := New(Options{Resolver: resolver, Port: port, Timeout: 2 * time.Second, AllowAddr: allow})
	if _, err := unverified.File(context.Background(), "https://example.com/a.json", "", ""); err == nil {
		t.Fatal("a certificate from an unknown authority was accepted")
	}
}
