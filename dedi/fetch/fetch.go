// Package fetch is the hardened HTTP fetcher of DeDi documents (manifests, files, schemas,
// discovery lists), for `svc dedi verify --fetch` and the crawler. It follows the rules of
// domain verification (domainverify): https only; names resolved by the configured resolver
// (SVC_DNS_SERVER), every address judged by domainverify.IsPublicIP and the connection made to
// the very address checked; a bounded number of redirects, each checked again; a timeout for
// the whole fetch; a size cap per document; and conditional GET (ETag, Last-Modified). Under
// the test switch (SVC_VERIFY_INSECURE) a URL https://{host}/{path} is fetched as
// http://{host}:{port}/{path} with any address allowed, as the HTTP domain check does.
package fetch

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

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/domainverify"
)

// Errors callers can tell apart (with errors.Is).
var (
	ErrNotHTTPS         = errors.New("not an https URL")
	ErrTooLarge         = errors.New("larger than allowed")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrTimeout          = errors.New("timed out")
	ErrStatus           = errors.New("unexpected HTTP status")
	ErrNonPublicAddress = domainverify.ErrNonPublicAddress
)

// Options configure a Fetcher. The zero value is the secure default.
type Options struct {
	// Resolver resolves host names; default a domainverify.DNSResolver on DNSServer.
	Resolver domainverify.IPResolver
	// DNSServer is host:port of the DNS server (SVC_DNS_SERVER); "" the system's.
	DNSServer string
	// Insecure (TESTS ONLY, SVC_VERIFY_INSECURE): https://host/path is fetched as
	// http://host:Port/path, to any address, TLS unverified.
	Insecure bool
	// Port is the port https URLs are fetched on (SVC_VERIFY_HTTP_PORT); default 443. A URL
	// naming another port is refused.
	Port int
	// Timeout bounds a whole fetch, redirects and body included; default 60s.
	Timeout time.Duration
	// HeaderTimeout bounds the wait for each response's headers; default 15s.
	HeaderTimeout time.Duration
	// MaxRedirects is how many redirects are followed; default 3.
	MaxRedirects int
	// MaxFileBytes caps a DeDi file (default 64 MiB); manifests, schemas and lists are capped
	// at 1 MiB.
	MaxFileBytes int64
	// AllowAddr judges each address before it is dialled; default domainverify.IsPublicIP.
	AllowAddr func(netip.Addr) bool
	// RootCAs replaces the system roots (tests).
	RootCAs *x509.CertPool
	// UserAgent is sent with every request.
	UserAgent string
}

// Fetcher fetches DeDi documents. Safe for concurrent use.
type Fetcher struct {
	o      Options
	client *http.Client
}

type vettedKey struct{}

// New builds a fetcher.
func New(o Options) *Fetcher {
	if o.Port == 0 {
		o.Port = 443
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = 15 * time.Second
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = 3
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = dedi.DefaultMaxFileBytes
	}
	if o.Resolver == nil {
		o.Resolver = domainverify.NewDNSResolver(o.DNSServer, 5*time.Second)
	}
	if o.AllowAddr == nil {
		o.AllowAddr = domainverify.IsPublicIP
	}
	if o.UserAgent == "" {
		o.UserAgent = "svc-dedi/1"
	}
	dialer := &net.Dialer{Timeout: o.HeaderTimeout}
	tr := &http.Transport{
		Proxy:                  nil,
		DisableKeepAlives:      true,
		DisableCompression:     true, // the cap counts the bytes as received
		TLSHandshakeTimeout:    o.HeaderTimeout,
		ResponseHeaderTimeout:  o.HeaderTimeout,
		MaxResponseHeaderBytes: 64 << 10,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs, InsecureSkipVerify: o.Insecure}, //nolint:gosec // tests only, by option
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			addr, ok := ctx.Value(vettedKey{}).(string)
			if !ok {
				return nil, errors.New("internal: no vetted address for the connection")
			}
			return dialer.DialContext(ctx, network, addr)
		},
	}
	return &Fetcher{o: o, client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // followed by hand, each one checked
	}}}
}

// Request is one document to fetch.
type Request struct {
	URL      string // https
	MaxBytes int64  // the cap of this document
	// Validators of the copy held, sent as If-None-Match and If-Modified-Since.
	ETag         string
	LastModified string
}

// Response is what a fetch got.
type Response struct {
	URL          string // the final URL, after redirects (https form)
	NotModified  bool   // 304: the copy held is current (Body is nil)
	Body         []byte
	ETag         string
	LastModified string
}

// Fetch gets one document.
func (f *Fetcher) Fetch(ctx context.Context, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, f.o.Timeout)
	defer cancel()
	u, err := f.checkURL(req.URL)
	if err != nil {
		return Response{URL: req.URL}, err
	}
	for hop := 0; ; hop++ {
		res, next, err := f.once(ctx, u, req)
		if err != nil || next == nil {
			if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, ErrTimeout) {
				err = fmt.Errorf("%s: %w after %s", u.Redacted(), ErrTimeout, f.o.Timeout)
			}
			return res, err
		}
		if hop >= f.o.MaxRedirects {
			return res, fmt.Errorf("%s: %w (more than %d)", req.URL, ErrTooManyRedirects, f.o.MaxRedirects)
		}
		if u, err = f.checkURL(next.String()); err != nil {
			return res, fmt.Errorf("redirect: %w", err)
		}
	}
}

