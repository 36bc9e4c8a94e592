package dedi

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/svc-directory/svc/internal/cache"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/recordschema"
)

// SchemaFetcher fetches the JSON Schema that a registry names by URL. A crawler gives its
// hardened fetcher (dedi/fetch), under the same rules as the files.
type SchemaFetcher interface {
	FetchSchema(ctx context.Context, url string) ([]byte, error)
}

// Schemas resolves registry schemas named by URL and keeps the compiled ones in a bounded
// cache, each for ttl. Safe for concurrent use.
type Schemas struct {
	fetch SchemaFetcher
	cache *cache.Cache[string, *recordschema.Schema]
}

// MaxSchemaBytes caps a fetched schema document.
const MaxSchemaBytes = 1 << 20

// NewSchemas caches up to max compiled schemas (default 1000) for ttl each (default 1h); now is
// the cache's clock (nil: time.Now).
func NewSchemas(f SchemaFetcher, max int, ttl time.Duration, now func() time.Time) *Schemas {
	if max <= 0 {
		max = 1000
	}
	if ttl <= 0 {
		ttl = time.Hour
	}
	return &Schemas{fetch: f, cache: cache.New[string, *recordschema.Schema](cache.Options{MaxSize: max, TTL: ttl, Now: now})}
}

// Get returns the compiled schema at url: the pinned copy for a URL that names a core schema
// (CoreSchemaFor; never fetched, so it works offline and on a nil *Schemas), else the fetched
// one, fetching it on a miss. Any failure (fetch, size, not JSON, not a JSON Schema that stands
// alone) is SchemaUnavailable: the file waits for it.
func (s *Schemas) Get(ctx context.Context, url string) (*recordschema.Schema, error) {
	if c := CoreSchemaFor(url); c != nil {
		if cs := c.compiled(); cs != nil {
			return cs, nil
		}
	}
	if s == nil || s.fetch == nil {
		return nil, fail(SchemaUnavailable, "the registry's schema %s cannot be fetched here", shorten(url, 200))
	}
	if c, ok := s.cache.Get(url); ok {
		return c, nil
	}
	b, err := s.fetch.FetchSchema(ctx, url)
	if err != nil {
		return nil, fail(SchemaUnavailable, "the registry's schema %s: %s", shorten(url, 200), shorten(err.Error(), 200))
	}
	if len(b) > MaxSchemaBytes {
		return nil, fail(SchemaUnavailable, "the registry's schema %s is larger than %d bytes", shorten(url, 200), MaxSchemaBytes)
	}
	v, err := proof.ParseJSON(b, maxDepth)
	doc, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, fail(SchemaUnavailable, "the registry's schema %s is not a JSON object", shorten(url, 200))
	}
	c, err := recordschema.Compile(doc)
	if err != nil {
		return nil, fail(SchemaUnavailable, "the registry's schema %s: %v", shorten(url, 200), err)
	}
	s.cache.Set(url, c)
	return c, nil
}

// CheckRecords checks every record's details against the registry's schema: an inline schema
// directly (one that is not a JSON Schema standing alone makes the file Invalid), a URL through
// schemas (SchemaUnavailable when it cannot be had). A record that does not conform makes the
// file Invalid.
func (f *File) CheckRecords(ctx context.Context, schemas *Schemas) error {
	var s *recordschema.Schema
	if f.Registry.SchemaURL != "" {
		var err error
		if s, err = schemas.Get(ctx, f.Registry.SchemaURL); err != nil {
			return err
		}
	} else {
		var err error
		if s, err = recordschema.Compile(f.Registry.Schema.(map[string]any)); err != nil {
			return fail(Invalid, "the registry's inline %v", err)
		}
	}
	return validateAll(s, f)
}

// validateAll checks every record, in chunks on the cores there are, and reports the first
// record (in file order) that does not conform. A record kept as text is parsed again, one at
// a time.
func validateAll(s *recordschema.Schema, f *File) error {
	n := f.RecordCount()
	workers := min(runtime.GOMAXPROCS(0), n/1000+1)
	chunk := (n + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				r, err := f.RecordAt(i)
				if err != nil {
					errs[w] = err
					return
				}
				if err := s.Validate(r.Details); err != nil {
					errs[w] = fail(Invalid, "record %q (/records/%d): %v", shorten(r.Name, 80), i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
