package domainverify

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// DNS errors callers can tell apart.
var (
	ErrNXDomain   = errors.New("no such domain (NXDOMAIN)")
	ErrServFail   = errors.New("the DNS server failed (SERVFAIL)")
	ErrDNSTimeout = errors.New("the DNS query timed out")
)

// TXTResolver looks up the TXT records of a name; each record comes back as one string
// (multi-string records joined without a separator). An existing name without TXT records
// gives an empty slice and no error.
type TXTResolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// DNSResolver queries one DNS server over UDP, retrying over TCP when the answer is truncated.
type DNSResolver struct {
	server  string
	timeout time.Duration
}

// NewDNSResolver uses server ("host:port"); "" means the system resolver of /etc/resolv.conf
// (falling back to 127.0.0.1:53).
func NewDNSResolver(server string, timeout time.Duration) *DNSResolver {
	if server == "" {
		server = "127.0.0.1:53"
		if cfg, err := dns.ClientConfigFromFile("/etc/resolv.conf"); err == nil && len(cfg.Servers) > 0 {
			server = net.JoinHostPort(cfg.Servers[0], cfg.Port)
		}
	}
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &DNSResolver{server: server, timeout: timeout}
}

// LookupTXT implements TXTResolver.
func (r *DNSResolver) LookupTXT(ctx context.Context, name string) ([]string, error) {
	answer, err := r.query(ctx, name, dns.TypeTXT)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, rr := range answer {
		if txt, ok := rr.(*dns.TXT); ok {
			out = append(out, strings.Join(txt.Txt, ""))
		}
	}
	return out, nil
}

// LookupIPAddr implements IPResolver on the same server: the A and AAAA records of host
// (CNAME chains as the server resolves them). It fails only when neither query gives an
// address and one of them failed.
func (r *DNSResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	var out []net.IPAddr
	var firstErr error
	for _, qtype := range []uint16{dns.TypeA, dns.TypeAAAA} {
		answer, err := r.query(ctx, host, qtype)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			if errors.Is(err, ErrNXDomain) {
				break // the name does not exist: no AAAA either
			}
			continue
		}
		for _, rr := range answer {
			switch a := rr.(type) {
			case *dns.A:
				out = append(out, net.IPAddr{IP: a.A})
			case *dns.AAAA:
				out = append(out, net.IPAddr{IP: a.AAAA})
			}
		}
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// query asks the server one question (UDP, then TCP when truncated) and returns the answer
// section of a NOERROR reply.
func (r *DNSResolver) query(ctx context.Context, name string, qtype uint16) ([]dns.RR, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	m.RecursionDesired = true
	m.SetEdns0(4096, false)
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	in, err := r.exchange(ctx, "udp", m)
	if err == nil && in.Truncated {
		in, err = r.exchange(ctx, "tcp", m)
	}
	if err != nil {
		return nil, err
	}
	switch in.Rcode {
	case dns.RcodeSuccess:
	case dns.RcodeNameError:
		return nil, ErrNXDomain
	case dns.RcodeServerFailure:
		return nil, ErrServFail
	default:
		return nil, fmt.Errorf("the DNS server answered %s", dns.RcodeToString[in.Rcode])
	}
	return in.Answer, nil
}

func (r *DNSResolver) exchange(ctx context.Context, network string, m *dns.Msg) (*dns.Msg, error) {
	c := &dns.Client{Net: network, Timeout: r.timeout}
	q := m.Copy()
	q.Id = dns.Id()
	in, _, err := c.ExchangeContext(ctx, q, r.server)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			return nil, ErrDNSTimeout
		}
		return nil, fmt.Errorf("DNS query failed: %w", err)
	}
	return in, nil
}

// NewTXTValue returns a fresh verification value: TXTPrefix + 32 bytes from crypto/rand,
// base64url without padding (43 characters).
func NewTXTValue() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return TXTPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}
