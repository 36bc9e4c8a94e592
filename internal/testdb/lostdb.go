package testdb

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// LosablePostgres is a loopback proxy in front of a Postgres server that a test can take away
// and bring back, as an operator's kill -9 and restart (or a promotion elsewhere) would: Lose
// closes its port (connections are refused) and every connection through it; Restore listens
// on the same port again.
type LosablePostgres struct {
	t      testing.TB
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
}

// LosingPostgres returns a copy of the Postgres URL u that goes through a LosablePostgres, and
// the proxy. The proxy stops when the test ends.
func LosingPostgres(t testing.TB, u string) (string, *LosablePostgres) {
	t.Helper()
	target, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p := &LosablePostgres{t: t, target: target.Host, conns: map[net.Conn]struct{}{}}
	p.listen("127.0.0.1:0")
	t.Cleanup(p.Lose)
	proxied := *target
	proxied.Host = p.addr
	return proxied.String(), p
}

// Addr is the proxy's host:port.
func (p *LosablePostgres) Addr() string { return p.addr }

func (p *LosablePostgres) listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", p.target)
			if err != nil {
				_ = client.Close()
				continue
			}
			p.mu.Lock()
			p.conns[client], p.conns[server] = struct{}{}, struct{}{}
			p.mu.Unlock()
			go func() { _, _ = io.Copy(client, server); _ = client.Close() }()
			go func() { _, _ = io.Copy(server, client); _ = server.Close() }()
		}
	}()
}

// Lose closes the port and every connection through it.
func (p *LosablePostgres) Lose() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
}

// Restore listens on the same port again.
func (p *LosablePostgres) Restore() { p.listen(p.addr) }
