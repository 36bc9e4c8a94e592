package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/svc-directory/svc/domainverify"
)

// ErrRefusedURL: a webhook URL the rules refuse (CheckURL, and each delivery's address check).
var ErrRefusedURL = errors.New("refused webhook URL")

// PostOptions configure the poster. The zero value is the secure default.
type PostOptions struct {
	// Insecure (TESTS ONLY, SVC_WEBHOOK_INSECURE) also allows plain http, and loopback
	// addresses; private and other non-public addresses stay refused.
	Insecure bool
	Timeout  time.Duration // the whole attempt; default 10s
	// MaxResponse is how much of an answer is read (and discarded); default 64 KiB.
	MaxResponse int64
	Resolver    domainverify.IPResolver // default the system's DNS server, never net.DefaultResolver
	// AllowAddr decides which addresses may be contacted; default domainverify.IsPublicIP.
	AllowAddr func(netip.Addr) bool
	Dial      func(ctx context.Context, network, addr string) (net.Conn, error)
	RootCAs   *x509.CertPool // tests; nil: the system's roots
}

// Poster posts deliveries with the rules of domain verification's fetches: https only,
// the host resolved here and every address public, the connection made to the very address
// checked, no redirects, no proxy from the environment, bounded time and answer.
type Poster struct {
	opts   PostOptions
	client *http.Client
}

type vettedKey struct{}

// NewPoster builds a poster.
func NewPoster(o PostOptions) *Poster {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MaxResponse <= 0 {
		o.MaxResponse = 64 << 10
	}
	if o.Resolver == nil {
		o.Resolver = domainverify.NewDNSResolver("", o.Timeout)
	}
	if o.AllowAddr == nil {
		o.AllowAddr = domainverify.IsPublicIP
	}
	if o.Insecure {
		public := o.AllowAddr
		o.AllowAddr = func(a netip.Addr) bool { return a.Zone() == "" && a.IsLoopback() || public(a) }
	}
	if o.Dial == nil {
		d := &net.Dialer{Timeout: o.Timeout}
		o.Dial = d.DialContext
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DisableKeepAlives:      true,
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			addr, ok := ctx.Value(vettedKey{}).(string)
			if !ok {
				return nil, errors.New("internal: no vetted address for the connection")
			}
			return o.Dial(ctx, network, addr)
		},
	}
	return &Poster{opts: o, client: &http.Client{Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Result is what one post found.
type Result struct {
	StatusCode int // 0 when no HTTP answer came
}

// Post sends body to rawURL with the headers once. A 2xx is a delivery; anything else is an
// error saying what happened.
func (p *Poster) Post(ctx context.Context, rawURL string, headers map[string]string, body []byte) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	u, err := CheckURL(rawURL, p.opts.Insecure) // the rule of creation, normalising the host
	if err != nil {
		return Result{}, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	addr, err := p.vet(ctx, u.Hostname())
	if err != nil {
		return Result{}, err
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, vettedKey{}, net.JoinHostPort(addr.String(), port)),
		http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return Result{}, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("timed out after %s", p.opts.Timeout)
		}
		return Result{}, fmt.Errorf("post failed: %v", errors.Unwrap(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, p.opts.MaxResponse))
	res := Result{StatusCode: resp.StatusCode}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return res, fmt.Errorf("the receiver answered HTTP %d", resp.StatusCode)
	}
	return res, nil
}

// vet resolves host; every address must be allowed, and the first is the one dialled.
func (p *Poster) vet(ctx context.Context, host string) (netip.Addr, error) {
	a, err := domainverify.ResolveVetted(ctx, p.opts.Resolver, host, p.opts.AllowAddr)
	if errors.Is(err, domainverify.ErrNonPublicAddress) {
		return a, fmt.Errorf("%w: %s resolves to an address that is not public", ErrRefusedURL, host)
	}
	return a, err
}
