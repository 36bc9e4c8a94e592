package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
)

// logService is an in-process service with a transparency log: its HTTP server, an API key,
// the integrator and the verifier key.
type logService struct {
	t    *testing.T
	st   *store.Store
	srv  *httptest.Server
	key  string
	g    *translog.Integrator
	lk   translog.Key
	vkey string
}

func newLogService(t *testing.T, origin string) *logService {
	t.Helper()
	skey, vkey, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return newLogServiceWithKey(t, lk, vkey)
}

func newLogServiceWithKey(t *testing.T, lk translog.Key, vkey string) *logService {
	t.Helper()
	return newLogServiceLimited(t, lk, vkey, server.RateLimit{})
}

// newLogServiceLimited is a log service whose clients have the rate limit rl (RPS 0: none).
func newLogServiceLimited(t *testing.T, lk translog.Key, vkey string, rl server.RateLimit) *logService {
	t.Helper()
	st := storetest.Open(t, store.DialectSQLite)
	s, err := server.NewServer(server.Config{Store: st, LogVerifierKey: vkey, RateLimit: rl})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Echo())
	t.Cleanup(hs.Close)
	key, _, err := st.CreateAPIKey(context.Background(), "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return &logService{t: t, st: st, srv: hs, key: key, g: translog.NewIntegrator(st, lk, nil, nil), lk: lk, vkey: vkey}
}

