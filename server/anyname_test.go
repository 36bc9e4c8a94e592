package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

// The names of a hostile publisher's DeDi file (issue 42 §3): each is a name the draft allows,
// and a DeDi server must serve it at exactly its triple.
var hostileRecordNames = []string{"<img src=x onerror=alert(1)>", "../../etc/passwd", "a/b?c#d", " spaced ", "ad\u202emin",
	"\u0430dmin", "admin", "100%", "100%41", "a%2Fb", "...", "%2E%2E", "日本語 名前", "zero\u200bwidth", strings.Repeat("\U0001F600", 512)}

const hostileRegistry = "<svg onload=alert(1)>"

// originHostedNames makes pub.example an origin-hosted namespace whose registry
// hostileRegistry holds a record of each of names (details {"n": its index}), from an accepted
// file; it returns the file's bytes.
func originHostedNames(t *testing.T, st *store.Store, names []string) []byte {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	if _, err := st.AddDediPublisher(ctx, "pub.example"); err != nil {
		t.Fatal(err)
	}
	owner, _ := st.EnsureUser(ctx, "dedi-origin@svc.invalid")
	file := []byte(`{"type":"dedi-file","registry":{"name":"<svg onload=alert(1)>"}}` + "\n")
	var nsID string
	err := st.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if nsID, err = tx.OriginNamespace("pub.example", owner.ID, "did:web:localhost%3A8080"); err != nil {
			return err
		}
		g, _, err := tx.CreateRegistry(nsID, "did:web:localhost%3A8080", directory.RegistryInput{RegistryName: hostileRegistry, Tag: "custom",
			Schema: map[string]any{"type": "object"}})
		if err != nil {
			return err
		}
		in := make([]directory.RecordInput, len(names))
		for i, n := range names {
			in[i] = directory.RecordInput{RecordName: n, Details: map[string]any{"n": float64(i)}}
		}
		recs, err := directory.NewRecords(g, "did:web:localhost%3A8080", in, tx.Stamp(), true)
		if err != nil {
			return err
		}
		if err := tx.InsertRecords(recs); err != nil {
			return err
		}
		return tx.PutDediFile(store.DediFile{Domain: "pub.example", Registry: hostileRegistry, URL: "https://pub.example/svg.json", State: store.OriginLive,
			Bytes: file, SHA256: "sha-256:f", Kid: "k1", FetchedAt: now, UpdatedAt: now, NextUpdate: now.Add(time.Hour)})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RecordDediCrawl(ctx, "pub.example", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true,
		NextCrawl: now.Add(time.Hour), NamespaceID: nsID}); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestAnyNameAtItsAddress: every name of the hostile file is served at its exact address,
