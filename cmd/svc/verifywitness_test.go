package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/witnesstest"
)

// svc verify --witness-key: the version must be in a checkpoint cosigned by the quorum of the
// given witnesses: fetched (the cosigned checkpoint, and the proof in its tree) or from saved
// files; a version logged after the cosigned tree, a missing or forged cosignature, or a quorum
// not met fails.
func TestVerifyWitnessed(t *testing.T) {
	ctx := context.Background()
	l := newLogService(t, "example.test/svc/log")
	ns := l.populate("n")
	l.integrate()
	w1 := witnesstest.New(t, "w1.example", l.vkey)
	w2 := witnesstest.New(t, "w2.example", l.vkey)
	w3 := witnesstest.New(t, "w3.example", l.vkey) // never asked
	wt, err := translog.NewWitnesser(l.st, l.vkey, []translog.WitnessConfig{{Key: w1.VerifierKey, URL: w1.URL}, {Key: w2.VerifierKey, URL: w2.URL}}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := wt.WitnessOnce(ctx); err != nil || n != 2 {
		t.Fatalf("witness: %d %v", n, err)
	}
	dir := t.TempDir()
	save := saver(t, dir)
	rec := save("rec.json", l.call("GET", "/svc/lookup/"+ns+"/r/x", ""))
	// The log grows past the cosigned checkpoint.
	l.call("POST", "/svc/"+ns+"/update-namespace", `{"description":"second"}`)
	l.integrate()
	later := save("ns.json", l.call("GET", "/svc/lookup/"+ns, ""))

	verify := func(args ...string) (int, string) {
		t.Helper()
		code, out, errs := svc(t, append([]string{"verify", "--log-key", l.vkey}, args...)...)
		return code, out + errs
	}
	if code, out := verify("--kind", "record", "--url", l.srv.URL, "--witness-key", w1.VerifierKey, "--witness-key", w2.VerifierKey, rec); code != 0 ||
		!strings.Contains(out, "cosigned by at least 2 of 2 witnesses") {
		t.Fatalf("cosigned: exit %d %q", code, out)
	}
	if code, out := verify("--kind", "namespace", "--url", l.srv.URL, "--witness-key", w1.VerifierKey, later); code != 1 || !strings.Contains(out, "not in the transparency log's tree") {
		t.Fatalf("a version logged after the cosigned tree: exit %d %q", code, out)
	}
	if code, out := verify("--kind", "record", "--url", l.srv.URL, "--witness-key", w3.VerifierKey, rec); code != 1 || !strings.Contains(out, "FAILED") {
		t.Fatalf("a witness that did not cosign: exit %d %q", code, out)
	}
	if code, out := verify("--kind", "record", "--url", l.srv.URL, "--witness-key", w1.VerifierKey, "--witness-key", w3.VerifierKey, "--witness-quorum", "1", rec); code != 0 {
		t.Fatalf("quorum 1 of w1 and w3: exit %d %q", code, out)
	}
	if code, out := verify("--kind", "record", "--url", l.srv.URL, "--witness-key", w1.VerifierKey, "--witness-key", w3.VerifierKey, rec); code != 1 {
		t.Fatalf("quorum 2 of w1 and w3: exit %d %q", code, out)
	}
	// Offline: the saved cosigned checkpoint and the proof in its tree.
	cosigned := l.call("GET", "/svc/log/cosigned-checkpoint", "")
	cp := save("cosigned.txt", cosigned)
	size := strings.Split(string(cosigned), "\n")[1]
	var recVersion struct {
		Data struct {
			Version string `json:"version"`
		} `json:"data"`
	}
	raw, _ := os.ReadFile(rec)
	_ = json.Unmarshal(raw, &recVersion)
	inc := save("rec.inclusion.json", l.call("GET", "/svc/log/inclusion/"+recVersion.Data.Version+"?size="+size, ""))
	keys := []string{"--witness-key", w1.VerifierKey, "--witness-key", w2.VerifierKey}
	if code, out := verify(append(append([]string{"--kind", "record", "--inclusion", inc, "--checkpoint", cp}, keys...), rec)...); code != 0 {
		t.Fatalf("offline: exit %d %q", code, out)
	}
	// Tampering: w2's cosignature dropped, or one of its bytes changed.
	lines := strings.SplitAfter(string(cosigned), "\n")
	var dropped, forged []string
	for _, line := range lines {
		if strings.HasPrefix(line, "— w2.example ") {
			b := []byte(line)
			b[len(b)-3] ^= 1
			forged = append(forged, string(b))
			continue
		}
		dropped, forged = append(dropped, line), append(forged, line)
	}
	for name, text := range map[string]string{"dropped": strings.Join(dropped, ""), "forged": strings.Join(forged, "")} {
		f := save(name+".txt", []byte(text))
		if code, out := verify(append(append([]string{"--kind", "record", "--inclusion", inc, "--checkpoint", f}, keys...), rec)...); code != 1 || !strings.Contains(out, "FAILED") {
			t.Fatalf("%s cosignature: exit %d %q", name, code, out)
		}
	}
	// Usage.
	for _, args := range [][]string{
		{"verify", "--kind", "record", "--witness-key", w1.VerifierKey, rec},
		{"verify", "--kind", "record", "--log-key", l.vkey, "--url", l.srv.URL, "--witness-key", w1.VerifierKey, "--witness-quorum", "2", rec},
		{"verify", "--kind", "record", "--log-key", l.vkey, "--url", l.srv.URL, "--checkpoint", cp, "--witness-key", w1.VerifierKey, rec},
		{"verify", "--kind", "record", "--log-key", l.vkey, "--inclusion", inc, "--checkpoint", cp, rec},
	} {
		if code, _, _ := svc(t, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// svc serve --log-witnesses submits the log's checkpoints to the witnesses in the background
// and serves the checkpoint once the quorum cosigned it; a malformed witness list or quorum is a
// usage error.
func TestServeWithWitnesses(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "log.key")
	lk, err := translog.WriteKeyFile(keyFile, "localhost:8080/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	w := witnesstest.New(t, "w1.example", lk.VerifierKey)
	dbURL := "sqlite://" + filepath.Join(dir, "svc.db")
	for _, bad := range [][]string{
		{"--log-witnesses", "nokey " + w.URL},
		{"--log-witnesses", w.VerifierKey + " " + w.URL, "--log-witness-quorum", "2"},
	} {
		args := append([]string{"serve", "--addr", freeAddr(t), "--database-url", dbURL, "--log-key-file", keyFile, "--did-host", "localhost%3A8080"}, bad...)
		if code, _, errs := svc(t, args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", bad, code, errs)
		}
	}
	key := apiKey(t, dbURL)
	srv := startServe(t, dbURL, "--log-key-file", keyFile, "--did-host", "localhost%3A8080", "--log-witnesses", w.VerifierKey+" "+w.URL)
	base, logs := srv.base, srv.logs
	for deadline := time.Now().Add(10 * time.Second); ; {
		req, _ := http.NewRequest(http.MethodPost, base+"/svc/create-namespace", strings.NewReader(`{"name":"n"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusCreated {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("create-namespace: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	var body []byte
	for deadline := time.Now().Add(15 * time.Second); ; {
		if resp, err := http.Get(base + "/svc/log/cosigned-checkpoint"); err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cosigned checkpoint: %s\n%s", body, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := translog.VerifyCosigned(body, lk.VerifierKey, []string{w.VerifierKey}, 1); err != nil {
		t.Fatalf("served cosigned checkpoint: %v\n%s", err, body)
	}
	if code := srv.stop(); code != 0 {
		t.Fatalf("serve exited %d\n%s", code, logs.String())
	}
}

// saver returns a function that writes a file into dir and returns its path.
func saver(t *testing.T, dir string) func(name string, body []byte) string {
	return func(name string, body []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// apiKey creates an API key for a@example.com in the database of dbURL.
func apiKey(t *testing.T, dbURL string) string {
	t.Helper()
	code, key, errs := svc(t, "key", "create", "--database-url", dbURL, "--email", "a@example.com")
	if code != 0 {
		t.Fatalf("key create: %s", errs)
	}
	return strings.TrimSpace(key)
}

// served is a `svc serve` running in the test on a free port.
type served struct {
	base string
	logs *syncBuffer
	stop func() int // stops it and returns its exit code
}

// startServe runs `svc serve` on dbURL with more arguments until the test ends or stop is called.
func startServe(t *testing.T, dbURL string, args ...string) *served {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", addr, "--database-url", dbURL}, args...), io.Discard, logs)
	}()
	var once sync.Once
	code := 0
	stop := func() int {
		once.Do(func() { cancel(); code = <-done })
		return code
	}
	t.Cleanup(func() { stop() })
	return &served{base: "http://" + addr, logs: logs, stop: stop}
}
