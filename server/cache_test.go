package server

import (
	"testing"
	"time"
)

func TestLookupCache(t *testing.T) {
	if newLookupCache(0, 10) != nil {
		t.Fatal("a zero ttl must turn the cache off")
	}
	var off *lookupCache
	off.invalidate() // a nil cache is usable and empty
	if _, ok := off.get("k", time.Now()); ok {
		t.Fatal("nil cache hit")
	}
	c := newLookupCache(time.Second, 4)
	now := time.Now()
	g := c.gen.Load()
	c.put("a", g, now, cachedLookup{body: []byte("A")})
	if e, ok := c.get("a", now.Add(500*time.Millisecond)); !ok || string(e.body) != "A" {
		t.Fatal("fresh entry missed")
	}
	if _, ok := c.get("a", now.Add(2*time.Second)); ok {
		t.Fatal("entry older than the ttl served")
	}
	c.invalidate()
	if _, ok := c.get("a", now); ok {
		t.Fatal("entry served after a write")
	}
	// A read that started before a write must not store what it read.
	c.put("b", g, now, cachedLookup{body: []byte("B")})
	if _, ok := c.get("b", now); ok {
		t.Fatal("stale fill stored")
	}
	g = c.gen.Load()
	for _, k := range []string{"1", "2", "3", "4", "5", "6"} {
		c.put(k, g, now, cachedLookup{})
	}
	if len(c.m) > 4 {
		t.Fatalf("cache holds %d entries, bound is 4", len(c.m))
	}
}
