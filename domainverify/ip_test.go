package domainverify

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// specialPurpose is every block of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (iana-ipv4-special-registry, iana-ipv6-special-registry; RFC 6890, RFC 8190), as the
// registries stood in their 2025 editions, with the multicast blocks beside them. Each is
// written out here, by the test, so that a block dropped from nonPublic fails it.
var specialPurpose = []struct{ prefix, name string }{
	// IPv4
	{"0.0.0.0/8", "this network"},
	{"0.0.0.0/32", "this host on this network"},
	{"10.0.0.0/8", "private use"},
	{"100.64.0.0/10", "shared address space (CGNAT)"},
	{"127.0.0.0/8", "loopback"},
	{"169.254.0.0/16", "link local (cloud metadata)"},
	{"172.16.0.0/12", "private use"},
	{"192.0.0.0/24", "IETF protocol assignments"},
	{"192.0.0.0/29", "IPv4 service continuity prefix"},
	{"192.0.0.8/32", "IPv4 dummy address"},
	{"192.0.0.9/32", "port control protocol anycast"},
	{"192.0.0.10/32", "traversal using relays around NAT anycast"},
	{"192.0.0.170/32", "NAT64/DNS64 discovery"},
	{"192.0.0.171/32", "NAT64/DNS64 discovery"},
	{"192.0.2.0/24", "documentation (TEST-NET-1)"},
	{"192.31.196.0/24", "AS112-v4"},
	{"192.52.193.0/24", "AMT"},
	{"192.88.99.0/24", "deprecated 6to4 relay anycast"},
	{"192.88.99.2/32", "6a44 relay anycast"},
	{"192.168.0.0/16", "private use"},
	{"192.175.48.0/24", "direct delegation AS112 service"},
	{"198.18.0.0/15", "benchmarking"},
	{"198.51.100.0/24", "documentation (TEST-NET-2)"},
	{"203.0.113.0/24", "documentation (TEST-NET-3)"},
	{"240.0.0.0/4", "reserved"},
	{"255.255.255.255/32", "limited broadcast"},
	{"224.0.0.0/4", "multicast (its own registry)"},
	// IPv6
	{"::1/128", "loopback"},
	{"::/128", "unspecified"},
	{"::ffff:0:0/96", "IPv4-mapped"},
	{"64:ff9b::/96", "IPv4-IPv6 translation (NAT64 well-known prefix)"},
	{"64:ff9b:1::/48", "IPv4-IPv6 translation (NAT64 local use)"},
	{"100::/64", "discard-only"},
	{"100:0:0:1::/64", "dummy IPv6 prefix"},
	{"2001::/23", "IETF protocol assignments"},
	{"2001::/32", "Teredo"},
	{"2001:1::1/128", "port control protocol anycast"},
	{"2001:1::2/128", "traversal using relays around NAT anycast"},
	{"2001:1::3/128", "DNS-SD service registration protocol anycast"},
	{"2001:2::/48", "benchmarking"},
	{"2001:3::/32", "AMT"},
	{"2001:4:112::/48", "AS112-v6"},
	{"2001:10::/28", "deprecated ORCHID"},
	{"2001:20::/28", "ORCHIDv2"},
	{"2001:30::/28", "drone remote ID entity tags"},
	{"2001:db8::/32", "documentation"},
	{"2002::/16", "6to4"},
	{"2620:4f:8000::/48", "direct delegation AS112 service"},
	{"3fff::/20", "documentation"},
	{"5f00::/16", "segment routing (SRv6) SIDs"},
	{"fc00::/7", "unique local"},
	{"fe80::/10", "link-local unicast"},
	{"ff00::/8", "multicast (its own registry)"},
}

