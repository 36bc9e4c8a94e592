package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/stateindex"
)

// newStateService is a log service whose integrator keeps the state index and whose server
// answers state queries from its serving index (stepped by step).
func newStateService(t *testing.T, lk translog.Key, vkey string) (*logService, *translog.StateServer) {
	t.Helper()
	st := storetest.Open(t, store.DialectSQLite)
	ss := translog.NewStateServer(translog.NewReader(st), st, nil, nil)
	s, err := server.NewServer(server.Config{Store: st, LogVerifierKey: vkey, LogState: ss})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Echo())
	t.Cleanup(hs.Close)
	key, _, err := st.CreateAPIKey(context.Background(), "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return &logService{t: t, st: st, srv: hs, key: key, g: translog.NewIntegrator(st, lk, nil, nil).WithStateIndex(), lk: lk, vkey: vkey}, ss
}

func (l *logService) publish(ss *translog.StateServer) {
	l.t.Helper()
	l.integrate()
	if err := ss.Step(context.Background()); err != nil {
		l.t.Fatal(err)
	}
}

// get returns the status, Retry-After and body of an anonymous GET.
func get(t *testing.T, u string) (int, string, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), []byte(b.String())
}

// svc verify --current against the real server: the latest version is current; the stale
// answer (the older version, whose own inclusion proof is valid) is superseded, naming the
// latest; a version not logged yet is absent; an old answer is stale_checkpoint; forged
// answers are bad_proof; a state answer from another history signed by the same key is a
// fork. The state query itself: 503 + Retry-After before the first state leaf, 400 for a
// malformed id, 404 with the absence proof.
func TestVerifyCurrent(t *testing.T) {
	skey, vkey, err := translog.GenerateKey("example.test/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	l, ss := newStateService(t, lk, vkey)
	if code, retry, body := get(t, l.srv.URL+"/svc/log/state/"+"0193a1b2-0000-7000-8000-000000000001"); code != 503 || retry == "" {
		t.Fatalf("before any checkpoint: %d (Retry-After %q) %s", code, retry, body)
	}
	ns := l.populate("n")
	l.publish(ss)
	for _, bad := range []string{"", "people", "did:svc:0OIl", "0193A1B2-0000-7000-8000-000000000001", url.PathEscape("did:web:example.org")} {
		if code, _, body := get(t, l.srv.URL+"/svc/log/state/"+bad); code != 400 || !strings.Contains(string(body), "namespace_id") {
			t.Errorf("state of %q: %d %s", bad, code, body)
		}
	}
	absentID := "0193a1b2-0000-7000-8000-000000000001"
	code, _, body := get(t, l.srv.URL+"/svc/log/state/"+absentID)
	var ab stateindex.Answer
	if err := json.Unmarshal(body, &ab); code != 404 || err != nil || ab.Present || len(ab.Proof) == 0 || ab.Checkpoint == "" {
		t.Fatalf("an absent id: %d %s", code, body)
	}
	dir := t.TempDir()
	save := saver(t, dir)
	v1 := save("v1.json", l.call("GET", "/svc/lookup/"+ns+"/r/x", ""))
	verify := func(args ...string) (int, string) {
		t.Helper()
		code, out, errs := svc(t, append([]string{"verify", "--current", "--log-key", vkey}, args...)...)
		if strings.Count(out, "\n") != 1 {
			t.Fatalf("%q: want one line, got %q %q", args, out, errs)
		}
		return code, out
	}
	if code, out := verify("--url", l.srv.URL, v1); code != 0 || !strings.HasPrefix(out, "current: ") || !strings.Contains(out, "the log's own clock") {
		t.Fatalf("the latest version: %d %q", code, out)
	}
	for _, kind := range []string{"namespace", "registry"} {
		path := map[string]string{"namespace": ns, "registry": ns + "/r"}[kind]
		f := save(kind+".json", l.call("GET", "/svc/lookup/"+path, ""))
		if code, out := verify("--kind", kind, "--url", l.srv.URL, f); code != 0 || !strings.HasPrefix(out, "current: ") {
			t.Fatalf("the %s: %d %q", kind, code, out)
		}
	}
	// The record is updated: the older version (a stale answer, with its valid inclusion
	// proof, that an instance or a cache could still serve) is superseded.
	l.call("POST", "/svc/"+ns+"/r/x/update-record", `{"details":{"a":2}}`)
	l.publish(ss)
	if code, out, _ := svc(t, "verify", "--kind", "record", "--log-key", vkey, "--url", l.srv.URL, v1); code != 0 {
		t.Fatalf("the older version is still in the log: %d %q", code, out)
	}
	code, out := verify("--url", l.srv.URL, v1)
	if code != 1 || !strings.HasPrefix(out, "superseded: ") || !strings.Contains(out, "version_count 2") || !strings.Contains(out, "at log index") {
		t.Fatalf("the older version: %d %q", code, out)
	}
	v2 := save("v2.json", l.call("GET", "/svc/lookup/"+ns+"/r/x", ""))
	if code, out := verify("--url", l.srv.URL, v2); code != 0 || !strings.HasPrefix(out, "current: ") {
		t.Fatalf("the newer version: %d %q", code, out)
	}
	// Absent: a record written but not in the published checkpoint yet.
	l.call("POST", "/svc/"+ns+"/r/add-record", `{"record_name":"y","details":{"a":1}}`)
	y := save("y.json", l.call("GET", "/svc/lookup/"+ns+"/r/y", ""))
	if code, out := verify("--url", l.srv.URL, y); code != 1 || !strings.HasPrefix(out, "absent: ") {
		t.Fatalf("a record not logged yet: %d %q", code, out)
	}
	// Stale: the answer is older than --max-age by the log's clock.
	time.Sleep(20 * time.Millisecond)
	if code, out := verify("--max-age", "5ms", "--url", l.srv.URL, v2); code != 1 || !strings.HasPrefix(out, "stale_checkpoint: ") || !strings.Contains(out, "the log's own clock") {
		t.Fatalf("--max-age 5ms: %d %q", code, out)
	}
	// Forged answers, saved and read with --state.
	var a stateindex.Answer
	if err := json.Unmarshal(l.call("GET", "/svc/log/state/"+lookupID(t, v2), ""), &a); err != nil {
		t.Fatal(err)
	}
	if code, out := verify("--state", save("a.json", mustJSON(t, a)), v2); code != 0 {
		t.Fatalf("the saved answer: %d %q", code, out)
	}
	forged := map[string]func(a stateindex.Answer) stateindex.Answer{
		"a changed sibling": func(a stateindex.Answer) stateindex.Answer {
			a.Proof = append([]byte(nil), a.Proof...)
			a.Proof[len(a.Proof)-1] ^= 1
			return a
		},
		"a truncated list": func(a stateindex.Answer) stateindex.Answer { a.Count--; return a },
		"a changed checkpoint": func(a stateindex.Answer) stateindex.Answer {
			a.Checkpoint = strings.Replace(a.Checkpoint, "\n", "\n\n", 1)
			return a
		},
		"a state leaf not last": func(a stateindex.Answer) stateindex.Answer { a.State.LogIndex--; return a },
		"not a state answer":    func(a stateindex.Answer) stateindex.Answer { return stateindex.Answer{Checkpoint: a.Checkpoint} },
		"the latest leaf swapped": func(a stateindex.Answer) stateindex.Answer {
			a.Latest.Leaf = strings.Replace(a.Latest.Leaf, `"version_count":2`, `"version_count":1`, 1)
			return a
		},
	}
	for name, f := range forged {
		b, _ := json.Marshal(a)
		var c stateindex.Answer
		_ = json.Unmarshal(b, &c)
		if code, out := verify("--state", save(strings.ReplaceAll(name, " ", "-")+".json", mustJSON(t, f(c))), v2); code != 1 || !strings.HasPrefix(out, "bad_proof: ") {
			t.Errorf("%s: %d %q", name, code, out)
		}
	}
	// A fork: another history signed with the same key serves the state answer.
	other, oss := newStateService(t, lk, vkey)
	other.populate("other")
	other.publish(oss)
	forkSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := l.srv.URL
		if strings.HasPrefix(r.URL.Path, "/svc/log/state/") {
			target = other.srv.URL
		}
		u, _ := url.Parse(target)
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	defer forkSrv.Close()
	if code, out := verify("--url", forkSrv.URL, v2); code != 1 || !strings.HasPrefix(out, "fork: ") {
		t.Fatalf("another history's answer: %d %q", code, out)
	}
}

// lookupID is the record_id of a saved record lookup.
func lookupID(t *testing.T, file string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Data struct {
			RecordID string `json:"record_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v.Data.RecordID
}
