package server_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

// stateSite is explorerSite with the state index on, as svc serve runs it: the integrator
// commits state leaves and the server answers the state query from its serving index;
// publish integrates what was written and moves the serving index to the new checkpoint.
type stateSite struct {
	*harness
	id, key string
	g       *translog.Integrator
	ss      *translog.StateServer
}

func newStateSite(t *testing.T, d string, adjust func(*server.Config)) *stateSite {
	t.Helper()
	lk, vkey := newLogKey(t)
	var ss *translog.StateServer
	h := newHarnessWith(t, d, func(c *server.Config) {
		ss = translog.NewStateServer(translog.NewReader(c.Store), c.Store, nil, nil)
		c.LogVerifierKey, c.LogState = vkey, ss
		if adjust != nil {
			adjust(c)
		}
		ss = c.LogState
	})
	s := &stateSite{harness: h, key: h.key("owner@example.com"), g: translog.NewIntegrator(h.store, lk, nil, nil).WithStateIndex(), ss: ss}
	s.id = publish(t, h, s.key)
	s.publish()
	return s
}

func (s *stateSite) publish() {
	s.t.Helper()
	if _, err := s.g.IntegrateOnce(context.Background()); err != nil {
		s.t.Fatal(err)
	}
	if err := s.ss.Step(context.Background()); err != nil {
		s.t.Fatal(err)
	}
}

// logSize is the size of the checkpoint the serving index is at.
func (s *stateSite) logSize() string {
	s.t.Helper()
	r := s.must(http.StatusOK, "GET", "/svc/log/state/"+s.id, "", nil)
	cp, _ := r.Body["checkpoint"].(string)
	return strings.Split(cp, "\n")[1]
}

func pageText(t *testing.T, h *harness, path string) string {
	t.Helper()
	rec := getPage(t, h, path)
	if rec.Code != 200 {
		t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.String()
}

func wantIn(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			p := regexp.MustCompile(`(?s)<p class="present[^>]*>.*?</p>`).FindString(body)
			t.Errorf("%s lacks %q; it says %s", what, w, p)
		}
	}
}