// lastOf is the last address of p.
func lastOf(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// embedded are the IPv6 forms that carry an IPv4 address v4: mapped, NAT64 (both prefixes),
// 6to4 (the /48 of the address) and Teredo (the client address, inverted, in the last 32 bits;
// the server 192.0.2.1 before it).
func embedded(v4 netip.Addr) map[string]netip.Addr {
	b := v4.As4()
	at := func(prefix [16]byte, off int, x [4]byte) netip.Addr {
		copy(prefix[off:], x[:])
		return netip.AddrFrom16(prefix)
	}
	inv := [4]byte{^b[0], ^b[1], ^b[2], ^b[3]}
	teredo := netip.MustParseAddr("2001:0:c000:201::").As16()
	sixToFour := netip.MustParseAddr("2002::1").As16()
	return map[string]netip.Addr{
		"mapped":                  netip.AddrFrom16(v4.As16()),
		"NAT64":                   at(netip.MustParseAddr("64:ff9b::").As16(), 12, b),
		"NAT64 local":             at(netip.MustParseAddr("64:ff9b:1::").As16(), 12, b),
		"6to4":                    at(sixToFour, 2, b),
		"Teredo":                  at(teredo, 12, inv),
		"IPv4-compat.":            at([16]byte{}, 12, b),
		"SIIT (::ffff:0:a.b.c.d)": at(netip.MustParseAddr("::ffff:0:0:0").As16(), 12, b),
	}
}

// Every special-purpose block is refused, at its first and last address and in every form:
// plain, with a zone, and, for IPv4 blocks, IPv4-mapped, NAT64 (64:ff9b::/96 and
// 64:ff9b:1::/48), 6to4 and Teredo, each of those zoned too. Public addresses pass plain
// and are refused zoned or embedded.
func TestIsPublicIPSpecialPurposeRegistries(t *testing.T) {
	refuse := func(what string, a netip.Addr) {
		t.Helper()
		if IsPublicIP(a) {
			t.Errorf("%s: IsPublicIP(%s) = true", what, a)
		}
		for _, zone := range []string{"lo", "eth0", "1"} {
			if a.Is6() {
				if z := a.WithZone(zone); IsPublicIP(z) {
					t.Errorf("%s: IsPublicIP(%s) = true", what, z)
				}
			}
		}
	}
	for _, sp := range specialPurpose {
		p := netip.MustParsePrefix(sp.prefix)
		for _, a := range []netip.Addr{p.Addr(), lastOf(p)} {
			what := sp.prefix + " " + sp.name
			refuse(what, a)
			if a.Is4() {
				refuse(what+" as mapped (::ffff:a.b.c.d)", netip.AddrFrom16(a.As16()))
				for form, e := range embedded(a) {
					refuse(what+" as "+form, e)
				}
			}
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2a00:1450:4001:81c::200e"} {
		a := netip.MustParseAddr(s)
		if !IsPublicIP(a) {
			t.Errorf("IsPublicIP(%s) = false; want a public address to pass", a)
		}
		if a.Is6() {
			if z := a.WithZone("eth0"); IsPublicIP(z) {
				t.Errorf("IsPublicIP(%s) = true; want a zoned address refused", z)
			}
			continue
		}
		for form, e := range embedded(a) {
			if IsPublicIP(e) || IsPublicIP(e.WithZone("lo")) {
				t.Errorf("IsPublicIP(%s, %s) = true; want embedded forms refused", e, form)
			}
		}
	}
	// The forms of the probe that found the hole.
	for _, s := range []string{"fd00:ec2::254%lo", "fc00::1%lo", "64:ff9b::a9fe:a9fe%eth0", "2002:7f00:1::1%lo", "2606:4700:4700::1111%eth0"} {
		if IsPublicIP(netip.MustParseAddr(s)) {
			t.Errorf("IsPublicIP(%s) = true", s)
		}
	}
}

// A zoned literal is refused by the one vetting path of every outbound fetch, even by a
// caller that admits every address (the insecure test mode), and a mapped literal is judged
// as the IPv4 address it carries.
func TestResolveVettedRefusesZones(t *testing.T) {
	all := func(netip.Addr) bool { return true }
	for _, host := range []string{"fd00:ec2::254%lo", "2606:4700:4700::1111%eth0", "::1%lo", "::ffff:8.8.8.8%lo"} {
		for _, allow := range []func(netip.Addr) bool{IsPublicIP, all, nil} {
			if a, err := ResolveVetted(context.Background(), nil, host, allow); !errors.Is(err, ErrNonPublicAddress) {
				t.Errorf("ResolveVetted(%s) = %v, %v; want refused", host, a, err)
			}
		}
	}
	if _, err := ResolveVetted(context.Background(), nil, "::ffff:127.0.0.1", IsPublicIP); !errors.Is(err, ErrNonPublicAddress) {
		t.Errorf("a mapped loopback literal: %v", err)
	}
	if a, err := ResolveVetted(context.Background(), nil, "::ffff:8.8.8.8", IsPublicIP); err != nil || a != netip.MustParseAddr("8.8.8.8") {
		t.Errorf("a mapped public literal: %v, %v", a, err)
	}
}
