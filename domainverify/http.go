package domainverify

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"
)

// Fetch errors callers can tell apart.
var (
	ErrBodyTooLarge     = errors.New("the file is larger than allowed")
	ErrNonPublicAddress = errors.New("the domain resolves to a non-public address")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrRedirectRefused  = errors.New("refused")
)

// FetchResult is what the .well-known fetch found.
type FetchResult struct {
	URL    string // the final URL
	Status int
	Body   []byte // at most MaxBody bytes
}

// Fetcher fetches https://<domain>/.well-known/svc-verification.txt.
type Fetcher interface {
	FetchWellKnown(ctx context.Context, domain string) (FetchResult, error)
}

// IPResolver resolves host names to addresses. DNSResolver is the one verification uses, so
// that the fetch asks the configured server (SVC_DNS_SERVER) as the TXT look-ups do.
type IPResolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// HTTPOptions configure the fetcher. The zero value is the secure default.
type HTTPOptions struct {
	Port         int           // default 443
	Insecure     bool          // TESTS ONLY: plain http, no address checks, no TLS verification
	Timeout      time.Duration // whole fetch, redirects included; default 10s
	MaxRedirects int           // default 3
	MaxBody      int64         // default 1024 bytes
	Resolver     IPResolver    // default a DNSResolver on the system's server (never net.DefaultResolver)
	// AllowAddr decides which addresses may be contacted; default IsPublicIP (ignored when Insecure).
	AllowAddr func(netip.Addr) bool
	// Dial connects to a vetted address (tests observe it); default a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// RootCAs replaces the system roots (tests); nil means the system's.
	RootCAs *x509.CertPool
}

// HTTPFetcher is the hardened fetcher: it resolves the host itself, refuses non-public
// addresses, connects to the very address it checked (no second resolution), follows only
// redirects to the same scheme (https; http in insecure mode) on the verification port and
// re-checks each, caps the body and bounds the time.
type HTTPFetcher struct {
	opts   HTTPOptions
	client *http.Client
}

type vettedKey struct{}

// NewHTTPFetcher builds a fetcher.
func NewHTTPFetcher(o HTTPOptions) *HTTPFetcher {
	if o.Port == 0 {
		o.Port = 443
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = 3
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 1024
	}
	if o.Resolver == nil {
		o.Resolver = NewDNSResolver("", o.Timeout)
	}
	if o.AllowAddr == nil {
		o.AllowAddr = IsPublicIP
	}
	if o.Dial == nil {
		d := &net.Dialer{Timeout: o.Timeout}
		o.Dial = d.DialContext
	}
	f := &HTTPFetcher{opts: o}
	tr := &http.Transport{
		Proxy:                  nil, // never a proxy from the environment
		DisableKeepAlives:      true,
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs, InsecureSkipVerify: o.Insecure}, //nolint:gosec // tests only, by option
		// Dial the address vetted for this request, never the name again.
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			addr, ok := ctx.Value(vettedKey{}).(string)
			if !ok {
				return nil, errors.New("internal: no vetted address for the connection")
			}
			return o.Dial(ctx, network, addr)
		},
	}
	f.client = &http.Client{
		Transport: tr,
		Jar:       nil,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // redirects are followed by hand, each one vetted
		},
	}
	return f
}

// FetchWellKnown implements Fetcher.
func (f *HTTPFetcher) FetchWellKnown(ctx context.Context, domain string) (FetchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	scheme := "https"
	if f.opts.Insecure {
		scheme = "http"
	}
	target := &url.URL{Scheme: scheme, Host: net.JoinHostPort(domain, strconv.Itoa(f.opts.Port)), Path: WellKnownPath}
	if f.opts.Port == 443 && scheme == "https" {
		target.Host = domain
	}
	for hop := 0; ; hop++ {
		res, next, err := f.fetchOnce(ctx, target)
		if err != nil || next == nil {
			return res, err
		}
		if hop >= f.opts.MaxRedirects {
			return res, fmt.Errorf("%w (more than %d)", ErrTooManyRedirects, f.opts.MaxRedirects)
		}
		if err := f.redirectAllowed(scheme, next); err != nil {
			return res, err
		}
		target = next
	}
}

