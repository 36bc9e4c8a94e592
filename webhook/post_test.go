package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestCheckURL(t *testing.T) {
	for _, c := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"https://hooks.example.com/svc", false, true},
		{"https://hooks.example.com:8443/svc?x=1", false, true},
		{"https://93.184.216.34/hook", false, true},
		{"http://hooks.example.com/svc", false, false},
		{"http://hooks.example.com/svc", true, true},
		{"http://127.0.0.1:9000/hook", true, true},
		{"https://127.0.0.1/hook", false, false},
		{"https://localhost/hook", false, false},
		{"https://[::1]/hook", false, false},
		{"http://10.0.0.1/hook", true, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"https://[::ffff:10.0.0.1]/hook", false, false},
		{"https://user:pw@hooks.example.com/", false, false},
		{"https://hooks.example.com/#frag", false, false},
		{"ftp://hooks.example.com/", false, false},
		{"/relative", false, false},
		{"https://", false, false},
		{"https://hooks.example.com/" + strings.Repeat("a", MaxURL), false, false},
	} {
		_, err := CheckURL(c.url, c.insecure)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrRefusedURL)) {
			t.Errorf("CheckURL(%.60q, insecure %v) = %v; want ok %v", c.url, c.insecure, err, c.ok)
		}
	}
}

// resolver answers from a table, like a DNS server would.
type resolver map[string][]string

func (r resolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	var out []net.IPAddr
	for _, a := range r[host] {
		out = append(out, net.IPAddr{IP: net.ParseIP(a)})
	}
	if out == nil {
		return nil, errors.New("no such host")
	}
	return out, nil
}

// The poster resolves the host itself, refuses names with any non-public address before
// connecting, connects to the address it checked, follows no redirect and bounds its time.
func TestPosterIsHardened(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
		case "/slow":
			time.Sleep(time.Second)
		case "/fail":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			if r.Header.Get("webhook-id") != "msg_1" || r.Method != http.MethodPost {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var dialled []string
	p := NewPoster(PostOptions{
		Insecure: true, // http, so that the test server serves it; addresses stay checked
		Timeout:  300 * time.Millisecond,
		Resolver: resolver{"public.example": {"93.184.216.34"}, "private.example": {"10.1.2.3"},
			"mixed.example": {"93.184.216.34", "192.168.1.1"}, "meta.example": {"169.254.169.254"}},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialled = append(dialled, addr)
			return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
		},
	})
	ctx := context.Background()
	post := func(host, path string) (Result, error) {
		return p.Post(ctx, "http://"+host+":"+port+path, map[string]string{"webhook-id": "msg_1"}, []byte("{}"))
	}
	if res, err := post("public.example", "/hook"); err != nil || res.StatusCode != 204 {
		t.Fatalf("a public host: %+v, %v", res, err)
	}
	if len(dialled) != 1 || dialled[0] != "93.184.216.34:"+port {
		t.Fatalf("dialled %v; want the address checked", dialled)
	}
	for _, host := range []string{"private.example", "mixed.example", "meta.example", "nowhere.example"} {
		if _, err := post(host, "/hook"); err == nil {
			t.Errorf("%s was posted to", host)
		}
	}
	if len(dialled) != 1 {
		t.Fatalf("refused hosts were dialled: %v", dialled)
	}
	if res, err := post("public.example", "/redirect"); err == nil || res.StatusCode != http.StatusFound || len(dialled) != 2 {
		t.Fatalf("a redirect: %+v, %v, dialled %v; want a failure, not followed", res, err, dialled)
	}
	if res, err := post("public.example", "/fail"); err == nil || res.StatusCode != 503 {
		t.Fatalf("a 503: %+v, %v", res, err)
	}
	start := time.Now()
	if _, err := post("public.example", "/slow"); err == nil || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("a slow receiver: %v after %s; want a timeout at 300 ms", err, time.Since(start))
	}
	// Without the test setting, plain http is refused before any resolution.
	if _, err := NewPoster(PostOptions{Resolver: resolver{}}).Post(ctx, "http://public.example/", nil, nil); !errors.Is(err, ErrRefusedURL) {
		t.Fatalf("plain http in the secure default: %v", err)
	}
}
