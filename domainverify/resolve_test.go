package domainverify_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/domainverify/dnstest"
)

func portOf(t *testing.T, raw string) int {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The checker svc serve builds resolves the HTTP fetch's hosts (A/AAAA) through the configured
// DNS server, as it does the TXT records: names only that server knows are fetched, and a name
// it says does not exist is not, whatever the system resolver says.
func TestCheckerResolvesEveryNameThroughTheConfiguredServer(t *testing.T) {
	const value = "svc-verification=tok"
	srv := dnstest.Start(t)
	var web *httptest.Server
	web = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		switch {
		case host == "hop.svc-test" && r.URL.Path == domainverify.WellKnownPath:
			// Redirect to another name on the same port: it is resolved through the server too.
			http.Redirect(w, r, "http://"+net.JoinHostPort("site.svc-test", strconv.Itoa(portOf(t, web.URL)))+domainverify.WellKnownPath, http.StatusFound)
		case host == "site.svc-test" || host == "six.svc-test":
			fmt.Fprint(w, value+"\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer web.Close()
	c := domainverify.NewChecker(domainverify.Config{DNSServer: srv.Addr, DNSTimeout: 300 * time.Millisecond,
		HTTPPort: portOf(t, web.URL), Insecure: true, HTTPTimeout: 2 * time.Second})
	ctx := context.Background()

	srv.SetAddrs("site.svc-test", "127.0.0.1")
	if res := c.Check(ctx, "site.svc-test", value); !res.OK || res.Method != "http" {
		t.Fatalf("site.svc-test (A from the configured server): %+v", res)
	}
	if srv.Queries(dns.TypeA) == 0 {
		t.Fatal("the configured server was never asked for A records")
	}
	if srv.Queries(dns.TypeAAAA) == 0 {
		t.Fatal("the configured server was never asked for AAAA records")
	}
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Logf("no IPv6 loopback (%v): the AAAA-only case is skipped", err)
	} else {
		web6 := httptest.NewUnstartedServer(web.Config.Handler)
		web6.Listener = ln
		web6.Start()
		defer web6.Close()
		c6 := domainverify.NewChecker(domainverify.Config{DNSServer: srv.Addr, DNSTimeout: 300 * time.Millisecond,
			HTTPPort: portOf(t, web6.URL), Insecure: true, HTTPTimeout: 2 * time.Second})
		srv.SetAddrs("six.svc-test", "::1")
		if res := c6.Check(ctx, "six.svc-test", value); !res.OK {
			t.Fatalf("six.svc-test (AAAA only): %+v", res)
		}
	}
	srv.SetAddrs("hop.svc-test", "127.0.0.1")
	if res := c.Check(ctx, "hop.svc-test", value); !res.OK {
		t.Fatalf("hop.svc-test (redirect to a name of the configured server): %+v", res)
	}
	// localhost resolves on every system; the configured server says it does not exist.
	if res := c.Check(ctx, "localhost", value); res.OK || !strings.Contains(res.Detail, "cannot resolve localhost") {
		t.Fatalf("localhost (NXDOMAIN at the configured server): %+v", res)
	}
	srv.Set("site.svc-test", dnstest.NXDomain)
	if res := c.Check(ctx, "site.svc-test", value); res.OK || !strings.Contains(res.Detail, "NXDOMAIN") {
		t.Fatalf("site.svc-test after it was removed from the configured server: %+v", res)
	}
}

// Redirects are followed only to the same scheme on the verification port, in insecure mode
// too (real HTTP servers on loopback, names from the real DNS server).
func TestRedirectsStayOnTheVerificationPort(t *testing.T) {
	const value = "svc-verification=tok"
	srv := dnstest.Start(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, value) }))
	defer other.Close()
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		switch host {
		case "port.svc-test":
			http.Redirect(w, r, other.URL+domainverify.WellKnownPath, http.StatusFound)
		case "tls.svc-test":
			http.Redirect(w, r, "https://"+r.Host+domainverify.WellKnownPath, http.StatusFound)
		case "same.svc-test":
			if r.URL.Path == domainverify.WellKnownPath {
				http.Redirect(w, r, "/elsewhere", http.StatusFound)
				return
			}
			fmt.Fprint(w, value)
		default:
			fmt.Fprint(w, value)
		}
	}))
	defer web.Close()
	for _, name := range []string{"port.svc-test", "tls.svc-test", "same.svc-test"} {
		srv.SetAddrs(name, "127.0.0.1")
	}
	c := domainverify.NewChecker(domainverify.Config{DNSServer: srv.Addr, DNSTimeout: 300 * time.Millisecond,
		HTTPPort: portOf(t, web.URL), Insecure: true, HTTPTimeout: 2 * time.Second})
	ctx := context.Background()
	if res := c.Check(ctx, "same.svc-test", value); !res.OK {
		t.Fatalf("a redirect on the same port: %+v", res)
	}
	for _, name := range []string{"port.svc-test", "tls.svc-test"} {
		res := c.Check(ctx, name, value)
		if res.OK || !strings.Contains(res.Detail, "only http on port "+strconv.Itoa(portOf(t, web.URL))) {
			t.Fatalf("%s: %+v", name, res)
		}
	}

	t.Run("secure mode", func(t *testing.T) {
		var dials []string
		var mu sync.Mutex
		tlsOther := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, value) }))
		defer tlsOther.Close()
		tlsWeb := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://example.com:"+strconv.Itoa(portOf(t, tlsOther.URL))+domainverify.WellKnownPath, http.StatusFound)
		}))
		defer tlsWeb.Close()
		pool := x509.NewCertPool()
		pool.AddCert(tlsWeb.Certificate())
		pool.AddCert(tlsOther.Certificate())
		srv.SetAddrs("example.com", "127.0.0.1")
		f := domainverify.NewHTTPFetcher(domainverify.HTTPOptions{
			Port:      portOf(t, tlsWeb.URL),
			Resolver:  domainverify.NewDNSResolver(srv.Addr, 300*time.Millisecond),
			AllowAddr: func(a netip.Addr) bool { return a.IsLoopback() }, // loopback stands in for a public address
			Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
				mu.Lock()
				dials = append(dials, addr)
				mu.Unlock()
				var d net.Dialer
				return d.DialContext(ctx, network, addr)
			},
			RootCAs: pool,
			Timeout: 2 * time.Second,
		})
		_, err := f.FetchWellKnown(ctx, "example.com")
		if !errors.Is(err, domainverify.ErrRedirectRefused) {
			t.Fatalf("redirect to https on another port: %v", err)
		}
		if len(dials) != 1 {
			t.Fatalf("dialled %v, want only the first hop", dials)
		}
	})
}
