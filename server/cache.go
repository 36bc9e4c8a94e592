package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// lookupCache keeps the rendered answers of latest-version lookups. Every request that may
// write (any method but GET and HEAD) bumps the generation, which empties the cache for this
// instance: a caller always reads its own writes. Other instances sharing the database see a
// change within ttl at most, less than the Cache-Control max-age the answers carry.
type lookupCache struct {
	ttl time.Duration
	max int
	gen atomic.Uint64
	mu  sync.RWMutex
	m   map[string]cachedLookup
}

// cachedLookup is a rendered 200 answer of a lookup.
type cachedLookup struct {
	body     []byte
	etag, cc string
	digest   string
	gen      uint64
	storedAt time.Time
}

func newLookupCache(ttl time.Duration, max int) *lookupCache {
	if ttl <= 0 || max <= 0 {
		return nil
	}
	return &lookupCache{ttl: ttl, max: max, m: make(map[string]cachedLookup)}
}

// invalidate drops every entry (cheaply: entries of an older generation never match).
func (c *lookupCache) invalidate() {
	if c != nil {
		c.gen.Add(1)
	}
}

func (c *lookupCache) get(key string, now time.Time) (cachedLookup, bool) {
	if c == nil {
		return cachedLookup{}, false
	}
	c.mu.RLock()
	e, ok := c.m[key]
	c.mu.RUnlock()
	if !ok || e.gen != c.gen.Load() || now.Sub(e.storedAt) > c.ttl {
		return cachedLookup{}, false
	}
	return e, true
}

// put stores a rendered answer read at now, unless a write happened since gen was read.
func (c *lookupCache) put(key string, gen uint64, now time.Time, e cachedLookup) {
	if c == nil || gen != c.gen.Load() {
		return
	}
	e.gen, e.storedAt = gen, now
	c.mu.Lock()
	if len(c.m) >= c.max {
		// Drop about half, oldest generation first is not tracked: any half will do for a
		// cache whose entries live ttl at most.
		n := 0
		for k := range c.m {
			delete(c.m, k)
			if n++; n >= c.max/2 {
				break
			}
		}
	}
	c.m[key] = e
	c.mu.Unlock()
}

// render encodes a lookup answer once, as the generated handler would.
func render(v any, digest string, ttl int64) (cachedLookup, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return cachedLookup{}, err
	}
	etag, cc := cacheHeaders(digest, ttl)
	return cachedLookup{body: buf.Bytes(), etag: *etag, cc: *cc, digest: digest}, nil
}

// write sends a rendered answer.
func (e cachedLookup) write(w http.ResponseWriter) error {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("ETag", e.etag)
	h.Set("Cache-Control", e.cc)
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(e.body)
	return err
}

// The rendered answer satisfies each lookup's response interface.
func (e cachedLookup) VisitLookupNamespaceResponse(w http.ResponseWriter) error { return e.write(w) }
func (e cachedLookup) VisitLookupRegistryResponse(w http.ResponseWriter) error  { return e.write(w) }
func (e cachedLookup) VisitLookupRecordResponse(w http.ResponseWriter) error    { return e.write(w) }
