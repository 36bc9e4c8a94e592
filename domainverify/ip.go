package domainverify

import "net/netip"

// nonPublic lists the ranges a verification fetch must never reach.
var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
		"::/128", "::1/128", "::ffff:0:0/96", "::/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/32",
		"2001:2::/48", "2001:db8::/32", "2001:10::/28", "2001:20::/28", "2002::/16", "fc00::/7", "fe80::/10",
		"fec0::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// IsPublicIP reports whether ip is a public unicast address: not loopback, private,
// link-local (including cloud metadata 169.254.169.254 and fd00:ec2::254), CGNAT, multicast,
// unspecified, broadcast, documentation, benchmarking or reserved, and not an IPv6 form that
// embeds an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo).
func IsPublicIP(ip netip.Addr) bool {
	if !ip.IsValid() {
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
