package server

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestLimiterTablesAreBounded: however many addresses and keys come by, each table keeps at
// most Clients buckets, and a key gets a bucket only by authenticating.
func TestLimiterTablesAreBounded(t *testing.T) {
	l := newLimiter(RateLimit{RPS: 1, Burst: 5, Clients: 100})
	now := time.Now()
	for i := range 10_000 {
		k := hashKey(fmt.Sprintf("svc_unknown_%d", i))
		l.allow(clientKeyOf(fmt.Sprintf("10.0.%d.%d", i/256, i%256)), &k, now)
	}
	if l.addrs.Len() != 100 || l.keys.Len() != 0 {
		t.Fatalf("after 10,000 addresses with unknown keys: %d address buckets, %d key buckets; want 100, 0", l.addrs.Len(), l.keys.Len())
	}
	for i := range 10_000 {
		l.authenticated(hashKey(fmt.Sprintf("svc_valid_%d", i)))
	}
	if l.keys.Len() != 100 {
		t.Fatalf("after 10,000 authenticated keys: %d key buckets; want 100", l.keys.Len())
	}
	k := hashKey("svc_valid_9999")
	l.failed(k)
	if l.keys.Contains(k) {
		t.Fatal("a key that failed to authenticate kept its bucket")
	}
}

// TestLimiterMemory: full tables of the default size stay within 24 MiB (about 16 MiB measured).
func TestLimiterMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := newLimiter(RateLimit{RPS: 1, Burst: 5})
	now := time.Now()
	for i := range defaultClients {
		l.allow(clientKeyOf(fmt.Sprintf("2001:db8:%x:%x::1", i>>16, i&0xffff)), nil, now)
		l.authenticated(hashKey(fmt.Sprintf("svc_valid_%d", i)))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	mib := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / (1 << 20)
	t.Logf("%d address and %d key buckets: %.1f MiB", l.addrs.Len(), l.keys.Len(), mib)
	if l.addrs.Len() != defaultClients || l.keys.Len() != defaultClients || mib > 24 {
		t.Fatalf("%d address and %d key buckets take %.1f MiB; want %d each within 24 MiB", l.addrs.Len(), l.keys.Len(), mib, defaultClients)
	}
}

// The client of an address: IPv4 addresses each, IPv6 addresses by their /64, the IPv4-mapped
// form as the IPv4 address, anything else by its text.
func TestClientKeyOf(t *testing.T) {
	same := [][2]string{
		{"192.0.2.1", "::ffff:192.0.2.1"},
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"},
		{"not an address", "not an address"},
	}
	for _, p := range same {
		if clientKeyOf(p[0]) != clientKeyOf(p[1]) {
			t.Errorf("%s and %s are different clients", p[0], p[1])
		}
	}
	different := [][2]string{
		{"192.0.2.1", "192.0.2.2"},
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"fe80::1%eth0", "fe80::1%eth1"},
		{"fe80::1%eth0", "fe80::1"},
		{"a", "b"},
	}
	for _, p := range different {
		if clientKeyOf(p[0]) == clientKeyOf(p[1]) {
			t.Errorf("%s and %s are the same client", p[0], p[1])
		}
	}
}