// TestExplorerCurrentOrSuperseded: every entry page says whether its version is the latest
// logged one, from the serving index's state: "current as of the log's size N", or, for the
// page of an older version, "superseded by version n of m" with a link to the latest; a
// version published after the served checkpoint is "not in the log as of its size N"; once the
// record is revoked, the page of every version says so in plain words; the version history has
// dates, and the counters read "version k of n" on every entry page.
func TestExplorerCurrentOrSuperseded(t *testing.T) {
	eachDialectOf(t, func(t *testing.T, d string) {
		s := newStateSite(t, d, nil)
		ns := "/explore/n/" + url.PathEscape(s.id)
		rec := ns + "/employees/alice"
		v1 := s.must(http.StatusOK, "GET", "/svc/lookup/"+s.id+"/employees/alice", "", nil).data()["version"].(string)
		size := s.logSize()
		wantIn(t, "the namespace page", pageText(t, s.harness, ns), "current as of the log's size "+size, "(version 1 of 1)",
			`<span aria-current="page"><bdi>Acme</bdi></span>`)
		wantIn(t, "the registry page", pageText(t, s.harness, ns+"/employees"), "current as of the log's size "+size, "(version 1 of 1)",
			`<a href="`+ns+`"><bdi>Acme</bdi></a> › <span aria-current="page"><bdi>employees</bdi></span>`)
		wantIn(t, "the record page", pageText(t, s.harness, rec), "Version 1 of 1: <strong>current as of the log's size "+size, "(version 1 of 1)",
			`<bdi>Acme</bdi></a> › <a href="`+ns+`/employees"><bdi>employees</bdi></a> › <span aria-current="page"><bdi>alice</bdi></span>`)

		// A second version, logged: the first is superseded, the second current.
		s.must(http.StatusOK, "POST", "/svc/"+s.id+"/employees/alice/update-record", s.key, `{"details":{"email":"alice@example.org"}}`)
		s.publish()
		size = s.logSize()
		v2 := s.must(http.StatusOK, "GET", "/svc/lookup/"+s.id+"/employees/alice", "", nil).data()["version"].(string)
		old := pageText(t, s.harness, rec+"?version="+url.QueryEscape(v1))
		wantIn(t, "the first version's page", old, "Version 1 of 2: <strong>superseded by <a href=\""+rec+"\">version 2 of 2</a></strong>, as of the log's size "+size,
			"(version 1 of 2)", "do not rely on this one")
		if strings.Contains(old, "current as of") {
			t.Errorf("the superseded version's page says current")
		}
		latest := pageText(t, s.harness, rec)
		wantIn(t, "the latest version's page", latest, "Version 2 of 2: <strong>current as of the log's size "+size, "(version 2 of 2)")
		// The history: both versions, newest first, each with its number, date and state.
		dates := regexp.MustCompile(`version (\d), <time datetime="(20\d\d-[^"]+)">(\d+ [A-Z][a-z]+ 20\d\d, \d\d:\d\d UTC)</time>, <span class="state state-live">live</span>`).FindAllStringSubmatch(latest, -1)
		if len(dates) != 2 || dates[0][1] != "2" || dates[1][1] != "1" || !strings.Contains(latest, v1) || !strings.Contains(latest, v2) {
			t.Errorf("the version history: %q", dates)
		}

		// A version published after the served checkpoint: not in the log yet.
		s.must(http.StatusOK, "POST", "/svc/"+s.id+"/employees/bob/update-record", s.key, `{"details":{"email":"bob@example.org"}}`)
		wantIn(t, "an unlogged version's page", pageText(t, s.harness, ns+"/employees/bob"), "Version 2 of 2: not in the log as of its size "+size)
		s.publish()

		// Revoked: every version's page says so, in words.
		s.must(http.StatusOK, "POST", "/svc/"+s.id+"/employees/alice/revoke-record", s.key, nil)
		s.publish()
		revoked := "<strong>This record has been revoked.</strong> Its publisher withdrew it for good on "
		wantIn(t, "the revoked record's page", pageText(t, s.harness, rec), revoked, "it is no longer in force. Revocation is final.", "Version 3 of 3: <strong>current")
		wantIn(t, "an older version of the revoked record", pageText(t, s.harness, rec+"?version="+url.QueryEscape(v1)), revoked,
			"no longer in force, whatever this older version says", "superseded by <a href=\""+rec+"\">version 3 of 3</a>")
		// A suspended record, and a record of a revoked registry.
		s.must(http.StatusOK, "POST", "/svc/"+s.id+"/employees/bob/suspend-record", s.key, nil)
		s.publish()
		wantIn(t, "the suspended record's page", pageText(t, s.harness, ns+"/employees/bob"), "<strong>This record is suspended</strong> since ", "it is not in force for now")
		// Deleted: a past version's page says the record is gone, and superseded by its tombstone.
		bobV := s.must(http.StatusOK, "GET", "/svc/lookup/"+s.id+"/employees/bob", "", nil).data()["version"].(string)
		s.must(http.StatusOK, "DELETE", "/svc/"+s.id+"/employees/delete-records", s.key, `{"records":["bob"]}`)
		s.publish()
		wantIn(t, "a deleted record's past version", pageText(t, s.harness, ns+"/employees/bob?version="+url.QueryEscape(bobV)),
			"<strong>This record is no longer in the directory:</strong>", "superseded by")
		s.must(http.StatusCreated, "POST", "/svc/"+s.id+"/employees/add-record", s.key, `{"record_name":"erin","details":{"email":"erin@example.com"}}`)
		s.must(http.StatusOK, "POST", "/svc/"+s.id+"/employees/revoke-registry", s.key, nil)
		s.publish()
		wantIn(t, "a record of the revoked registry", pageText(t, s.harness, ns+"/employees/erin"), "its registry, <bdi>employees</bdi>, has been revoked")
		wantIn(t, "the revoked registry's page", pageText(t, s.harness, ns+"/employees"), "<strong>This registry has been revoked</strong>")
	})
}

