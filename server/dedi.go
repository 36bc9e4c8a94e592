package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

// The dedi tag: other publishers' DeDi files, relayed as fetched, the state of their crawl
// (docs/dedi-files.md, "The server's side"), and the refusal of every API write to the
// namespaces indexed from them.

func dediDomain(d string) string { return strings.TrimSuffix(strings.ToLower(d), ".") }

func (s *Server) ListDediPublishers(ctx context.Context, _ gen.ListDediPublishersRequestObject) (gen.ListDediPublishersResponseObject, error) {
	pubs, err := s.store.DediPublishers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]gen.DediPublisher, len(pubs))
	for i, p := range pubs {
		files, err := s.store.DediFileStates(ctx, p.Domain)
		if err != nil {
			return nil, err
		}
		g := gen.DediPublisher{Domain: p.Domain, Status: gen.DediPublisherStatus(p.Status), LastSuccess: p.LastSuccess,
			LastOutcome: p.LastOutcome, LastReason: p.LastReason, NextCrawl: p.NextCrawl, FileCount: p.FileCount,
			Files: make([]gen.DediPublisherFile, len(files))}
		if p.NamespaceID != "" {
			g.NamespaceId = &p.NamespaceID
		}
		if !p.Manifest.NextUpdate.IsZero() {
			nu := p.Manifest.NextUpdate
			g.NextUpdate = &nu
		}
		g.DediVersion = &p.Manifest.DediVersion
		if d := p.Digests; d.SHA256 != "" {
			g.Digests = &gen.DediDigestsState{Url: d.URL, Sha256: d.SHA256, Kid: d.Kid, UpdatedAt: d.UpdatedAt, NextUpdate: d.NextUpdate, DediVersion: d.DediVersion}
		}
		for j, f := range files {
			g.Files[j] = gen.DediPublisherFile{RegistryName: f.Registry, Url: f.URL, State: gen.DediPublisherFileState(f.State),
				LastOutcome: f.LastOutcome, Sha256: f.SHA256, Kid: f.Kid, FetchedAt: f.FetchedAt, NextUpdate: f.NextUpdate, RecordCount: f.RecordCount,
				DediVersion: &f.DediVersion}
		}
		out[i] = g
	}
	return gen.ListDediPublishers200JSONResponse{Message: "DeDi publishers", Data: out}, nil
}

// rawDocument answers a fetched document byte for byte.
type rawDocument struct {
	body  []byte
	etag  string
	state string
}

func (r rawDocument) write(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", `"`+r.etag+`"`)
	if r.state != "" {
		w.Header().Set("X-Dedi-State", r.state)
	}
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(r.body)
	return err
}

func (r rawDocument) VisitGetDediManifestResponse(w http.ResponseWriter) error { return r.write(w) }
func (r rawDocument) VisitGetDediFileResponse(w http.ResponseWriter) error     { return r.write(w) }
func (r rawDocument) VisitGetDediDigestsResponse(w http.ResponseWriter) error  { return r.write(w) }

func (s *Server) GetDediManifest(ctx context.Context, req gen.GetDediManifestRequestObject) (gen.GetDediManifestResponseObject, error) {
	d := dediDomain(req.Domain)
	p, err := s.store.DediPublisher(ctx, d)
	if errors.Is(err, directory.ErrNotFound) {
		return nil, problem(http.StatusNotFound, "DeDi publisher "+d+" not found: this server does not crawl it")
	}
	if err != nil {
		return nil, err
	}
	if p.Manifest.Bytes == nil {
		return nil, problem(http.StatusNotFound, "No manifest of DeDi publisher "+d+" has been accepted yet")
	}
	return rawDocument{body: p.Manifest.Bytes, etag: p.Manifest.SHA256}, nil
}

func (s *Server) GetDediDigests(ctx context.Context, req gen.GetDediDigestsRequestObject) (gen.GetDediDigestsResponseObject, error) {
	d := dediDomain(req.Domain)
	p, err := s.store.DediPublisher(ctx, d)
	if errors.Is(err, directory.ErrNotFound) {
		return nil, problem(http.StatusNotFound, "DeDi publisher "+d+" not found: this server does not crawl it")
	}
	if err != nil {
		return nil, err
	}
	if p.Digests.Bytes == nil {
		return nil, problem(http.StatusNotFound, "No digests document of DeDi publisher "+d+" has been accepted: its manifest names none, or none could be verified yet")
	}
	return rawDocument{body: p.Digests.Bytes, etag: p.Digests.SHA256}, nil
}

