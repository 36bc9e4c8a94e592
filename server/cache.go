package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/svc-directory/svc/internal/cache"
)

// The lookup cache (Server.cache) keeps the rendered answers of latest-version lookups, by
// lookupKey. The store reports every committed write (store.OnCommit), which empties it: a
// caller always reads its own writes, and a request that writes nothing leaves it alone. Other
// instances sharing the database see a change within its TTL at most, less than the
// Cache-Control max-age the answers carry.
func newLookupCache(ttl time.Duration, max int, now func() time.Time) *cache.Cache[string, cachedLookup] {
	if ttl <= 0 {
		return nil
	}
	return cache.New[string, cachedLookup](cache.Options{MaxSize: max, TTL: ttl, Now: now})
}

// cachedLookup is a rendered 200 answer of a lookup.
type cachedLookup struct {
	body     []byte
	etag, cc string
	digest   string
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
