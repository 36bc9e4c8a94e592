package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svc-directory/svc/translog/leaf"
)

func TestLogMonitor(t *testing.T) {
	l := newLogService(t, "example.test/svc/log")
	ns := l.populate("n")
	// A draft (not logged) published later (logged): the entry's logged versions still count
	// up by one.
	l.call("POST", "/svc/"+ns+"/r/add-record", `{"record_name":"d","details":{},"state":"draft"}`)
	l.integrate()
	state := filepath.Join(t.TempDir(), "monitor.json")
	monitor := func(url, vkey string) (int, string, string) {
		return svc(t, "log", "monitor", "--url", url, "--log-key", vkey, "--state", state)
	}
	code, out, errs := monitor(l.srv.URL, l.vkey)
	if code != 0 || !strings.HasPrefix(out, "OK: log example.test/svc/log size 3 (3 new leaves)") {
		t.Fatalf("first run: exit %d %q %q", code, out, errs)
	}
	// More writes, over an entry-bundle boundary (256 leaves).
	l.call("POST", "/svc/"+ns+"/r/d/publish-record", "")
	var recs []string
	for i := range 300 {
		recs = append(recs, fmt.Sprintf(`{"record_name":"b%d","details":{"i":%d}}`, i, i))
	}
	l.call("POST", "/svc/"+ns+"/r/add-records", `{"records":[`+strings.Join(recs, ",")+`]}`)
	l.call("POST", "/svc/"+ns+"/update-namespace", `{"description":"second"}`)
	l.integrate()
	code, out, errs = monitor(l.srv.URL, l.vkey)
	if code != 0 || !strings.HasPrefix(out, "OK: log example.test/svc/log size 305 (302 new leaves)") {
		t.Fatalf("second run: exit %d %q %q", code, out, errs)
	}
	var st leaf.MonitorState
	raw, _ := os.ReadFile(state)
	if err := json.Unmarshal(raw, &st); err != nil || st.Entries.Get("namespace "+ns) != 2 || st.Entries.Len() != 304 {
		t.Fatalf("state: %v, %d entries", err, st.Entries.Len())
	}
	// Nothing new: still fine.
	if code, out, errs := monitor(l.srv.URL, l.vkey); code != 0 || !strings.Contains(out, "(0 new leaves)") {
		t.Fatalf("third run: exit %d %q %q", code, out, errs)
	}
	kept, _ := os.ReadFile(state)

	// Another log signed with the same key (a fork): larger, equal-sized and smaller than the
	// stored tree, each refused with a clear reason and the state file left as it was.
	refused := func(name, url, vkey, want string) {
		t.Helper()
		code, out, errs := monitor(url, vkey)
		if code != 1 || !strings.HasPrefix(out, "FAILED: ") || !strings.Contains(out, want) || strings.Count(out, "\n") != 1 {
			t.Fatalf("%s: exit %d %q %q; want 1 and a line with %q", name, code, out, errs, want)
		}
		if now, _ := os.ReadFile(state); string(now) != string(kept) {
			t.Fatalf("%s: the state file changed", name)
		}
	}
	bigger := newLogServiceWithKey(t, l.lk, l.vkey)
	bns := bigger.populate("n")
	bigger.call("POST", "/svc/"+bns+"/r/add-records", `{"records":[`+strings.Join(recs, ",")+`]}`)
	bigger.integrate()
	bigger.call("POST", "/svc/"+bns+"/update-namespace", `{"description":"x"}`)
	bigger.call("POST", "/svc/"+bns+"/update-namespace", `{"description":"y"}`)
	bigger.call("POST", "/svc/"+bns+"/update-namespace", `{"description":"z"}`)
	bigger.integrate()
	refused("bigger fork", bigger.srv.URL, l.vkey, "the stored checkpoint of size 305 is not a prefix of the new one of size 306")
	smaller := newLogServiceWithKey(t, l.lk, l.vkey)
	smaller.populate("n")
	smaller.integrate()
	refused("smaller fork", smaller.srv.URL, l.vkey, "the log shrank from 305 to 3")
	// The right log, but the wrong key, or a stored checkpoint signed by another key.
	other := newLogService(t, "example.test/svc/log")
	refused("wrong key", l.srv.URL, other.vkey, "the stored checkpoint: checkpoint signature")
	var forged leaf.MonitorState
	_ = json.Unmarshal(kept, &forged)
	other.populate("n")
	other.integrate()
	code, out, _ = svc(t, "log", "monitor", "--url", other.srv.URL, "--log-key", other.vkey, "--state", filepath.Join(t.TempDir(), "o.json"))
	if code != 0 {
		t.Fatalf("other log: %d %q", code, out)
	}
	if err := os.WriteFile(state, kept, 0o600); err != nil {
		t.Fatal(err)
	}
	refused("served checkpoint of another key", other.srv.URL, l.vkey, "the served checkpoint: checkpoint signature")
	// Usage.
	if code, _, _ := svc(t, "log", "monitor", "--url", l.srv.URL, "--state", state); code != 2 {
		t.Fatalf("without --log-key: exit %d", code)
	}
}

// TestLogMonitorRefusesForeignLeaves: entry bundles whose leaves are well-formed and count up
// correctly but are not the leaves of the signed tree are refused.
func TestLogMonitorRefusesForeignLeaves(t *testing.T) {
	l := newLogService(t, "example.test/svc/log")
	l.populate("n")
	l.integrate()
	target, _ := url.Parse(l.srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if !strings.Contains(resp.Request.URL.Path, "/tile/entries/") {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		// Another digest of the same length: still a canonical leaf.
		i := bytes.Index(b, []byte(`"digest":"0x`)) + len(`"digest":"0x`)
		if b[i] == '0' {
			b[i] = '1'
		} else {
			b[i] = '0'
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Del("Content-Length")
		return nil
	}
	ps := httptest.NewServer(proxy)
	defer ps.Close()
	state := filepath.Join(t.TempDir(), "monitor.json")
	code, out, errs := svc(t, "log", "monitor", "--url", ps.URL, "--log-key", l.vkey, "--state", state)
	if code != 1 || !strings.Contains(out, "FAILED: leaf 0 of the entry bundle is not the tree's leaf 0") {
		t.Fatalf("exit %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("state file written: %v", err)
	}
	if code, out, errs := svc(t, "log", "monitor", "--url", l.srv.URL, "--log-key", l.vkey, "--state", state); code != 0 {
		t.Fatalf("untampered: exit %d %q %q", code, out, errs)
	}
}