// checkURL admits https URLs without credentials on the default port (or the configured
// one); under the test switch an http URL on the configured port stands for the https one
// (a redirect written by a test server).
func (f *Fetcher) checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute URL", shorten(raw))
	}
	if f.o.Insecure && u.Scheme == "http" && u.Port() == strconv.Itoa(f.o.Port) {
		u.Scheme, u.Host = "https", u.Hostname()
	}
	if u.Scheme != "https" {
		return nil, fmt.Errorf("%s: %w", shorten(raw), ErrNotHTTPS)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%s: a URL with credentials is refused", shorten(u.Redacted()))
	}
	if p := u.Port(); p != "" && p != "443" && p != strconv.Itoa(f.o.Port) {
		return nil, fmt.Errorf("%s: port %s is refused (only %d)", shorten(raw), p, f.o.Port)
	}
	u.Fragment = ""
	return u, nil
}

// once fetches u; a redirect comes back as its target.
func (f *Fetcher) once(ctx context.Context, u *url.URL, req Request) (Response, *url.URL, error) {
	res := Response{URL: u.String()}
	wire := *u
	if f.o.Insecure {
		wire.Scheme = "http"
	}
	wire.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(f.o.Port))
	if !f.o.Insecure && f.o.Port == 443 {
		wire.Host = u.Hostname()
	}
	allow := f.o.AllowAddr
	if f.o.Insecure {
		allow = nil
	}
	addr, err := domainverify.ResolveVetted(ctx, f.o.Resolver, u.Hostname(), allow)
	if err != nil {
		return res, nil, fmt.Errorf("%s: %w", u.Hostname(), err)
	}
	vctx := context.WithValue(ctx, vettedKey{}, net.JoinHostPort(addr.String(), strconv.Itoa(f.o.Port)))
	hr, err := http.NewRequestWithContext(vctx, http.MethodGet, wire.String(), nil)
	if err != nil {
		return res, nil, err
	}
	hr.Header.Set("User-Agent", f.o.UserAgent)
	hr.Header.Set("Accept", "application/json, text/plain;q=0.5")
	if req.ETag != "" {
		hr.Header.Set("If-None-Match", req.ETag)
	}
	if req.LastModified != "" {
		hr.Header.Set("If-Modified-Since", req.LastModified)
	}
	resp, err := f.client.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return res, nil, ctx.Err()
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return res, nil, fmt.Errorf("%s: %w (%v)", u.Redacted(), ErrTimeout, unwrapURLError(err))
		}
		return res, nil, fmt.Errorf("%s: %v", u.Redacted(), unwrapURLError(err))
	}
	defer resp.Body.Close()
	res.ETag, res.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	switch {
	case resp.StatusCode == http.StatusNotModified:
		res.NotModified = true
		return res, nil, nil
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		loc := resp.Header.Get("Location")
		target, err := u.Parse(loc)
		if loc == "" || err != nil {
			return res, nil, fmt.Errorf("%s: a redirect without a valid Location", u.Redacted())
		}
		return res, target, nil
	case resp.StatusCode != http.StatusOK:
		return res, nil, fmt.Errorf("%s: %w %d", u.Redacted(), ErrStatus, resp.StatusCode)
	}
	if resp.ContentLength > req.MaxBytes {
		return res, nil, fmt.Errorf("%s: %w (%d bytes, the cap is %d)", u.Redacted(), ErrTooLarge, resp.ContentLength, req.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, req.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return res, nil, ctx.Err()
		}
		return res, nil, fmt.Errorf("%s: reading the body: %v", u.Redacted(), err)
	}
	if int64(len(body)) > req.MaxBytes {
		return res, nil, fmt.Errorf("%s: %w (the cap is %d bytes)", u.Redacted(), ErrTooLarge, req.MaxBytes)
	}
	res.Body = body
	return res, nil, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// Manifest fetches the manifest of domain from https://{domain}/.well-known/dedi.index.json,
// capped at 1 MiB, conditionally on the validators given.
func (f *Fetcher) Manifest(ctx context.Context, domain, etag, lastModified string) (Response, error) {
	return f.Fetch(ctx, Request{URL: dedi.WellKnownURL(domain), MaxBytes: dedi.DefaultMaxManifestBytes, ETag: etag, LastModified: lastModified})
}

// File fetches a DeDi file, capped at MaxFileBytes, conditionally on the validators given.
func (f *Fetcher) File(ctx context.Context, url, etag, lastModified string) (Response, error) {
	return f.Fetch(ctx, Request{URL: url, MaxBytes: f.o.MaxFileBytes, ETag: etag, LastModified: lastModified})
}

// Digests fetches a publisher's digests document, capped as a manifest (1 MiB),
// conditionally on the validators given.
func (f *Fetcher) Digests(ctx context.Context, url, etag, lastModified string) (Response, error) {
	return f.Fetch(ctx, Request{URL: url, MaxBytes: dedi.DefaultMaxManifestBytes, ETag: etag, LastModified: lastModified})
}

// FetchSchema implements dedi.SchemaFetcher: a registry schema, capped at 1 MiB.
func (f *Fetcher) FetchSchema(ctx context.Context, url string) ([]byte, error) {
	res, err := f.Fetch(ctx, Request{URL: url, MaxBytes: dedi.MaxSchemaBytes})
	return res.Body, err
}

// FetchList fetches a discovery list (domains.txt), capped at 1 MiB.
func (f *Fetcher) FetchList(ctx context.Context, url string) ([]byte, error) {
	res, err := f.Fetch(ctx, Request{URL: url, MaxBytes: 1 << 20})
	return res.Body, err
}

// Limits are the caps of this fetcher as the verifier takes them.
func (f *Fetcher) Limits() dedi.Limits {
	return dedi.Limits{MaxManifestBytes: dedi.DefaultMaxManifestBytes, MaxFileBytes: f.o.MaxFileBytes}
}