// redirectAllowed admits a redirect only to scheme (https, or http in insecure mode) on the
// verification port: a verified domain's redirect cannot make the service reach other ports
// or plain HTTP.
func (f *HTTPFetcher) redirectAllowed(scheme string, u *url.URL) error {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if u.Scheme != scheme || port != strconv.Itoa(f.opts.Port) {
		return fmt.Errorf("%w: redirect to %s://%s (only %s on port %d is followed)", ErrRedirectRefused,
			shorten(u.Scheme, 16), shorten(u.Host, 80), scheme, f.opts.Port)
	}
	return nil
}

// fetchOnce fetches one URL; it returns the redirect target when the answer is a redirect.
func (f *HTTPFetcher) fetchOnce(ctx context.Context, u *url.URL) (FetchResult, *url.URL, error) {
	res := FetchResult{URL: u.String()}
	if !f.opts.Insecure && u.Scheme != "https" {
		return res, nil, fmt.Errorf("refused: %s is not https", u.Redacted())
	}
	if f.opts.Insecure && u.Scheme != "http" && u.Scheme != "https" {
		return res, nil, fmt.Errorf("refused: scheme %q", u.Scheme)
	}
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr, err := f.vet(ctx, host)
	if err != nil {
		return res, nil, err
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, vettedKey{}, net.JoinHostPort(addr.String(), port)), http.MethodGet, u.String(), nil)
	if err != nil {
		return res, nil, err
	}
	req.Header.Set("User-Agent", "svc-domain-verification/1")
	req.Header.Set("Accept", "text/plain")
	resp, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return res, nil, fmt.Errorf("timed out after %s", f.opts.Timeout)
		}
		return res, nil, fmt.Errorf("fetch failed: %v", errors.Unwrap(err))
	}
	defer resp.Body.Close()
	res.Status = resp.StatusCode
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc, err := resp.Location()
		if err != nil {
			return res, nil, fmt.Errorf("redirect without a valid Location")
		}
		return res, loc, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBody+1))
	if err != nil {
		return res, nil, fmt.Errorf("reading the file failed: %v", err)
	}
	if int64(len(body)) > f.opts.MaxBody {
		return res, nil, fmt.Errorf("%w (%d bytes)", ErrBodyTooLarge, f.opts.MaxBody)
	}
	res.Body = body
	if resp.StatusCode != http.StatusOK {
		return res, nil, fmt.Errorf("the file answered HTTP %d", resp.StatusCode)
	}
	return res, nil, nil
}

// vet resolves host and returns the first allowed address; in secure mode every address must
// be public (a name that mixes public and private addresses is refused).
func (f *HTTPFetcher) vet(ctx context.Context, host string) (netip.Addr, error) {
	allow := f.opts.AllowAddr
	if f.opts.Insecure {
		allow = nil
	}
	return ResolveVetted(ctx, f.opts.Resolver, host, allow)
}

// ResolveVetted resolves host (an address literal is taken as it is) and returns the first of
// its addresses, the one to dial, when allow admits every one of them (a name that mixes
// public and private addresses is refused; nil allow admits all). The other outbound fetches
// of the service (webhooks) vet their targets with it too. An address literal with a zone
// (fe80::1%eth0) is refused whatever allow says: it names an interface of this machine.
func ResolveVetted(ctx context.Context, r IPResolver, host string, allow func(netip.Addr) bool) (netip.Addr, error) {
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return netip.Addr{}, fmt.Errorf("refused: %w (an address with a zone)", ErrNonPublicAddress)
		}
		addrs = []netip.Addr{ip.Unmap()}
	} else {
		ips, err := r.LookupIPAddr(ctx, host)
		if err != nil {
			return netip.Addr{}, fmt.Errorf("cannot resolve %s: %v", shorten(host, 80), err)
		}
		for _, ip := range ips {
			if a, ok := netip.AddrFromSlice(ip.IP); ok {
				addrs = append(addrs, a.Unmap())
			}
		}
	}
	if len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("%s has no address", shorten(host, 80))
	}
	if allow != nil {
		for _, a := range addrs {
			if !allow(a) {
				return netip.Addr{}, fmt.Errorf("refused: %w", ErrNonPublicAddress)
			}
		}
	}
	return addrs[0], nil
}
