package server

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/svc-directory/svc/explorer"
)

// The explorer (docs/explorer.md): its pages under /explore are made from this server's own
// public API, read in process and anonymously, so that a page shows what the JSON answers
// (drafts never). Its paths are outside the contract: no contract validation applies to them.

// apiSource is explorer.Source over the echo instance: an in-process GET with the page's
// context and client address (rate limits count a page's reads against its reader).
type apiSource struct{ e *echo.Echo }

type captured struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *captured) Header() http.Header { return c.header }
func (c *captured) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}
func (c *captured) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(b)
}

func (a apiSource) Get(r *http.Request, apiPath string) (int, string, []byte) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, apiPath, nil)
	if err != nil {
		return http.StatusBadRequest, "", nil
	}
	req.RemoteAddr = r.RemoteAddr
	req.Header.Set("Accept", "application/json, text/plain")
	w := &captured{header: http.Header{}}
	a.e.ServeHTTP(w, req)
	return w.status, w.header.Get(echo.HeaderContentType), w.body.Bytes()
}

// registerExplorer mounts the explorer at /explore, and sends a browser that opens / there
// (an API client asking / still gets the JSON 404).
func (s *Server) registerExplorer(e *echo.Echo, witnessKeys []string, quorum int) error {
	x, err := explorer.New(explorer.Config{Source: apiSource{e: e}, Logger: s.log, WitnessKeys: witnessKeys, Quorum: quorum})
	if err != nil {
		return err
	}
	h := echo.WrapHandler(x)
	e.GET(explorer.Prefix, h)
	e.GET(explorer.Prefix+"/*", h)
	e.GET("/", func(c echo.Context) error {
		if prefersHTML(c.Request().Header.Get("Accept")) {
			return c.Redirect(http.StatusSeeOther, explorer.Prefix)
		}
		return echo.ErrNotFound
	})
	return nil
}

// prefersHTML reads an Accept header: text/html is listed before any JSON type.
func prefersHTML(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "text/html", "application/xhtml+xml":
			return true
		case "application/json", "application/problem+json":
			return false
		}
	}
	return false
}
