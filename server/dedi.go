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
		for j, f := range files {
			g.Files[j] = gen.DediPublisherFile{RegistryName: f.Registry, Url: f.URL, State: gen.DediPublisherFileState(f.State),
				LastOutcome: f.LastOutcome, Sha256: f.SHA256, Kid: f.Kid, FetchedAt: f.FetchedAt, NextUpdate: f.NextUpdate, RecordCount: f.RecordCount}
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

// originsTTL is how long the set of origin-hosted namespaces is kept between reads.
const originsTTL = 30 * time.Second

// origins is the set of namespaces indexed from DeDi publishers (namespace_id → domain),
// read again every originsTTL (a namespace that becomes origin-hosted shows its origin within
// that time). Every lookup asks it, so a fresh set is read without a lock.
type origins struct {
	cur atomic.Pointer[originsSnap]
	mu  sync.Mutex // one refresh at a time
}

type originsSnap struct {
	m  map[string]string
	at time.Time
}

func (o *origins) get(ctx context.Context, s *Server) (map[string]string, error) {
	now := s.now()
	if c := o.cur.Load(); c != nil && now.Sub(c.at) < originsTTL {
		return c.m, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if c := o.cur.Load(); c != nil && now.Sub(c.at) < originsTTL {
		return c.m, nil
	}
	m, err := s.store.OriginNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	prev := o.cur.Swap(&originsSnap{m: m, at: now})
	// A namespace that became origin-hosted since the last read may have answers in the
	// lookup cache made without its origin: they go.
	if prev != nil && s.cache != nil {
		for id := range m {
			if _, ok := prev.m[id]; !ok {
				s.cache.Clear()
				break
			}
		}
	}
	return m, nil
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
