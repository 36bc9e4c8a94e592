package explorer

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/svc-directory/svc/directory"
)

// The pages: each reads the API answers it is made from and hands them to its template.

func apiSeg(s string) string { return url.PathEscape(s) }

func pageNum(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 || n > 1_000_000 {
		return 1
	}
	return n
}

// pager is a page's place in a list and the addresses of its neighbours (Pages 0: unknown).
type pager struct {
	Page, Pages int
	Prev, Next  string
}

func newPager(r *http.Request, pageNo int, total, size int64) pager {
	pages := int((total + size - 1) / size)
	p := pager{Page: pageNo, Pages: max(pages, 1)}
	if pageNo > 1 {
		p.Prev = pageAt(r, pageNo-1)
	}
	if pageNo < pages {
		p.Next = pageAt(r, pageNo+1)
	}
	return p
}

// pageAt is the address of page n of the list r shows, with r's other parameters.
func pageAt(r *http.Request, n int) string {
	q := r.URL.Query()
	q.Set("page", strconv.Itoa(n))
	return r.URL.Path + "?" + q.Encode()
}

func num(v any) int64 {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return i
	case float64:
		return int64(n)
	}
	return 0
}

func str(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case json.Number:
		return s.String()
	case bool:
		return strconv.FormatBool(s)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func list(v any) []map[string]any {
	items, _ := v.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// checkpoint is a signed checkpoint's lines, as the pages show them.
type checkpoint struct {
	Origin, Size, Root string
	RootHex            string // the root hash in hex, as every other hash is shown
	Signatures         []string
	Text               string
}

func parseCheckpoint(text string) (checkpoint, bool) {
	body, sigs, ok := strings.Cut(text, "\n\n")
	lines := strings.Split(body, "\n")
	if !ok || len(lines) < 3 {
		return checkpoint{}, false
	}
	cp := checkpoint{Origin: lines[0], Size: lines[1], Root: lines[2], RootHex: hexRoot(lines[2]), Text: text}
	for _, l := range strings.Split(strings.TrimSpace(sigs), "\n") {
		if name, _, ok := strings.Cut(strings.TrimPrefix(l, "— "), " "); ok {
			cp.Signatures = append(cp.Signatures, name)
		}
	}
	return cp, true
}

type homeData struct {
	Q          string
	Searched   bool
	Results    []map[string]any
	Total      int64
	Pager      pager
	Stats      map[string]any
	Checkpoint *checkpoint
	// The namespaces and registries of the log's latest versions, newest first (recent.go).
	RecentNamespaces, RecentRegistries []recentEntry
}

func (x *Explorer) home(w http.ResponseWriter, r *http.Request) {
	d := homeData{Q: r.URL.Query().Get("q")}
	var links, read []link
	_, d.Searched = r.URL.Query()["q"]
	if d.Searched {
		n := pageNum(r)
		p := "/svc/namespaces?page_size=20&page=" + strconv.Itoa(n) + "&q=" + url.QueryEscape(d.Q)
		a := x.get(r, p)
		if a.Status != http.StatusOK {
			x.fail(w, r, a)
			return
		}
		d.Results, d.Total = list(a.Body["data"]), num(a.Body["total"])
		d.Pager = newPager(r, n, d.Total, 20)
		links = append(links, link{"Namespace search", p})
	}
	if a := x.get(r, "/svc/stats"); a.Status == http.StatusOK {
		d.Stats = a.data()
		links = append(links, link{"Statistics", a.Path})
	}
	if a := x.get(r, "/svc/log/checkpoint"); a.Status == http.StatusOK {
		if cp, ok := parseCheckpoint(a.Text); ok {
			d.Checkpoint = &cp
			if size, err := strconv.ParseInt(cp.Size, 10, 64); err == nil && !d.Searched {
				d.RecentNamespaces, d.RecentRegistries, read = x.recent(r, size)
			}
		}
		links = append(links, link{"Checkpoint", a.Path})
		links = append(links, read...)
	}
	x.render(w, r, http.StatusOK, "home", page{Title: "Trust directory explorer", JSON: links, Data: d})
}

// Entry is what an entry page shows beside its own fields: the lookup it was made from, for
// the verify button, and the log's verifier key the button checks against.
type Entry struct {
	Kind      string
	ID        string // the entry's id: the key of its state query
	Lookup    string // the lookup answer's body, as served
	Data      map[string]any
	Tree      []node
	Proof     []node
	Key       string
	Witnesses []string
	Quorum    int
	// Present says whether the version shown is the latest logged one (docs/explorer.md),
	// StateLink is the state query it was read from.
	Present   present
	StateLink link
}

func (x *Explorer) entry(r *http.Request, kind string, a answer) Entry {
	d := a.data()
	e := Entry{Kind: kind, Lookup: a.Text, Data: d, Witnesses: x.witnessKeys, Quorum: x.quorum, ID: str(d[kind+"_id"])}
	if d != nil {
		e.Proof = tree(d["proof"], 0)
	}
	if k := x.get(r, "/svc/log/key"); k.Status == http.StatusOK {
		e.Key = strings.TrimSpace(k.Text)
	}
	if e.ID != "" {
		e.Present, e.StateLink = x.stateOf(r, e.ID, str(d["version"]), num(d["version_count"]), num(d["version_count"]))
	}
	return e
}

type namespaceData struct {
	Entry
	Registries []map[string]any
	Flags      map[string]nameFlags // the registry names of the page that mix scripts or look alike
	Total      int64
	Pager      pager
	Ref        string
}

func (x *Explorer) namespacePage(w http.ResponseWriter, r *http.Request, ns string) {
	a := x.get(r, "/svc/lookup/"+apiSeg(ns))
	if a.Status != http.StatusOK {
		x.fail(w, r, a)
		return
	}
	n := pageNum(r)
	q := x.get(r, "/svc/query/"+apiSeg(ns)+"?page_size=50&page="+strconv.Itoa(n))
	if q.Status != http.StatusOK {
		x.fail(w, r, q)
		return
	}
	d := namespaceData{Entry: x.entry(r, "namespace", a), Ref: ns, Registries: list(q.data()["registries"]), Total: num(q.data()["total_registries"])}
	d.Flags = listFlags(namesOf(d.Registries, "registry_name"))
	d.Pager = newPager(r, n, d.Total, 50)
	x.render(w, r, http.StatusOK, "namespace", page{Title: str(d.Data["name"]), Data: d,
		JSON: []link{{"Namespace lookup", a.Path}, {"Registries", q.Path}, d.StateLink, {"Verifier key", "/svc/log/key"}}})
}

type recordData struct {
	Entry
	NS, Reg, Name string
	Details       []node
	Origin        []node
	History       history
	HasHistory    bool
	Notice        notice
	Scripts       []string // the scripts the record's name mixes
	LooksLike     string   // a record of the registry whose name the record's is confusable with
}

func (x *Explorer) recordPage(w http.ResponseWriter, r *http.Request, ns, reg, rec string) {
	base := "/svc/lookup/" + apiSeg(ns) + "/" + apiSeg(reg) + "/" + apiSeg(rec)
	p := base
	if v := r.URL.Query().Get("version"); v != "" {
		p += "?version_id=" + url.QueryEscape(v)
	}
	a := x.get(r, p)
	if a.Status != http.StatusOK {
		x.fail(w, r, a)
		return
	}
	d := recordData{Entry: x.entry(r, "record", a), NS: ns, Reg: reg, Name: rec}
	d.Details, d.Origin = tree(d.Data["details"], 0), tree(d.Data["origin"], 0)
	shown := str(d.Data["version"])
	d.Scripts, d.LooksLike = directory.MixedScripts(rec), x.lookalike(r, ns, reg, rec)
	links := []link{{"Record lookup", a.Path}}
	// The record's latest version: its state (revoked, suspended) and its number (m).
	latest := d.Data
	var gone string // why the record's latest version cannot be read (deleted since, say)
	if p != base {
		switch l := x.get(r, base); l.Status {
		case http.StatusOK:
			latest = l.data()
			links = append(links, link{"Latest version", l.Path})
			if m := num(latest["version_count"]); m > d.Present.Total {
				d.Present.Total = m
			}
		case http.StatusNotFound:
			latest, gone = nil, l.message()
			links = append(links, link{"Latest version", l.Path})
		}
	}
	d.Notice = recordNotice(latest, shown)
	if gone != "" {
		d.Notice = notice{Kind: "gone", When: gone}
	}
	if d.Present.Superseded || d.Present.Current {
		d.Present.LatestHref = Prefix + "/n/" + apiSeg(ns) + "/" + apiSeg(reg) + "/" + apiSeg(rec)
	}
	links = append(links, d.StateLink)
	if v := x.get(r, "/svc/versions/"+apiSeg(ns)+"/"+apiSeg(reg)+"/"+apiSeg(rec)); v.Status == http.StatusOK {
		var ids []string
		raw, _ := v.data()["versions"].([]any)
		for _, id := range raw {
			ids = append(ids, str(id))
		}
		d.History, d.HasHistory = x.historyPage(r, base, ids, shown, d.Data), len(ids) > 0
		links = append(links, link{"Versions", v.Path})
	}
	links = append(links, link{"Verifier key", "/svc/log/key"})
	x.render(w, r, http.StatusOK, "record", page{Title: rec, Data: d, JSON: links})
}

// lookalike is the record of the registry whose name rec's is confusable with written in plain
// ASCII, or "": each character beyond ASCII whose confusable prototype (directory.Skeleton) is
// ASCII is replaced by it (`аdmin` gives `admin`), and the record of that name, when there is
// one and it is confusable with rec, is the look-alike. One lookup more, only for a name beyond
// ASCII (the spoof of another script); it finds the look-alike written plainly, not every
// look-alike (a pair of ASCII names that look alike, l and 1, is flagged where the registry
// lists them).
func (x *Explorer) lookalike(r *http.Request, ns, reg, rec string) string {
	var b strings.Builder
	changed := false
	for _, c := range rec {
		if c < utf8.RuneSelf {
			b.WriteRune(c)
			continue
		}
		p := directory.Skeleton(string(c))
		if p == "" || !isASCII(p) {
			return ""
		}
		b.WriteString(p)
		changed = true
	}
	plain := b.String()
	if !changed || plain == rec || directory.Skeleton(plain) != directory.Skeleton(rec) {
		return ""
	}
	if a := x.get(r, "/svc/lookup/"+apiSeg(ns)+"/"+apiSeg(reg)+"/"+apiSeg(plain)); a.Status == http.StatusOK && str(a.data()["record_name"]) == plain {
		return plain
	}
	return ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

type logData struct {
	Checkpoint *checkpoint
	Cosigned   *checkpoint
	Key        string
	Witnesses  []string
	Quorum     int
}

func (x *Explorer) logPage(w http.ResponseWriter, r *http.Request) {
	d := logData{Witnesses: x.witnessKeys, Quorum: x.quorum}
	var links []link
	if a := x.get(r, "/svc/log/checkpoint"); a.Status == http.StatusOK {
		if cp, ok := parseCheckpoint(a.Text); ok {
			d.Checkpoint = &cp
		}
		links = append(links, link{"Checkpoint", a.Path})
	}
	if a := x.get(r, "/svc/log/cosigned-checkpoint"); a.Status == http.StatusOK {
		if cp, ok := parseCheckpoint(a.Text); ok {
			d.Cosigned = &cp
		}
		links = append(links, link{"Cosigned checkpoint", a.Path})
	}
	if a := x.get(r, "/svc/log/key"); a.Status == http.StatusOK {
		d.Key = strings.TrimSpace(a.Text)
		links = append(links, link{"Verifier key", a.Path})
	}
	x.render(w, r, http.StatusOK, "log", page{Title: "Transparency log", Data: d, JSON: links})
}
