package webhook

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// The forms of loopback, private and metadata addresses a URL parser reads as addresses, and
// local names, are refused at creation (CheckURL) and at delivery (Post, before any
// resolution or connection), by the same rule.
func TestURLRuleOneAtCreationAndDelivery(t *testing.T) {
	refused := []string{
		"https://LOCALHOST/", "https://localhost./", "https://LocalHost.:8443/x", "https://api.localhost/",
		"https://127.1/", "https://2130706433/", "https://0x7f.0.0.1/", "https://0x7F000001/", "https://0177.0.0.1/",
		"https://127.0.0.1./", "https://0/", "https://0x0/", "https://10.1/", "https://0xa9fea9fe/", "https://169.254.43518/",
		"https://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/", // full-width digits, as a browser folds them
		"https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/", "https://[0:0:0:0:0:ffff:a9fe:a9fe]/",
		"https://[fd00:ec2::254%25lo]/", "https://[fc00::1%25lo]/", "https://[64:ff9b::a9fe:a9fe%25eth0]/",
		"https://[2002:7f00:1::1%25lo]/", "https://[2606:4700:4700::1111%25eth0]/", "https://[fe80::1%25eth0]/",
		"https://1.2.3.4.5/", "https://256.1.1.1/", "https://1.2.3.0x100/", "https://08.1.1.1/", "https://intranet/",
		"https://exa_mple.com/", "https://hooks.example.com:0/", "https://hooks.example.com:99999/",
	}
	for _, raw := range refused {
		if u, err := CheckURL(raw, false); !errors.Is(err, ErrRefusedURL) {
			t.Errorf("CheckURL(%q) = %v, %v; want refused", raw, u, err)
		}
	}
	// Delivery reads the URL with the same rule: nothing is resolved or dialled.
	var looked, dialled []string
	p := NewPoster(PostOptions{
		Resolver: resolverFunc(func(host string) { looked = append(looked, host) }),
		Dial: func(_ context.Context, _, addr string) (net.Conn, error) {
			dialled = append(dialled, addr)
			return nil, errors.New("no")
		},
	})
	for _, raw := range refused {
		if _, err := p.Post(context.Background(), raw, nil, nil); !errors.Is(err, ErrRefusedURL) {
			t.Errorf("Post(%q) = %v; want refused", raw, err)
		}
	}
	if len(looked)+len(dialled) != 0 {
		t.Fatalf("refused URLs were resolved %v or dialled %v", looked, dialled)
	}
	// Accepted URLs come back normalised: the host as a browser reads it, no default port.
	for raw, want := range map[string]string{
		"https://Hooks.Example.COM./svc?x=1":    "https://hooks.example.com/svc?x=1",
		"https://hooks.example.com:443/svc":     "https://hooks.example.com/svc",
		"https://hooks.example.com:8443/svc":    "https://hooks.example.com:8443/svc",
		"https://0x5db8d822/hook":               "https://93.184.216.34/hook",
		"https://1572395042/hook":               "https://93.184.216.34/hook",
		"https://[::ffff:93.184.216.34]/hook":   "https://93.184.216.34/hook",
		"https://[2606:4700:4700:0::1111]:8443": "https://[2606:4700:4700::1111]:8443",
		"https://bücher.example/hook":           "https://xn--bcher-kva.example/hook",
	} {
		u, err := CheckURL(raw, false)
		if err != nil || u.String() != want {
			t.Errorf("CheckURL(%q) = %v, %v; want %s", raw, u, err, want)
		}
	}
	// The test mode admits loopback in every form, still never a zone or a private address.
	for raw, ok := range map[string]bool{"http://127.1:9000/": true, "http://localhost:9000/": true, "http://[::1]:9000/": true,
		"http://[::1%25lo]:9000/": false, "http://10.1:9000/": false, "http://0xa000001/": false} {
		if _, err := CheckURL(raw, true); (err == nil) != ok {
			t.Errorf("CheckURL(%q, insecure) = %v; want ok %v", raw, err, ok)
		}
	}
	if _, err := CheckURL("https://hooks.example.com/"+strings.Repeat("a", MaxURL), false); err == nil {
		t.Error("an overlong URL was taken")
	}
}

// resolverFunc notes each look-up and finds nothing.
type resolverFunc func(host string)

func (f resolverFunc) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	f(host)
	return nil, errors.New("no such host")
}