// percent-encoded: its lookup, its versions, its registry's records, the search by its name,
// the relay of its registry's file, and HEAD as GET; a name that reads as an escape (100%41)
// is never decoded twice, and each look-alike reads as itself. Writes keep the native grammar
// (400), and a read names an entry by at most 1,024 characters.
func TestAnyNameAtItsAddress(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		file := originHostedNames(t, h.store, hostileRecordNames)
		reg := url.PathEscape(hostileRegistry)
		if r := h.must(http.StatusOK, "GET", "/svc/lookup/pub.example/"+reg, "", nil); r.data()["registry_name"] != hostileRegistry {
			t.Fatalf("registry lookup: %s", r.Raw)
		}
		h.must(http.StatusOK, "GET", "/svc/versions/pub.example/"+reg, "", nil)
		if rec := h.rawGet("/svc/dedi/pub.example/" + reg); rec.Code != http.StatusOK || rec.Body.String() != string(file) {
			t.Fatalf("relay: %d %s", rec.Code, rec.Body.String())
		}
		q := h.must(http.StatusOK, "GET", "/svc/query/pub.example/"+reg+"?page_size=100", "", nil)
		listed := map[string]bool{}
		for _, r := range q.data()["records"].([]any) {
			listed[r.(map[string]any)["record_name"].(string)] = true
		}
		for i, name := range hostileRecordNames {
			path := "/svc/lookup/pub.example/" + reg + "/" + url.PathEscape(name)
			r := h.must(http.StatusOK, "GET", path, "", nil)
			d := r.data()
			if d["record_name"] != name || d["registry_name"] != hostileRegistry || d["details"].(map[string]any)["n"] != float64(i) {
				t.Errorf("lookup of %.40q: %s", name, r.Raw)
			}
			if head := h.do("HEAD", path, "", nil); head.Status != http.StatusOK {
				t.Errorf("HEAD %.40q: %d", name, head.Status)
			}
			v := h.must(http.StatusOK, "GET", "/svc/versions/pub.example/"+reg+"/"+url.PathEscape(name), "", nil)
			if v.data()["record_name"] != name || len(v.data()["versions"].([]any)) != 1 {
				t.Errorf("versions of %.40q: %s", name, v.Raw)
			}
			if !listed[name] {
				t.Errorf("%.40q is not listed by the registry's query", name)
			}
			s := h.must(http.StatusOK, "GET", "/svc/search/pub.example?"+url.Values{"registry_name": {hostileRegistry}, "record_name": {name}}.Encode(), "", nil)
			found := false
			for _, r := range s.Body["data"].([]any) {
				m := r.(map[string]any)
				found = found || m["record_name"] == name
				if name == "\u0430dmin" && m["record_name"] == "admin" || name == "admin" && m["record_name"] == "\u0430dmin" {
					t.Errorf("the search for %q found its look-alike", name)
				}
			}
			if !found {
				t.Errorf("the search for %.40q did not find it: %s", name, s.Raw)
			}
		}
		// The escapes a client could get wrong: %41 is not A, a literal %2F is not a slash, a
		// decoded slash is not a name's.
		h.must(http.StatusNotFound, "GET", "/svc/lookup/pub.example/"+reg+"/100A", "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/lookup/pub.example/"+reg+"/a%2Fb?c", "", nil)
		if r := h.must(http.StatusOK, "GET", "/svc/lookup/pub.example/"+reg+"/a%252Fb", "", nil); r.data()["record_name"] != "a%2Fb" {
			t.Errorf("a%%2Fb: %s", r.Raw)
		}
		// A name's / is %2F: a slash in the path is no name's (echo's last parameter would take it).
		for _, p := range []string{"/svc/lookup/pub.example/" + reg + "/a/b%3Fc%23d", "/svc/versions/pub.example/" + reg + "/a/b%3Fc%23d",
			"/svc/lookup/pub.example/" + reg + "/admin/", "/svc/dedi/pub.example/" + reg + "/x"} {
			h.must(http.StatusNotFound, "GET", p, "", nil)
		}
		h.must(http.StatusBadRequest, "GET", "/svc/lookup/pub.example/"+reg+"/"+strings.Repeat("x", 1025), "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/lookup/pub.example/"+reg+"/"+strings.Repeat("x", 1024), "", nil)

		// Writes take native names: 400 before the origin-hosted namespace's 403.
		key := h.key("someone@example.com")
		r := h.must(http.StatusBadRequest, "POST", "/svc/pub.example/"+reg+"/add-record", key, `{"record_name":"x","details":{}}`)
		if !strings.Contains(r.msg(), "registry_name") {
			t.Errorf("write with a wide name: %s", r.Raw)
		}
		// A native namespace has no such names: its reads of one are 404.
		ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, `{"name":"acme"}`).data()["namespace_id"].(string)
		h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", key, `{"registry_name":"people","schema":{"type":"object"}}`)
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/people/"+url.PathEscape("\u0430dmin"), "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/"+reg, "", nil)
	})
}

