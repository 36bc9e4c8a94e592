// Package dnstest runs a real DNS server on loopback for tests (miekg/dns, UDP and TCP), with
// answers (TXT, A, AAAA) that tests set and change while it runs.
package dnstest

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Behaviour of a name.
type Behaviour int

// What the server does for a name.
const (
	Answer   Behaviour = iota // answer with the name's records of the asked type (none: NOERROR, no data)
	NXDomain                  // the name does not exist
	ServFail                  // the server fails
	Hang                      // never answer (a timeout)
)

// Server is a running test DNS server.
type Server struct {
	Addr  string // host:port, UDP and TCP
	mu    sync.Mutex
	txt   map[string][][]string // name → records → strings
	addrs map[string][]netip.Addr
	modes map[string]Behaviour
	asked map[uint16]int // queries by type
	udp   *dns.Server
	tcp   *dns.Server
	tcpQ  int
}

// Queries counts the queries of a type (dns.TypeA, dns.TypeAAAA, dns.TypeTXT) the server got.
func (s *Server) Queries(qtype uint16) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[qtype]
}

// SetAddrs replaces the addresses of name: IPv4 ones are its A records, IPv6 ones its AAAA
// records.
func (s *Server) SetAddrs(name string, addrs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var as []netip.Addr
	for _, a := range addrs {
		as = append(as, netip.MustParseAddr(a))
	}
	s.addrs[key(name)] = as
	s.modes[key(name)] = Answer
}

// TCPQueries counts the queries that came over TCP (a client retrying a truncated answer).
func (s *Server) TCPQueries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tcpQ
}

// Start runs a server on 127.0.0.1 until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	pc, ln, err := listenUDPAndTCP()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: pc.LocalAddr().String(), txt: map[string][][]string{}, addrs: map[string][]netip.Addr{},
		modes: map[string]Behaviour{}, asked: map[uint16]int{}}
	h := dns.HandlerFunc(s.serve)
	s.udp = &dns.Server{PacketConn: pc, Handler: h}
	s.tcp = &dns.Server{Listener: ln, Handler: h}
	started := make(chan struct{}, 2)
	s.udp.NotifyStartedFunc = func() { started <- struct{}{} }
	s.tcp.NotifyStartedFunc = func() { started <- struct{}{} }
	go func() { _ = s.udp.ActivateAndServe() }()
	go func() { _ = s.tcp.ActivateAndServe() }()
	<-started
	<-started
	t.Cleanup(func() {
		_ = s.udp.Shutdown()
		_ = s.tcp.Shutdown()
	})
	return s
}

func key(name string) string { return strings.ToLower(dns.Fqdn(name)) }

// SetTXT replaces the TXT records of name; each record is given as its strings (a record of
// several strings is a multi-string record).
func (s *Server) SetTXT(name string, records ...[]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.txt[key(name)] = records
	s.modes[key(name)] = Answer
}

// Set makes name behave as b.
func (s *Server) Set(name string, b Behaviour) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modes[key(name)] = b
}

func (s *Server) serve(w dns.ResponseWriter, r *dns.Msg) {
	if len(r.Question) != 1 {
		return
	}
	q := r.Question[0]
	s.mu.Lock()
	if _, isTCP := w.RemoteAddr().(*net.TCPAddr); isTCP {
		s.tcpQ++
	}
	s.asked[q.Qtype]++
	mode, known := s.modes[key(q.Name)]
	records := s.txt[key(q.Name)]
	addrs := s.addrs[key(q.Name)]
	s.mu.Unlock()
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	switch {
	case mode == Hang:
		return
	case mode == ServFail:
		m.Rcode = dns.RcodeServerFailure
	case !known || mode == NXDomain:
		m.Rcode = dns.RcodeNameError
	case q.Qtype == dns.TypeTXT:
		for _, strs := range records {
			m.Answer = append(m.Answer, &dns.TXT{
				Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 300},
				Txt: strs,
			})
		}
	case q.Qtype == dns.TypeA || q.Qtype == dns.TypeAAAA:
		for _, a := range addrs {
			hdr := dns.RR_Header{Name: q.Name, Rrtype: q.Qtype, Class: dns.ClassINET, Ttl: 300}
			switch {
			case a.Is4() && q.Qtype == dns.TypeA:
				m.Answer = append(m.Answer, &dns.A{Hdr: hdr, A: a.AsSlice()})
			case a.Is6() && q.Qtype == dns.TypeAAAA:
				m.Answer = append(m.Answer, &dns.AAAA{Hdr: hdr, AAAA: a.AsSlice()})
			}
		}
	}
	if _, isUDP := w.RemoteAddr().(*net.UDPAddr); isUDP {
		m.Truncate(512) // as a real server does for a client without EDNS buffer beyond 512
		if opt := r.IsEdns0(); opt != nil {
			m.Truncate(int(opt.UDPSize()))
		}
	}
	_ = w.WriteMsg(m)
}

// listenUDPAndTCP binds UDP and TCP on one loopback port. The port comes from the kernel for UDP;
// the same TCP port may be taken (a client connection's ephemeral port, say), so another UDP
// port is tried then.
func listenUDPAndTCP() (net.PacketConn, net.Listener, error) {
	var lastErr error
	for range 50 {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, err
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, ln, nil
		}
		_ = pc.Close()
		lastErr = err
	}
	return nil, nil, fmt.Errorf("dnstest: no loopback port free for both UDP and TCP: %w", lastErr)
}
