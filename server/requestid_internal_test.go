package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// Ids are 32 letters, as echo's were; a process never gives two requests the same id, and two
// processes (two generators) share no prefix.
func TestRequestIDs(t *testing.T) {
	g, err := newRequestIDs()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < 200_000; i++ {
		id := g.next()
		if len(id) != 32 {
			t.Fatalf("id %q: %d characters", id, len(id))
		}
		for _, c := range []byte(id) {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
				t.Fatalf("id %q: not letters only", id)
			}
		}
		if seen[id] {
			t.Fatalf("id %q given twice", id)
		}
		seen[id] = true
	}
	// Counters that differ in their high bits still give different ids (the bijection).
	g.n.Store(1<<63 - 1)
	a, b := g.next(), g.next()
	if a == b || seen[a] || seen[b] {
		t.Fatalf("ids at the counter's top: %q %q", a, b)
	}
	h, err := newRequestIDs()
	if err != nil {
		t.Fatal(err)
	}
	if h.prefix == g.prefix {
		t.Fatalf("two generators drew the same prefix %q", g.prefix)
	}
}

// The middleware keeps an id the request brought and gives one to a request without.
func TestRequestIDMiddleware(t *testing.T) {
	g, err := newRequestIDs()
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	var seen string
	h := g.middleware(func(c echo.Context) error { seen = requestID(c); return c.NoContent(http.StatusNoContent) })
	for _, brought := range []string{"", "client-chosen id"} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		if brought != "" {
			req.Header.Set("X-Request-Id", brought)
		}
		rec := httptest.NewRecorder()
		if err := h(e.NewContext(req, rec)); err != nil {
			t.Fatal(err)
		}
		got := rec.Header().Get("X-Request-Id")
		if brought != "" && got != brought || brought == "" && len(got) != 32 || seen != got {
			t.Errorf("brought %q: answered %q, the handler saw %q", brought, got, seen)
		}
	}
}
