package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
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
	if e.etag != "" { // none on a lookup with prove=current
		h.Set("ETag", e.etag)
	}
	h.Set("Cache-Control", e.cc)
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(e.body)
	return err
}

// The rendered answer satisfies each lookup's response interface.
func (e cachedLookup) VisitLookupNamespaceResponse(w http.ResponseWriter) error { return e.write(w) }
func (e cachedLookup) VisitLookupRegistryResponse(w http.ResponseWriter) error  { return e.write(w) }
func (e cachedLookup) VisitLookupRecordResponse(w http.ResponseWriter) error    { return e.write(w) }

// cacheRule is the one rule of the audience of GET answers (docs/api-guide.md, Caching): a
// handler says how long its answer stays fresh (Cache-Control: public, max-age=<ttl> for a
// lookup, a tile's immutability) and this says who may share it. An operation the contract
// declares to answer every caller alike (sameAnswerExt) keeps its answer as it is. Any other
// GET answer (errors and 304 included) may differ by caller, so it varies with the
// Authorization header: the anonymous answer stays as the handler made it (public when it says
// so) and the answer to a request with an Authorization header (keyed), valid or not, is
// private, never to be kept by a shared cache.
func cacheRule(h http.Header, op *operation, method string, keyed bool) {
	if method != http.MethodGet || op.sameForEveryCaller {
		return
	}
	h.Add("Vary", "Authorization")
	if keyed {
		h.Set("Cache-Control", privately(h.Get("Cache-Control")))
	}
}

// privately turns a Cache-Control value into the same for one caller's cache only: public and
// private are replaced by private, and s-maxage, which only shared caches read, is dropped.
func privately(cc string) string {
	out := "private"
	for _, d := range strings.Split(cc, ",") {
		d = strings.TrimSpace(d)
		name, _, _ := strings.Cut(d, "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "", "public", "private", "s-maxage":
			continue
		}
		out += ", " + d
	}
	return out
}
