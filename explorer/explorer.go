// Package explorer is the directory's pages for people (docs/explorer.md): server-rendered HTML
// under /explore, made from the JSON of the public API, read anonymously (so drafts, which are
// private, never show), with a strict Content-Security-Policy and a "Verify in this browser"
// button whose script (assets/verify.js, the TypeScript SDK bundled) checks the entry's digest,
// its inclusion proof and the log's checkpoint without trusting the server.
package explorer

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// Prefix is where the pages live; nothing under it is an API path.
const Prefix = "/explore"

// Source answers the public API's GET requests (the page's own request gives the client's
// address and context): the status, the Content-Type and the body. The explorer reads
// nothing else.
type Source interface {
	Get(r *http.Request, apiPath string) (status int, contentType string, body []byte)
}

// CSP is the Content-Security-Policy of every page: scripts and styles from the explorer's own
// files only (no inline script or style), requests to the service itself only, no frames.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

//go:embed templates assets
var files embed.FS

type asset struct {
	body        []byte
	contentType string
	version     string
}

// Explorer serves the pages.
type Explorer struct {
	src    Source
	log    *slog.Logger
	tmpl   map[string]*template.Template
	assets map[string]*asset
	// WitnessKeys are the verifier keys of the log's witnesses (empty: none configured); the
	// log page names them and the verify button checks the cosigned checkpoint against them.
	witnessKeys []string
	quorum      int
}

// Config configures an Explorer.
type Config struct {
	Source      Source
	Logger      *slog.Logger
	WitnessKeys []string
	Quorum      int
}

// New builds the explorer; its templates and assets are embedded in the binary.
func New(cfg Config) (*Explorer, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	x := &Explorer{src: cfg.Source, log: cfg.Logger, tmpl: map[string]*template.Template{}, assets: map[string]*asset{},
		witnessKeys: cfg.WitnessKeys, quorum: cfg.Quorum}
	entries, err := fs.ReadDir(files, "assets")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := fs.ReadFile(files, "assets/"+e.Name())
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		ct := mime.TypeByExtension(path.Ext(e.Name()))
		x.assets[e.Name()] = &asset{body: b, contentType: ct, version: hex.EncodeToString(sum[:8])}
	}
	funcs := template.FuncMap{"asset": x.assetURL, "seg": url.PathEscape, "q": url.QueryEscape, "vis": visible, "vist": visibleText, "flags": flagsOf,
		"when": when, "str": str}
	for _, page := range []string{"home", "namespace", "registry", "record", "log", "error"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/tree.html", "templates/"+page+".html")
		if err != nil {
			return nil, err
		}
		x.tmpl[page] = t
	}
	return x, nil
}

func (x *Explorer) assetURL(name string) string {
	a, ok := x.assets[name]
	if !ok {
		return Prefix + "/assets/" + name
	}
	return Prefix + "/assets/" + name + "?v=" + a.version
}

// ServeHTTP routes the explorer's paths: /explore (search and statistics), /explore/log,
// /explore/n/{namespace}[/{registry}[/{record}]] and /explore/assets/{file}.
func (x *Explorer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		x.render(w, r, http.StatusMethodNotAllowed, "error", page{Title: "Method not allowed", Message: "Pages are read with GET."})
		return
	}
	rest := strings.TrimPrefix(r.URL.EscapedPath(), Prefix)
	var segs []string
	for _, s := range strings.Split(strings.Trim(rest, "/"), "/") {
		if s == "" {
			continue
		}
		u, err := url.PathUnescape(s)
		if err != nil {
			x.render(w, r, http.StatusBadRequest, "error", page{Title: "Bad address", Message: "The address is not valid."})
			return
		}
		segs = append(segs, u)
	}
	switch {
	case len(segs) == 0:
		x.home(w, r)
	case len(segs) == 2 && segs[0] == "assets":
		x.serveAsset(w, r, segs[1])
	case len(segs) == 1 && segs[0] == "log":
		x.logPage(w, r)
	case segs[0] == "n" && len(segs) == 2:
		x.namespacePage(w, r, segs[1])
	case segs[0] == "n" && len(segs) == 3:
		x.registryPage(w, r, segs[1], segs[2])
	case segs[0] == "n" && len(segs) == 4:
		x.recordPage(w, r, segs[1], segs[2], segs[3])
	default:
		x.render(w, r, http.StatusNotFound, "error", page{Title: "Not found", Message: "There is no page at this address."})
	}
}

func (x *Explorer) serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	a, ok := x.assets[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	if r.URL.Query().Get("v") == a.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	_, _ = w.Write(a.body)
}

// page is what every template gets: the layout's fields and the page's own.
type page struct {
	Title   string
	Message string
	JSON    []link // the API answers the page was made from
	Data    any
}

type link struct{ Label, Href string }

// render writes a page with the security headers; a template error is logged and answered 500
// (the buffer keeps a half-made page from being sent).
func (x *Explorer) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	var b bytes.Buffer
	if err := x.tmpl[name].Execute(&b, p); err != nil {
		x.log.ErrorContext(r.Context(), "explorer: render", "page", name, "error", err)
		status, b = http.StatusInternalServerError, *bytes.NewBufferString("<!doctype html><title>Error</title><p>The page could not be made.")
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// answer is one API answer read for a page.
type answer struct {
	Status int
	Path   string
	Text   string         // the body (text answers: the checkpoint, the key)
	Body   map[string]any // the JSON body
}

func (a answer) message() string { s, _ := a.Body["message"].(string); return s }

func (a answer) data() map[string]any { d, _ := a.Body["data"].(map[string]any); return d }

// get reads apiPath; a JSON body is decoded with its numbers kept as written.
func (x *Explorer) get(r *http.Request, apiPath string) answer {
	status, ct, body := x.src.Get(r, apiPath)
	a := answer{Status: status, Path: apiPath, Text: string(body)}
	if strings.HasPrefix(ct, "application/json") {
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		_ = d.Decode(&a.Body)
	}
	return a
}

// fail renders the page for an API answer that is not a 200: the API's status and message.
func (x *Explorer) fail(w http.ResponseWriter, r *http.Request, a answer) {
	title := http.StatusText(a.Status)
	if title == "" || a.Status < 400 {
		a.Status, title = http.StatusBadGateway, "The directory did not answer"
	}
	msg := a.message()
	if msg == "" {
		msg = "The directory answered " + http.StatusText(a.Status) + "."
	}
	x.render(w, r, a.Status, "error", page{Title: title, Message: msg, JSON: []link{{"JSON answer", a.Path}}})
}
