package explorer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fakeAPI answers fixed JSON bodies by API path (404 for others).
type fakeAPI map[string]any

func (f fakeAPI) Get(_ *http.Request, p string) (int, string, []byte) {
	v, ok := f[p]
	if !ok {
		return 404, "application/json", []byte(`{"message":"Not found: ` + p + `"}`)
	}
	if s, ok := v.(string); ok {
		return 200, "text/plain; charset=utf-8", []byte(s)
	}
	b, _ := json.Marshal(v)
	return 200, "application/json", b
}

// TestHostileTextIsEscaped: names and details that the API would serve (and some it would
// refuse) are text on every page: no element, attribute or script comes out of them, an RTL
// override stays inside its <bdi>, and a 10,000-character value is shown whole.
func TestHostileTextIsEscaped(t *testing.T) {
	long := strings.Repeat("W", 10_000)
	hostile := []string{`<script>alert(1)</script>`, `"onmouseover="alert(1)`, `' onfocus='alert(1)`, "\u202Egnp.exe", `</textarea><img src=x onerror=alert(1)>`,
		`javascript:alert(1)`, `{{.Title}}`}
	name := strings.Join(hostile, " ")
	details := map[string]any{"long": long, "nested": map[string]any{"<b>k</b>": hostile, "\u202Ekey": "v"}}
	for i, h := range hostile {
		details["h"+string(rune('a'+i))] = h
	}
	proof := map[string]any{"digest": "0x" + strings.Repeat("0", 64), "type": name}
	rec := map[string]any{"record_id": name, "namespace": name, "record_name": name, "description": name, "version_count": 1, "details": details, "state": "live", "effective_state": name,
		"version": "v1", "proof": proof, "origin": map[string]any{"publisher": name}}
	reg := map[string]any{"registry_name": name, "namespace_id": name, "tag": name, "description": name, "schema": details, "state": name, "proof": proof}
	ns := map[string]any{"name": name, "domain": name, "namespace_id": name, "description": name, "proof": proof}
	api := fakeAPI{
		"/svc/namespaces?page_size=20&page=1&q=x": map[string]any{"message": "ok", "total": 1, "data": []any{ns}},
		"/svc/stats":          map[string]any{"message": "ok", "data": map[string]any{"namespaces": 1}},
		"/svc/log/checkpoint": "o<script>\n1\nroot\"x\n\n— o<b> sig\n",
		"/svc/log/key":        "key\"><script>alert(1)</script>",
		"/svc/lookup/n":       map[string]any{"message": "ok", "data": ns},
		"/svc/query/n?page_size=50&page=1": map[string]any{"message": "ok", "data": map[string]any{"total_registries": 1,
			"registries": []any{map[string]any{"registry_name": name, "tag": name, "state": name}}}},
		"/svc/lookup/n/g": map[string]any{"message": "ok", "data": reg},
		"/svc/query/n/g?page_size=50&page=1": map[string]any{"message": "ok", "data": map[string]any{"total_records": 1,
			"records": []any{map[string]any{"record_name": name, "effective_state": name}}}},
		"/svc/lookup/n/g/r":   map[string]any{"message": name, "data": rec},
		"/svc/versions/n/g/r": map[string]any{"message": "ok", "data": map[string]any{"versions": []any{"v1", name}}},
		"/svc/lookup/n/g/r?version_id=" + url.QueryEscape(name): map[string]any{"message": "ok", "data": map[string]any{"version": name,
			"version_count": 1, "updated_at": name, "state": name}},
		// The state answer: a hostile latest leaf, newer than the version shown (superseded).
		"/svc/log/state/" + url.PathEscape(name): map[string]any{"message": name, "present": true, "checkpoint": "o\n9\nroot\n\n— o sig\n",
			"latest": map[string]any{"log_index": 3, "leaf": `{"version":"` + strings.ReplaceAll(name, `"`, `\"`) + `","version_count":2}`}},
	}
	// The registry page's search echoes its form and lists a record of another registry.
	search := recordSearch{Name: name, Field: "a.b", Value: name}
	api["/svc/search/n?"+search.apiQuery("g", 1)] = map[string]any{"message": "ok", "total": 1, "total_exact": true,
		"data": []any{map[string]any{"record_name": name, "registry_name": name, "effective_state": name}}}
	searchPage := "/explore/n/n/g?" + url.Values{"name": {name}, "field": {"a.b"}, "value": {name}}.Encode()
	refused := "/explore/n/n/g?" + url.Values{"state": {name}}.Encode() // 400, the state named in the sentence
	x, err := New(Config{Source: api, WitnessKeys: []string{name}, Quorum: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/explore?q=x", "/explore/n/n", "/explore/n/n/g", "/explore/n/n/g/r", "/explore/log", "/explore/n/missing", searchPage, refused} {
		w := httptest.NewRecorder()
		x.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		body := w.Body.String()
		want := map[string]int{"/explore/n/missing": 404, refused: 400}[path]
		if want == 0 {
			want = 200
		}
		if w.Code != want {
			t.Fatalf("%s: %d %s", path, w.Code, body)
		}
		if (path == searchPage && !strings.Contains(body, `id="mixed"`)) || (path == refused && !strings.Contains(body, "There is no state")) {
			t.Errorf("%s: not the page expected", path)
		}
		if w.Header().Get("Content-Security-Policy") != CSP {
			t.Errorf("%s: no CSP", path)
		}
		for _, bad := range []string{"<script>alert", "<img", "<b>", `"onmouseover="`, `' onfocus='`, `="javascript:`} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: the page contains %q unescaped", path, bad)
			}
		}
		if strings.Count(body, "<script") != 1 { // the one script tag, the verify bundle
			t.Errorf("%s: %d script tags", path, strings.Count(body, "<script"))
		}
		if path == "/explore/n/n/g/r" {
			if !strings.Contains(body, long) {
				t.Errorf("the 10,000-character value is not shown whole")
			}
			rlo := `<span class="esc" title="U+202E RIGHT-TO-LEFT OVERRIDE: a bidirectional control, shown as its escape">\u202e</span>`
			if !strings.Contains(body, "<bdi>"+rlo+"key</bdi>") || !strings.Contains(body, `<bdi class="v-string">`+rlo+"gnp.exe</bdi>") {
				t.Errorf("an RTL override is not shown as its escape in <bdi>")
			}
			if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
				t.Errorf("the hostile name is not shown as text")
			}
			if !strings.Contains(body, "superseded by <a href=\"/explore/n/n/g/r\">version 2 of 2</a>") {
				t.Errorf("the state answer's wording is missing")
			}
		}
	}
}
