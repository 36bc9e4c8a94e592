package testdb

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// StatementCounter counts what clients send a Postgres server through a loopback proxy: the
// statements they execute (a simple-protocol Query, or an extended-protocol Execute, each is
// one) and their round trips (a Query or a Sync, each waits for the server's answer). It reads
// the frontend protocol only; it changes nothing that passes through, so the store under test
// runs exactly as in production (no hook in its code).
type StatementCounter struct {
	statements, roundTrips atomic.Int64
	mu                     sync.Mutex
	texts                  []string
}

// pgxPing is the statement pgx's database/sql driver checks an idle connection with.
const pgxPing = "-- ping"

// Counts returns the statements and round trips seen so far.
func (c *StatementCounter) Counts() (statements, roundTrips int64) {
	return c.statements.Load(), c.roundTrips.Load()
}

// Statements returns the text of every statement executed since the last Reset, in order.
func (c *StatementCounter) Statements() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.texts...)
}

// Reset sets the counts to zero and forgets the statements.
func (c *StatementCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.statements.Store(0)
	c.roundTrips.Store(0)
	c.texts = nil
}

func (c *StatementCounter) executed(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.statements.Add(1)
	c.texts = append(c.texts, text)
}

// CountingPostgres returns a copy of the Postgres URL u that goes through a counting proxy on
// loopback (SSL off: the proxy reads the messages), and the proxy's counter. The proxy stops
// when the test ends.
func CountingPostgres(t testing.TB, u string) (string, *StatementCounter) {
	t.Helper()
	target, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &StatementCounter{}
	var wg sync.WaitGroup
	var conns sync.Map
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target.Host)
			if err != nil {
				_ = client.Close()
				continue
			}
			conns.Store(client, server)
			wg.Add(2)
			go func() { defer wg.Done(); _, _ = io.Copy(client, server); _ = client.Close() }()
			go func() { defer wg.Done(); c.relay(server, client); _ = server.Close() }()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		conns.Range(func(k, v any) bool { _ = k.(net.Conn).Close(); _ = v.(net.Conn).Close(); return true })
		wg.Wait()
	})
	proxied := *target
	proxied.Host = ln.Addr().String()
	q := proxied.Query()
	q.Set("sslmode", "disable")
	proxied.RawQuery = q.Encode()
	return proxied.String(), c
}

// relay copies the client's messages to the server, counting them. The first message (the
// startup message, or an SSL or GSS request before it) has no type byte. A Parse names a
// statement's text, a Bind binds a statement to a portal, an Execute runs the portal.
func (c *StatementCounter) relay(server io.Writer, client io.Reader) {
	head := make([]byte, 5)
	untyped := true
	prepared := map[string]string{} // statement name -> text
	portals := map[string]string{}  // portal name -> statement text
	for {
		n := 5
		if untyped {
			n = 4
		}
		if _, err := io.ReadFull(client, head[:n]); err != nil {
			return
		}
		var length uint32
		if untyped {
			length = binary.BigEndian.Uint32(head[:4])
		} else {
			length = binary.BigEndian.Uint32(head[1:5])
		}
		if length < 4 {
			return
		}
		body := make([]byte, length-4)
		if _, err := io.ReadFull(client, body); err != nil {
			return
		}
		if untyped {
			// An SSLRequest (80877103) or GSSENCRequest (80877104) is followed by another
			// untyped startup message; the startup message itself ends the untyped part.
			code := uint32(0)
			if len(body) >= 4 {
				code = binary.BigEndian.Uint32(body[:4])
			}
			untyped = code == 80877103 || code == 80877104
		} else {
			switch head[0] {
			case 'Q':
				// pgx checks a pooled connection that sat idle for a second before it hands
				// it out again, with an empty query: the driver's, not the code's under test.
				if q := cstring(body, 0); q != pgxPing {
					c.executed(q)
					c.roundTrips.Add(1)
				}
			case 'P':
				name := cstring(body, 0)
				prepared[name] = cstring(body, len(name)+1)
			case 'B':
				portal := cstring(body, 0)
				portals[portal] = prepared[cstring(body, len(portal)+1)]
			case 'E':
				c.executed(portals[cstring(body, 0)])
			case 'S':
				c.roundTrips.Add(1)
			}
		}
		if _, err := server.Write(head[:n]); err != nil {
			return
		}
		if _, err := server.Write(body); err != nil && !errors.Is(err, net.ErrClosed) {
			return
		}
	}
}

// cstring is the NUL-terminated string of b at off.
func cstring(b []byte, off int) string {
	if off > len(b) {
		return ""
	}
	for i := off; i < len(b); i++ {
		if b[i] == 0 {
			return string(b[off:i])
		}
	}
	return string(b[off:])
}
