package domainverify

import "net/netip"

// nonPublic lists the ranges an outbound fetch (verification, webhooks) must never reach: every
// block of the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 as amended by
// RFC 8190; the blocks as of the registries' 2025 editions), the globally reachable anycast
// blocks among them included (no verification file or webhook receiver lives at a PCP, TURN,
// AMT or AS112 anycast address), and beside them multicast, the deprecated IPv4-compatible
// and site-local forms, and the IPv4-translated form of SIIT.
var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		// IPv4 Special-Purpose Address Registry.
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16",
		"192.175.48.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
		"224.0.0.0/4", // multicast (its own registry)
		// IPv6 Special-Purpose Address Registry (2001::/23 holds Teredo, PCP, TURN, DNS-SD SRP,
		// benchmarking, AMT, AS112, ORCHID, ORCHIDv2 and DRIP DETs).
		"::/128", "::1/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64",
		"2001::/23", "2001:db8::/32", "2002::/16", "2620:4f:8000::/48", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
		// Beside the registry: IPv4-compatible (deprecated), SIIT's IPv4-translated, site-local
		// (deprecated), multicast.
		"::/96", "::ffff:0:0:0/96", "fec0::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// IsPublicIP reports whether ip is a public unicast address: not loopback, private,
// link-local (including cloud metadata 169.254.169.254 and fd00:ec2::254), CGNAT, multicast,
// unspecified, broadcast, documentation, benchmarking or reserved, not in any other block of
// the IANA special-purpose registries, and not an IPv6 form that embeds an IPv4 address
// (mapped, compatible, NAT64, 6to4, Teredo). An address with a zone (fe80::1%eth0,
// fd00::1%lo) is never public: a zone names an interface of this machine, and a zoned
// address matches no prefix, so it is refused before any range is looked at.
func IsPublicIP(ip netip.Addr) bool {
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	if ip.Is4In6() {
		return false // mapped forms are never contacted directly
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return ip.IsGlobalUnicast()
}