func (s *Server) GetDediFile(ctx context.Context, req gen.GetDediFileRequestObject) (gen.GetDediFileResponseObject, error) {
	d := dediDomain(req.Domain)
	f, err := s.store.DediFile(ctx, d, req.RegistryName)
	if errors.Is(err, directory.ErrNotFound) {
		return nil, problem(http.StatusNotFound, "No DeDi file of registry "+req.RegistryName+" of publisher "+d+" has been accepted")
	}
	if err != nil {
		return nil, err
	}
	return rawDocument{body: f.Bytes, etag: f.SHA256, state: f.State}, nil
}

// originsTTL is how long the set of origin-hosted namespaces is kept between reads when this
// process changed nothing of it: the time in which a namespace first indexed by another
// instance or by svc dedi crawl shows its origin here (it was 30 s). Much shorter, a lookup
// every second or so would also read the set, one statement more than a lookup's count
// (statements_test.go).
const originsTTL = 5 * time.Second

// origins is the set of namespaces indexed from DeDi publishers (namespace_id → domain). It is
// read again when the store reports a change of it committed through this process (a namespace
// first indexed by this instance's crawler, a publisher removed: store.OriginsGeneration), so
// that every read agrees with the commit at once (the origin block, the records' origin
// states, the read-only guard), and at least every originsTTL for the changes of other
// processes. Every lookup asks it, so a fresh set is read without a lock.
type origins struct {
	cur atomic.Pointer[originsSnap]
	mu  sync.Mutex // one refresh at a time
}

type originsSnap struct {
	m   map[string]string
	at  time.Time
	gen uint64 // the store's OriginsGeneration when m was read
}

func (o *origins) get(ctx context.Context, s *Server) (map[string]string, error) {
	now, gen := s.now(), s.store.OriginsGeneration()
	c := o.cur.Load()
	if c != nil && c.gen == gen {
		if now.Sub(c.at) < originsTTL {
			return c.m, nil
		}
		// Only old: one request reads it again, the others go on with this one meanwhile.
		if !o.mu.TryLock() {
			return c.m, nil
		}
	} else {
		o.mu.Lock() // changed here: every reader waits for the new set
	}
	defer o.mu.Unlock()
	if c := o.cur.Load(); c != nil && c.gen == gen && now.Sub(c.at) < originsTTL {
		return c.m, nil
	}
	m, err := s.store.OriginNamespaces(ctx)
	if err != nil {
		if c != nil && store.Unavailable(err) {
			// The database is lost (a failover may be under way): nothing can be indexed
			// meanwhile, so the set read last is still the set; reads go on with it.
			return c.m, nil
		}
		return nil, err
	}
	prev := o.cur.Swap(&originsSnap{m: m, at: now, gen: gen})
	// A namespace that became origin-hosted (or stopped being so) since the last read may have
	// answers in the lookup cache made without its origin (or with it): they go.
	if prev != nil && s.cache != nil && !sameOrigins(prev.m, m) {
		s.cache.Clear()
	}
	return m, nil
}

func sameOrigins(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			return false
		}
	}
	return true
}

// originReadOnly refuses every write (any method but GET and HEAD) that names an
// origin-hosted namespace in its path: only its publisher changes it, by publishing files.
func (s *Server) originReadOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if m := c.Request().Method; m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions {
			return next(c)
		}
		var refs []string
		for _, p := range []string{"namespace", "namespace_id"} {
			if v := c.Param(p); v != "" {
				refs = append(refs, v)
			}
		}
		if len(refs) == 0 {
			return next(c)
		}
		ctx := c.Request().Context()
		m, err := s.origins.get(ctx, s)
		if err != nil {
			return err
		}
		for _, ref := range refs {
			if d, ok := store.IsOriginRef(m, ref); ok {
				return problem(http.StatusForbidden, "Namespace "+d+" is hosted by its origin: it is read-only here, indexed from the DeDi files "+
					"published at https://"+d+"/.well-known/dedi.index.json, and only its publisher changes it, by publishing new files")
			}
		}
		return next(c)
	}
}
