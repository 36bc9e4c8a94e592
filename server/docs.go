package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// docsFS holds /docs: index.html and init.js, and the two Swagger UI assets of the
// swagger-ui-dist npm package (committed; `make docs-assets` refreshes them).
//
//go:embed docs
var docsFS embed.FS

// docsAsset is one file of /docs with its validators and, made on first use, its gzip form.
type docsAsset struct {
	body        []byte
	contentType string
	etag        string // strong, of the identity form; the gzip form's adds -gz
	cache       string // Cache-Control

	gzipOnce sync.Once
	gz       []byte
}

func (a *docsAsset) gzipped() []byte {
	a.gzipOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = zw.Write(a.body)
		_ = zw.Close()
		a.gz = b.Bytes()
	})
	return a.gz
}

// registerDocs serves /docs (the page) and /docs/<asset>. The page refers to each asset by a
// URL that carries the asset's hash (?v=...), so the assets are cached for a year as immutable
// while the page itself is revalidated (no-cache + ETag): a new binary's assets are fetched
// at once. Every answer is gzip-compressed when the client accepts it, and a matching
// If-None-Match gets 304.
func (s *Server) registerDocs(e *echo.Echo) {
	sub, _ := fs.Sub(docsFS, "docs")
	entries, _ := fs.ReadDir(sub, ".")
	assets := map[string]*docsAsset{}
	for _, ent := range entries {
		name := ent.Name()
		if ent.IsDir() || name == "index.html" {
			continue
		}
		b, err := fs.ReadFile(sub, name)
		if err != nil {
			continue
		}
		assets[name] = newDocsAsset(b, name, "public, max-age=31536000, immutable")
	}
	page, _ := fs.ReadFile(sub, "index.html")
	for name, a := range assets {
		// "/docs/init.js" → "/docs/init.js?v=<hash>"
		page = bytes.ReplaceAll(page, []byte(`"/docs/`+name+`"`), []byte(`"/docs/`+name+`?v=`+strings.Trim(a.etag, `"`)+`"`))
	}
	index := newDocsAsset(page, "index.html", "no-cache")
	e.GET("/docs", func(c echo.Context) error { return serveDocsAsset(c, index) })
	// The page has one address; /docs/ (as typed, or from a relative link) is sent there.
	e.GET("/docs/", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/docs") })
	e.GET("/docs/:file", func(c echo.Context) error {
		a, ok := assets[c.Param("file")]
		if !ok {
			return echo.ErrNotFound
		}
		return serveDocsAsset(c, a)
	})
}

func newDocsAsset(b []byte, name, cache string) *docsAsset {
	sum := sha256.Sum256(b)
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return &docsAsset{body: b, contentType: ctype, etag: `"` + hex.EncodeToString(sum[:12]) + `"`, cache: cache}
}

func serveDocsAsset(c echo.Context, a *docsAsset) error {
	h := c.Response().Header()
	h.Set(echo.HeaderVary, echo.HeaderAcceptEncoding)
	h.Set("Cache-Control", a.cache)
	h.Set(echo.HeaderContentType, a.contentType)
	body, etag := a.body, a.etag
	if acceptsGzip(c.Request().Header.Get(echo.HeaderAcceptEncoding)) {
		body, etag = a.gzipped(), strings.TrimSuffix(a.etag, `"`)+`-gz"`
		h.Set(echo.HeaderContentEncoding, "gzip")
	}
	h.Set("ETag", etag)
	if inm := c.Request().Header.Get("If-None-Match"); inm != "" && etagListMatches(inm, a.etag) {
		h.Del(echo.HeaderContentEncoding)
		return c.NoContent(http.StatusNotModified)
	}
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	c.Response().WriteHeader(http.StatusOK)
	_, err := c.Response().Write(body)
	return err
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) listed without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		if strings.HasPrefix(q, "q=0") && strings.Trim(strings.TrimPrefix(q, "q=0"), ".0") == "" {
			continue // q=0, q=0.0, q=0.000: not acceptable
		}
		return true
	}
	return false
}

// etagListMatches compares an If-None-Match list weakly with etag and its gzip twin.
func etagListMatches(list, etag string) bool {
	base := strings.Trim(etag, `"`)
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		if t == "*" {
			return true
		}
		t = strings.Trim(strings.TrimPrefix(t, "W/"), `"`)
		if t == base || t == base+"-gz" {
			return true
		}
	}
	return false
}
