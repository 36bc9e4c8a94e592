package webhook

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/svc-directory/svc/domainverify"
)

// The one rule of webhook URLs (docs/webhooks.md, "Which URLs are accepted"): CheckURL reads
// a URL at creation and again at each delivery, with the same parser and normalisation, so
// that a URL is refused at creation exactly when its delivery would be refused for its form.
// Hosts are read as a browser reads them (the WHATWG URL host parser): case folded, IDNs as
// punycode, a trailing dot dropped, and a host that ends in a number read as an IPv4 address
// in any of the forms inet_aton takes (127.1, 2130706433, 0x7f.0.0.1, 0177.0.0.1).

// MaxURL is the longest webhook URL taken.
const MaxURL = 2048

// hostMapping folds a host as a URL parser does before it is judged (UTS #46, non-transitional).
var hostMapping = idna.New(idna.MapForLookup(), idna.Transitional(false))

// CheckURL refuses a webhook URL that can never be delivered to: not absolute https (http
// too when insecure), with credentials or a fragment, too long, a host that is neither a
// domain name nor an address, a local name (localhost and names under it), or an address
// that is not public (domainverify.IsPublicIP: zoned IPv6 addresses included). It answers the
// URL normalised: the host in canonical form, the default port dropped. A host name is
// resolved at each delivery, and every address it resolves to is judged then.
func CheckURL(raw string, insecure bool) (*url.URL, error) {
	if len(raw) > MaxURL {
		return nil, fmt.Errorf("%w: longer than %d characters", ErrRefusedURL, MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%w: not an absolute URL", ErrRefusedURL)
	}
	if u.Scheme != "https" && !(insecure && u.Scheme == "http") {
		return nil, fmt.Errorf("%w: the scheme must be https", ErrRefusedURL)
	}
	if u.User != nil || u.Fragment != "" || strings.HasSuffix(raw, "#") {
		return nil, fmt.Errorf("%w: no credentials or fragment", ErrRefusedURL)
	}
	port := u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: port %.10q is not a port number", ErrRefusedURL, port)
		}
		if port == map[string]string{"http": "80", "https": "443"}[u.Scheme] {
			port = ""
		}
	}
	host, addr, err := normalHost(u)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrRefusedURL, err)
	}
	switch {
	case addr.IsValid() && !addrAllowed(addr, insecure):
		return nil, fmt.Errorf("%w: %s is not a public address", ErrRefusedURL, addr)
	case !addr.IsValid() && !insecure && isLocalName(host):
		return nil, fmt.Errorf("%w: %s is not a public host", ErrRefusedURL, host)
	}
	switch {
	case port != "":
		u.Host = net.JoinHostPort(host, port)
	case addr.Is6():
		u.Host = "[" + host + "]"
	default:
		u.Host = host
	}
	return u, nil
}

// addrAllowed is the address rule of both CheckURL and the delivery's resolution: public, or
// loopback in the insecure test mode; never an address with a zone.
func addrAllowed(a netip.Addr, insecure bool) bool {
	return domainverify.IsPublicIP(a) || insecure && a.Zone() == "" && a.Unmap().IsLoopback()
}

// isLocalName: localhost and the names under it (RFC 6761), which resolve to this machine.
func isLocalName(host string) bool {
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// normalHost reads u's host: an IPv6 literal in brackets, an IPv4 address in any form a URL
// parser takes, or a domain name (domainverify.NormalizeDomain; in the test mode also the
// single label localhost). The address is valid when the host is one.
func normalHost(u *url.URL) (string, netip.Addr, error) {
	h := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() {
			return "", netip.Addr{}, fmt.Errorf("%.60q is not an IPv6 address", h)
		}
		if a.Zone() != "" {
			return "", netip.Addr{}, fmt.Errorf("%s is not a public address (it has a zone)", a)
		}
		a = a.Unmap() // a mapped address is judged, and written, as the IPv4 address it carries
		return a.String(), a, nil
	}
	mapped, err := hostMapping.ToASCII(h)
	if err != nil {
		return "", netip.Addr{}, fmt.Errorf("%.60q is not a host name: %v", h, err)
	}
	mapped = strings.TrimSuffix(strings.ToLower(mapped), ".")
	if endsInNumber(mapped) {
		a, err := parseIPv4(mapped)
		if err != nil {
			return "", netip.Addr{}, fmt.Errorf("%.60q is not an IPv4 address: %v", h, err)
		}
		return a.String(), a, nil
	}
	if mapped == "localhost" {
		return mapped, netip.Addr{}, nil
	}
	d, err := domainverify.NormalizeDomain(mapped)
	if err != nil {
		return "", netip.Addr{}, fmt.Errorf("%.60q is not a host name", h)
	}
	return d, netip.Addr{}, nil
}

// endsInNumber: the last label is decimal digits, or 0x followed by hex digits (WHATWG URL,
// "ends in a number checker"): such a host is an IPv4 address or nothing.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	if rest, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.Trim(rest, "0123456789abcdef") == ""
	}
	return false
}

// parseIPv4 reads an IPv4 address as a URL parser does: one to four parts, each decimal,
// octal (a leading 0) or hexadecimal (0x); the last part fills the bytes the others leave.
func parseIPv4(host string) (netip.Addr, error) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, fmt.Errorf("more than four parts")
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			p, base = p[2:], 16
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		n, err := strconv.ParseUint(p, base, 64)
		if err != nil || p == "" || strings.HasPrefix(p, "+") {
			return netip.Addr{}, fmt.Errorf("part %d is not a number", i+1)
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, fmt.Errorf("part %d is larger than 255", i+1)
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, fmt.Errorf("the last part is too large")
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}