func (l *logService) call(method, path, body string) []byte {
	l.t.Helper()
	req, _ := http.NewRequest(method, l.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+l.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		l.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		l.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return b
}

func (l *logService) integrate() {
	l.t.Helper()
	if _, err := l.g.IntegrateOnce(context.Background()); err != nil {
		l.t.Fatal(err)
	}
}

// populate creates a namespace, a registry and a record and returns the namespace id.
func (l *logService) populate(name string) string {
	l.t.Helper()
	var created struct {
		Data struct {
			NamespaceID string `json:"namespace_id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(l.call("POST", "/svc/create-namespace", `{"name":"`+name+`","description":"d"}`), &created)
	ns := created.Data.NamespaceID
	l.call("POST", "/svc/"+ns+"/create-registry", `{"registry_name":"r","schema":{"type":"object"}}`)
	l.call("POST", "/svc/"+ns+"/r/add-record", `{"record_name":"x","details":{"a":[1,"ü"]}}`)
	return ns
}

func TestVerifyInclusion(t *testing.T) {
	l := newLogService(t, "example.test/svc/log")
	ns := l.populate("n")
	l.call("POST", "/svc/"+ns+"/update-namespace", `{"description":"second"}`)
	l.integrate()
	dir := t.TempDir()
	save := saver(t, dir)
	lookups := map[string]string{
		"namespace": save("ns.json", l.call("GET", "/svc/lookup/"+ns, "")),
		"registry":  save("reg.json", l.call("GET", "/svc/lookup/"+ns+"/r", "")),
		"record":    save("rec.json", l.call("GET", "/svc/lookup/"+ns+"/r/x", "")),
	}
	version := func(file string) string {
		raw, _ := os.ReadFile(file)
		var v struct {
			Data struct {
				Version string `json:"version"`
			} `json:"data"`
		}
		_ = json.Unmarshal(raw, &v)
		return v.Data.Version
	}
	for kind, f := range lookups {
		code, out, errs := svc(t, "verify", "--kind", kind, "--log-key", l.vkey, "--url", l.srv.URL, f)
		if code != 0 || !strings.HasPrefix(out, "OK: "+kind) || !strings.Contains(out, "in log example.test/svc/log at tree size") {
			t.Fatalf("%s --url: exit %d %q %q", kind, code, out, errs)
		}
		inc := save(kind+".inclusion.json", l.call("GET", "/svc/log/inclusion/"+version(f), ""))
		if code, out, errs := svc(t, "verify", "--kind", kind, "--log-key", l.vkey, "--inclusion", inc, f); code != 0 {
			t.Fatalf("%s --inclusion: exit %d %q %q", kind, code, out, errs)
		}
	}

	// Tampering with the record's proof, one field at a time.
	rec := lookups["record"]
	var p leaf.InclusionProof
	if err := json.Unmarshal(l.call("GET", "/svc/log/inclusion/"+version(rec), ""), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Hashes) == 0 {
		t.Fatalf("no audit path in a tree of %d", p.TreeSize)
	}
	_, otherKey, _ := translog.GenerateKey("example.test/svc/log")
	_, otherName, _ := translog.GenerateKey("other.test/svc/log")
	sigStart := strings.LastIndex(p.Checkpoint, " ") + 1
	sig, _ := base64.StdEncoding.DecodeString(strings.TrimSpace(p.Checkpoint[sigStart:]))
	sig[len(sig)-1] ^= 1
	cases := []struct {
		name   string
		mutate func(p *leaf.InclusionProof)
		key    string
		want   string
	}{
		{"leaf", func(p *leaf.InclusionProof) {
			p.Leaf = strings.Replace(p.Leaf, `"version_count":1`, `"version_count":2`, 1)
		}, l.vkey, "is not the lookup's leaf"},
		{"proof hash", func(p *leaf.InclusionProof) { p.Hashes[0][0] ^= 1 }, l.vkey, "inclusion proof of leaf"},
		{"log index", func(p *leaf.InclusionProof) { p.LogIndex ^= 1 }, l.vkey, "inclusion proof of leaf"},
		{"checkpoint text", func(p *leaf.InclusionProof) {
			p.Checkpoint = strings.Replace(p.Checkpoint, "example.test/svc/log\n", "example.test/svc/log\n\n", 1)
		}, l.vkey, "checkpoint signature"},
		{"signature", func(p *leaf.InclusionProof) {
			p.Checkpoint = p.Checkpoint[:sigStart] + base64.StdEncoding.EncodeToString(sig) + "\n"
		}, l.vkey, "checkpoint signature"},
		{"wrong key", func(p *leaf.InclusionProof) {}, otherKey, "checkpoint signature"},
		{"key of another origin", func(p *leaf.InclusionProof) {}, otherName, "checkpoint signature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := p
			q.Hashes = make([][]byte, len(p.Hashes))
			for i, h := range p.Hashes {
				q.Hashes[i] = append([]byte(nil), h...)
			}
			tc.mutate(&q)
			b, _ := json.Marshal(q)
			inc := save(strings.ReplaceAll(tc.name, " ", "-")+".json", b)
			code, out, errs := svc(t, "verify", "--kind", "record", "--log-key", tc.key, "--inclusion", inc, rec)
			if code != 1 || !strings.HasPrefix(out, "FAILED: ") || !strings.Contains(out, tc.want) || strings.Count(out, "\n") != 1 {
				t.Fatalf("exit %d %q %q; want 1 and a line with %q", code, out, errs, tc.want)
			}
		})
	}
	// A draft-free lookup of another version does not match the proof of this one.
	code, out, _ := svc(t, "verify", "--kind", "namespace", "--log-key", l.vkey, "--inclusion", save("p.json", mustJSON(t, p)), lookups["namespace"])
	if code != 1 || !strings.Contains(out, "is not the lookup's leaf") {
		t.Fatalf("proof of another version: exit %d %q", code, out)
	}
	// Usage mistakes.
	for _, args := range [][]string{
		{"verify", "--kind", "record", "--log-key", l.vkey, rec},
		{"verify", "--kind", "record", "--inclusion", "x.json", rec},
		{"verify", "--kind", "record", "--log-key", l.vkey, "--inclusion", "x.json", "--url", l.srv.URL, rec},
	} {
		if code, _, _ := svc(t, args...); code != 2 {
			t.Fatalf("%q: exit %d, want 2", args, code)
		}
	}
	// Not yet in the log: the service's 404 is the reason.
	l.call("POST", "/svc/"+ns+"/update-namespace", `{"description":"third"}`)
	f := save("ns3.json", l.call("GET", "/svc/lookup/"+ns, ""))
	if code, out, _ := svc(t, "verify", "--kind", "namespace", "--log-key", l.vkey, "--url", l.srv.URL, f); code != 1 || !strings.Contains(out, "404") {
		t.Fatalf("queued version: exit %d %q", code, out)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