// TestAnyNameInPages: the explorer's pages of the hostile names (issue 42 §3): each record's
// page is reached by its link from the registry's page and shows its name as text, with the
// right-to-left override and the invisible characters as visible escapes, no markup of a name
// anywhere; the registry's page flags admin and аdmin as look-alikes and аdmin as mixing
// scripts, and аdmin's page names admin as the record it looks like.
func TestAnyNameInPages(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		originHostedNames(t, h.store, hostileRecordNames)
		reg := url.PathEscape(hostileRegistry)
		page := func(path string) string {
			t.Helper()
			rec := h.rawGet(path)
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: %d %.300s", path, rec.Code, rec.Body.String())
			}
			body := rec.Body.String()
			for _, bad := range []string{"<img", "<svg", "onerror=alert"} {
				if strings.Contains(body, bad) && !(bad == "onerror=alert" && strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;")) {
					t.Errorf("%s: the page holds %q", path, bad)
				}
			}
			// The lookup's bytes ride in the verify button's data-lookup attribute as served
			// (the browser hashes them): outside it, no override nor zero-width space is left raw.
			shown := body
			if i := strings.Index(shown, `data-lookup="`); i >= 0 {
				j := strings.Index(shown[i+13:], `"`)
				shown = shown[:i] + shown[i+13+j:]
			}
			if strings.ContainsAny(shown, "\u202e\u200b") {
				t.Errorf("%s: a raw right-to-left override or zero-width space in the page", path)
			}
			return body
		}
		regPage := page("/explore/n/pub.example/" + reg + "?page=1")
		if !strings.Contains(regPage, "&lt;svg onload=alert(1)&gt;") {
			t.Errorf("the registry's name is not shown as text")
		}
		for _, name := range hostileRecordNames {
			link := "/explore/n/pub.example/" + reg + "/" + url.PathEscape(name)
			if !strings.Contains(regPage, `href="`+strings.ReplaceAll(link, "&", "&amp;")+`"`) {
				t.Errorf("the registry's page has no link %s", link)
			}
			body := page(link)
			if !strings.Contains(body, "Record lookup") {
				t.Errorf("%.40q: not the record's page", name)
			}
		}
		if !strings.Contains(regPage, `id="name-flags"`) || strings.Count(regPage, `class="flag flag-looks"`) != 2 || !strings.Contains(regPage, "mixes scripts (Cyrillic, Latin)") {
			t.Errorf("the registry's page does not flag the look-alikes")
		}
		rlo := page("/explore/n/pub.example/" + reg + "/" + url.PathEscape("ad\u202emin"))
		if !strings.Contains(rlo, `<h1><bdi>ad<span class="esc" title="U+202E RIGHT-TO-LEFT OVERRIDE: a bidirectional control, shown as its escape">\u202e</span>min</bdi></h1>`) ||
			!strings.Contains(rlo, `<title>ad\u202emin · svc explorer</title>`) {
			t.Errorf("the override is not shown as its escape")
		}
		spaced := page("/explore/n/pub.example/" + reg + "/" + url.PathEscape(" spaced "))
		if !strings.Contains(spaced, `<h1><bdi><span class="esc" title="U+0020 SPACE: a space at an end of the text or beside another, shown as its escape">\u0020</span>spaced<span`) {
			t.Errorf("the spaces of \" spaced \" are not shown")
		}
		cyr := page("/explore/n/pub.example/" + reg + "/" + url.PathEscape("\u0430dmin"))
		if !strings.Contains(cyr, `id="mixed-scripts"`) || !strings.Contains(cyr, `id="looks-like"`) || !strings.Contains(cyr, `href="/explore/n/pub.example/`+reg+`/admin"`) {
			t.Errorf("аdmin's page does not warn of admin")
		}
		if admin := page("/explore/n/pub.example/" + reg + "/admin"); strings.Contains(admin, `id="mixed-scripts"`) || strings.Contains(admin, `id="looks-like"`) {
			t.Errorf("admin's page warns of itself")
		}
	})
}