// TestExplorerWithoutStateIndex: an instance whose state query cannot answer (no serving
// index, or one catching up: 503) still serves every page, saying that whether a newer version
// exists cannot be told now.
func TestExplorerWithoutStateIndex(t *testing.T) {
	h, id := explorerSite(t, store.DialectSQLite)
	body := pageText(t, h, "/explore/n/"+url.PathEscape(id)+"/employees/alice")
	wantIn(t, "the record page", body, "Version 1 of 1. Whether a newer version exists cannot be told now: ")
}

// TestExplorerDetails: issue 43 A.9. The log's root hash is hex on the home page and the log
// page (its base64 labelled as the checkpoint format's); the log page has a breadcrumb; the
// home page shows no count of users; an empty description shows no empty label.
func TestExplorerDetails(t *testing.T) {
	s := newStateSite(t, store.DialectSQLite, nil)
	cp := getPage(t, s.harness, "/svc/log/checkpoint").Body.String()
	root, err := base64.StdEncoding.DecodeString(strings.Split(cp, "\n")[2])
	if err != nil || len(root) != 32 {
		t.Fatalf("the checkpoint %q: %v", cp, err)
	}
	rootHex := hex.EncodeToString(root)
	home := pageText(t, s.harness, "/explore")
	wantIn(t, "the home page", home, `<code class="hash">`+rootHex+`</code> (hex)`)
	if strings.Contains(home, "<dt>Users</dt>") {
		t.Errorf("the home page shows a count of users")
	}
	logPage := pageText(t, s.harness, "/explore/log")
	wantIn(t, "the log page", logPage, `<nav aria-label="Breadcrumb" class="crumbs"><a href="/explore">Explorer</a> › <span aria-current="page">Transparency log</span></nav>`,
		"<dt>Root hash (hex)</dt><dd><code class=\"hash\">"+rootHex, "Root hash (base64, as the checkpoint format writes it)")
	// An empty description: no Description label.
	s.must(http.StatusCreated, "POST", "/svc/"+s.id+"/employees/add-record", s.key, `{"record_name":"dora","details":{"email":"dora@example.com"}}`)
	if body := pageText(t, s.harness, "/explore/n/"+url.PathEscape(s.id)+"/employees/dora"); strings.Contains(body, "<dt>Description</dt>") {
		t.Errorf("a record without a description shows the label")
	}
	wantIn(t, "a record with a description", pageText(t, s.harness, "/explore/n/"+url.PathEscape(s.id)+"/employees/alice"), "<dt>Description</dt><dd><bdi>Alice</bdi>")

	// The home page lists the namespaces and registries whose versions were logged last,
	// newest first: a second namespace comes before the first.
	beta := s.must(http.StatusCreated, "POST", "/svc/create-namespace", s.key, `{"name":"Beta","description":"b"}`).data()["namespace_id"].(string)
	s.must(http.StatusCreated, "POST", "/svc/"+beta+"/create-registry", s.key, `{"registry_name":"keys","schema":{"type":"object"}}`)
	s.publish()
	home = pageText(t, s.harness, "/explore")
	nsList := regexp.MustCompile(`(?s)<ul class="results" id="recent-namespaces">(.*?)</ul>`).FindStringSubmatch(home)
	regList := regexp.MustCompile(`(?s)<ul class="results" id="recent-registries">(.*?)</ul>`).FindStringSubmatch(home)
	if nsList == nil || regList == nil {
		t.Fatalf("the home page lists no recent namespaces or registries")
	}
	if b, a := strings.Index(nsList[1], "<bdi>Beta</bdi>"), strings.Index(nsList[1], "<bdi>Acme</bdi>"); b < 0 || a < b {
		t.Errorf("recent namespaces: %s", nsList[1])
	}
	if k, e := strings.Index(regList[1], `/`+beta+`/keys"`), strings.Index(regList[1], `/employees"`); k < 0 || e < k {
		t.Errorf("recent registries: %s", regList[1])
	}
}
