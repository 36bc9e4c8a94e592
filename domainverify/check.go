package domainverify

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"
)

// Checker runs the check of verify-domain: DNS TXT first, then the HTTP file.
type Checker struct {
	DNS    TXTResolver
	HTTP   Fetcher
	Logger *slog.Logger
}

// Config is the verification setup of svc serve (SVC_DNS_SERVER, SVC_VERIFY_HTTP_PORT,
// SVC_VERIFY_INSECURE).
type Config struct {
	DNSServer   string        // host:port; "" is the first server of /etc/resolv.conf
	DNSTimeout  time.Duration // per query; default 5s
	HTTPPort    int           // default 443
	Insecure    bool          // TESTS ONLY: plain HTTP and loopback targets
	HTTPTimeout time.Duration // whole fetch; default 10s
	Logger      *slog.Logger
}

// NewChecker builds the checker of verify-domain and re-verification. One DNS resolver, on the
// configured server, answers every look-up: the TXT records and the A/AAAA records of the
// HTTP fetch (its first host and each redirect's).
func NewChecker(c Config) *Checker {
	if c.DNSTimeout <= 0 {
		c.DNSTimeout = 5 * time.Second
	}
	dns := NewDNSResolver(c.DNSServer, c.DNSTimeout)
	return &Checker{
		DNS:    dns,
		HTTP:   NewHTTPFetcher(HTTPOptions{Port: c.HTTPPort, Insecure: c.Insecure, Timeout: c.HTTPTimeout, Resolver: dns}),
		Logger: c.Logger,
	}
}

// Result of a check.
type Result struct {
	OK           bool
	Method       string // "dns" or "http" when OK
	Detail       string // what was found, shortened and safe to show the caller
	HTTPMismatch bool   // the file was fetched but its content did not match
}

// Check looks for want at the domain: among the TXT records at the apex (a match is a record
// equal to want, multi-string records joined), else as the trimmed first line of
// https://<domain>/.well-known/svc-verification.txt.
func (c *Checker) Check(ctx context.Context, domain, want string) Result {
	dnsDetail := "DNS: "
	txts, err := c.DNS.LookupTXT(ctx, domain)
	switch {
	case err != nil:
		dnsDetail += shorten(err.Error(), 200)
	default:
		for _, t := range txts {
			if t == want {
				return Result{OK: true, Method: "dns", Detail: "TXT record found"}
			}
		}
		if len(txts) == 0 {
			dnsDetail += "no TXT records"
		} else {
			dnsDetail += fmt.Sprintf("found %d TXT record(s), none matching", len(txts))
		}
	}
	res := Result{}
	fr, err := c.HTTP.FetchWellKnown(ctx, domain)
	httpDetail := "HTTP: "
	switch {
	case err != nil:
		httpDetail += shorten(err.Error(), 200)
		if errors.Is(err, ErrBodyTooLarge) {
			res.HTTPMismatch = true
		}
	default:
		line := firstLine(fr.Body)
		if line == want {
			return Result{OK: true, Method: "http", Detail: "file found"}
		}
		res.HTTPMismatch = true
		httpDetail += fmt.Sprintf("file content did not match (found %q)", shorten(line, 40))
	}
	res.Detail = dnsDetail + "; " + httpDetail
	if c.Logger != nil {
		c.Logger.InfoContext(ctx, "domain check failed", "domain", domain, "detail", res.Detail)
	}
	return res
}

func firstLine(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	if sc.Scan() {
		return strings.TrimSpace(sc.Text())
	}
	return ""
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
