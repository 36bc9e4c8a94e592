package domainverify

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
)

func TestIsPublicIP(t *testing.T) {
	tests := []struct {
		ip   string
		want bool
	}{
		{"8.8.8.8", true}, {"1.1.1.1", true}, {"2606:4700:4700::1111", true}, {"93.184.216.34", true},
		{"127.0.0.1", false}, {"127.9.9.9", false}, {"10.1.2.3", false}, {"172.16.0.1", false}, {"172.31.255.255", false},
		{"192.168.1.1", false}, {"169.254.169.254", false}, {"100.64.0.1", false}, {"100.127.255.255", false},
		{"0.0.0.0", false}, {"255.255.255.255", false}, {"224.0.0.1", false}, {"240.0.0.1", false}, {"198.18.0.1", false},
		{"192.0.2.1", false}, {"::", false}, {"::1", false}, {"fe80::1", false}, {"fc00::1", false}, {"fd00:ec2::254", false},
		{"ff02::1", false}, {"::ffff:127.0.0.1", false}, {"::ffff:8.8.8.8", false}, {"64:ff9b::a00:1", false},
		{"2002:a00:1::", false}, {"2001::1", false}, {"2001:db8::1", false}, {"::127.0.0.1", false},
	}
	for _, tc := range tests {
		if got := IsPublicIP(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("IsPublicIP(%s) = %v, want %v", tc.ip, got, tc.want)
		}
	}
}

func hostPort(t *testing.T, srvURL string) (string, int) {
	u, _ := url.Parse(srvURL)
	p, _ := strconv.Atoi(u.Port())
	return u.Hostname(), p
}

// The insecure (test) mode against real HTTP servers on loopback.
func TestFetchWellKnownInsecure(t *testing.T) {
	const value = "svc-verification=tok"
	mux := http.NewServeMux()
	var srv *httptest.Server
	// Another port of the same host: redirects must not lead there.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, value) }))
	defer other.Close()
	mux.HandleFunc(WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
		switch r.Host[:strings.IndexByte(r.Host, ':')] {
		case "good.localhost":
			fmt.Fprint(w, value+"\n")
		case "crlf.localhost":
			fmt.Fprint(w, value+"\r\nsecond line\r\n")
		case "wrong.localhost":
			fmt.Fprint(w, "svc-verification=nope")
		case "big.localhost":
			fmt.Fprint(w, strings.Repeat("a", 2000))
		case "missing.localhost":
			http.NotFound(w, r)
		case "slow.localhost":
			time.Sleep(500 * time.Millisecond)
			fmt.Fprint(w, value)
		case "loop.localhost":
			http.Redirect(w, r, "http://"+r.Host+WellKnownPath, http.StatusFound)
		case "three.localhost":
			http.Redirect(w, r, "/hop/2", http.StatusFound)
		case "four.localhost":
			http.Redirect(w, r, "/hop/3", http.StatusFound)
		case "elsewhere.localhost":
			http.Redirect(w, r, other.URL+WellKnownPath, http.StatusFound)
		default:
			http.Error(w, "no", http.StatusTeapot)
		}
	})
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/"))
		if n == 0 {
			fmt.Fprint(w, value)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	_, port := hostPort(t, srv.URL)
	resolver := staticResolver{"*": "127.0.0.1"}
	f := NewHTTPFetcher(HTTPOptions{Insecure: true, Port: port, Timeout: 300 * time.Millisecond, Resolver: resolver})
	tests := []struct {
		name    string
		f       *HTTPFetcher
		domain  string
		body    string
		errPart string
	}{
		{"good", f, "good.localhost", value + "\n", ""},
		{"crlf and more lines", f, "crlf.localhost", value + "\r\nsecond line\r\n", ""},
		{"wrong content", f, "wrong.localhost", "svc-verification=nope", ""},
		{"oversized", f, "big.localhost", "", "larger than allowed"},
		{"missing", f, "missing.localhost", "", "HTTP 404"},
		{"slow", f, "slow.localhost", "", "timed out"},
		{"redirect loop", f, "loop.localhost", "", "too many redirects"},
		{"three redirects are fine", f, "three.localhost", value, ""},
		{"four redirects are not", f, "four.localhost", "", "too many redirects"},
		{"a redirect to another port is not", f, "elsewhere.localhost", "", "only http on port " + strconv.Itoa(port)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.f.FetchWellKnown(context.Background(), tc.domain)
			if tc.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errPart) {
					t.Fatalf("error %v, want %q", err, tc.errPart)
				}
				return
			}
			if err != nil || string(res.Body) != tc.body {
				t.Fatalf("body %q, %v; want %q", res.Body, err, tc.body)
			}
		})
	}
}

