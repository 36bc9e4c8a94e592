// Package domainverify holds the network checks of domain verification: the domain forms, the
// verification value, DNS TXT look-ups and the hardened HTTP fetch, each behind a small
// interface so that callers and tests can swap them.
package domainverify

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// TXTPrefix starts every verification value; WellKnownPath is where self_http serves it.
const (
	TXTPrefix     = "svc-verification="
	WellKnownPath = "/.well-known/svc-verification.txt"
)

var idnaProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false), idna.StrictDomainName(true), idna.ValidateLabels(true))

// NormalizeDomain turns user input into the canonical form of a domain: lowercase, no trailing
// dot, IDNs as punycode. It requires a dot and valid labels, and refuses wildcards, IP
// addresses, ports, paths and schemes. Errors are fit for a 400 message.
func NormalizeDomain(s string) (string, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return "", fmt.Errorf("invalid domain format: empty")
	}
	if strings.ContainsAny(in, "*") {
		return "", fmt.Errorf("invalid domain format: wildcards are not allowed")
	}
	if strings.ContainsAny(in, "/:@?#[] \t") {
		return "", fmt.Errorf("invalid domain format: %q is not a bare domain (no scheme, port or path)", s)
	}
	in = strings.TrimSuffix(in, ".")
	if _, err := netip.ParseAddr(in); err == nil {
		return "", fmt.Errorf("invalid domain format: %q is an IP address", s)
	}
	d, err := idnaProfile.ToASCII(in)
	if err != nil {
		return "", fmt.Errorf("invalid domain format: %q: %v", s, err)
	}
	d = strings.ToLower(d)
	if len(d) > 253 {
		return "", fmt.Errorf("invalid domain format: longer than 253 characters")
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return "", fmt.Errorf("invalid domain format: %q has no dot", s)
	}
	for _, l := range labels {
		if err := checkLabel(l); err != nil {
			return "", fmt.Errorf("invalid domain format: %q: %v", s, err)
		}
	}
	if isAllDigits(labels[len(labels)-1]) {
		return "", fmt.Errorf("invalid domain format: %q has a numeric top-level label", s)
	}
	return d, nil
}

func checkLabel(l string) error {
	if l == "" {
		return fmt.Errorf("empty label")
	}
	if len(l) > 63 {
		return fmt.Errorf("label longer than 63 characters")
	}
	if l[0] == '-' || l[len(l)-1] == '-' {
		return fmt.Errorf("label %q starts or ends with a hyphen", l)
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("label %q has the character %q", l, c)
		}
	}
	return nil
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// NormalizeAllowPattern normalizes an operator's allow-list entry: a domain, or "*." followed
// by a domain (every subdomain of it, at any depth, but not the domain itself).
func NormalizeAllowPattern(s string) (string, error) {
	p := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(p, "*."); ok {
		d, err := NormalizeDomain(rest)
		if err != nil {
			return "", err
		}
		return "*." + d, nil
	}
	return NormalizeDomain(p)
}

// MatchAllowPattern reports whether a normalized domain is covered by a normalized pattern.
func MatchAllowPattern(pattern, domain string) bool {
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(domain, "."+rest)
	}
	return pattern == domain
}