// staticResolver maps names to one address ("*" for any); it fails on names it does not know.
type staticResolver map[string]string

func (r staticResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	a, ok := r[host]
	if !ok {
		a, ok = r["*"]
	}
	if !ok {
		return nil, fmt.Errorf("unexpected lookup of %s", host)
	}
	return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
}

// dialRecorder records the addresses the fetcher connects to.
type dialRecorder struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialRecorder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

// The secure mode refuses non-public addresses before connecting, and checks every redirect.
func TestFetchWellKnownSecure(t *testing.T) {
	for _, ip := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "::ffff:127.0.0.1", "64:ff9b::a00:1", "100.64.1.1"} {
		t.Run(ip, func(t *testing.T) {
			rec := &dialRecorder{}
			f := NewHTTPFetcher(HTTPOptions{Resolver: staticResolver{"victim.example": ip}, Dial: rec.dial, Timeout: time.Second})
			_, err := f.FetchWellKnown(context.Background(), "victim.example")
			if !errors.Is(err, ErrNonPublicAddress) {
				t.Fatalf("error %v, want a non-public refusal", err)
			}
			if len(rec.addrs) != 0 {
				t.Fatalf("connected to %v", rec.addrs)
			}
		})
	}

	t.Run("redirect to a private address is refused, and only the vetted address is dialled", func(t *testing.T) {
		tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, port, _ := net.SplitHostPort(r.Host)
			http.Redirect(w, r, "https://internal.example:"+port+WellKnownPath, http.StatusFound)
		}))
		defer tlsSrv.Close()
		_, port := hostPort(t, tlsSrv.URL)
		rec := &dialRecorder{}
		pool := x509.NewCertPool()
		pool.AddCert(tlsSrv.Certificate())
		f := NewHTTPFetcher(HTTPOptions{
			Port:      port,
			Resolver:  staticResolver{"example.com": "127.0.0.1", "internal.example": "10.0.0.1"},
			AllowAddr: func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.1") }, // stands in for a public address
			Dial:      rec.dial,
			RootCAs:   pool,
			Timeout:   2 * time.Second,
		})
		_, err := f.FetchWellKnown(context.Background(), "example.com")
		if !errors.Is(err, ErrNonPublicAddress) {
			t.Fatalf("error %v, want the redirect refused", err)
		}
		if len(rec.addrs) != 1 || rec.addrs[0] != net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) {
			t.Fatalf("dialled %v, want only the vetted first hop", rec.addrs)
		}
	})

	t.Run("TLS is verified", func(t *testing.T) {
		tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "x") }))
		defer tlsSrv.Close()
		_, port := hostPort(t, tlsSrv.URL)
		f := NewHTTPFetcher(HTTPOptions{Port: port, Resolver: staticResolver{"example.com": "127.0.0.1"},
			AllowAddr: func(netip.Addr) bool { return true }, Timeout: 2 * time.Second})
		if _, err := f.FetchWellKnown(context.Background(), "example.com"); err == nil {
			t.Fatal("an untrusted certificate was accepted")
		}
	})
}
