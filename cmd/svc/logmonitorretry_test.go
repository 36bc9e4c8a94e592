package main

import (
	"context"
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
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
)

// recorder is a loopback proxy before a service that counts its answers by status and keeps
// the Authorization header of every request; answer, when set, answers a request itself
// (true) instead of the service.
type recorder struct {
	srv    *httptest.Server
	mu     sync.Mutex
	status map[int]int
	auth   map[string]int
	times  []time.Time
	answer func(w http.ResponseWriter, r *http.Request) bool
}

func newRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{status: map[int]int{}, auth: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		rec.mu.Lock()
		rec.status[resp.StatusCode]++
		rec.mu.Unlock()
		return nil
	}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.auth[r.Header.Get("Authorization")]++
		rec.times = append(rec.times, time.Now())
		answer := rec.answer
		rec.mu.Unlock()
		if answer != nil && answer(w, r) {
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

// TestLogMonitorUnderTheDefaultRateLimit: a monitor run over a log of 20,005 leaves, served
// with the default rate limit of svc serve (50/s, burst 100) to a client whose burst is used
// up, is answered 429 on the way and still verifies the whole log (exit 0), honouring
// Retry-After. It failed with "FAILED:" and exit 1 on the first 429.
func TestLogMonitorUnderTheDefaultRateLimit(t *testing.T) {
	cfg, err := parseServeConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RateLimitRPS != 50 || cfg.RateLimitBurst != 100 {
		t.Fatalf("default rate limit %v/s burst %d (SVC_RATE_LIMIT_* set?)", cfg.RateLimitRPS, cfg.RateLimitBurst)
	}
	skey, vkey, err := translog.GenerateKey("example.test/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	l := newLogServiceLimited(t, lk, vkey, server.RateLimit{RPS: cfg.RateLimitRPS, Burst: cfg.RateLimitBurst})
	ns := l.populate("n")
	for b := range 20 {
		recs := make([]string, 1000)
		for i := range recs {
			recs[i] = fmt.Sprintf(`{"record_name":"b%d-%d","details":{"i":%d}}`, b, i, i)
		}
		l.call("POST", "/svc/"+ns+"/r/add-records", `{"records":[`+strings.Join(recs, ",")+`]}`)
	}
	l.call("POST", "/svc/"+ns+"/update-namespace", `{"description":"second"}`)
	l.call("POST", "/svc/"+ns+"/update-namespace", `{"description":"third"}`)
	for {
		n, err := l.g.IntegrateOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	// Another client at the same address has just used the address's burst: the monitor starts
	// with none (a run as fast as the limit, on a slow machine, would otherwise never meet it).
	for i := 0; ; i++ {
		resp, err := http.Get(l.srv.URL + "/svc/log/checkpoint")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			break
		}
		if i > 1000 {
			t.Fatal("no 429 after 1,000 requests: is the limit on?")
		}
	}
	rec := newRecorder(t, l.srv.URL)
	state := filepath.Join(t.TempDir(), "monitor.json")
	start := time.Now()
	code, out, errs := svc(t, "log", "monitor", "--url", rec.srv.URL, "--log-key", l.vkey, "--state", state)
	if code != 0 || !strings.HasPrefix(out, "OK: log example.test/svc/log size 20005 (20005 new leaves)") {
		t.Fatalf("exit %d %q %q; answers %v", code, out, errs, rec.status)
	}
	if rec.status[http.StatusTooManyRequests] == 0 {
		t.Fatalf("no 429 in %v", rec.status)
	}
	fi, err := os.Stat(state)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v in %s; state file %d bytes for 20,005 leaves (%.1f a leaf)", rec.status, time.Since(start).Round(time.Millisecond), fi.Size(), float64(fi.Size())/20005)
	if fi.Size() > 23*20005+2000 {
		t.Fatalf("state file of %d bytes", fi.Size())
	}
}

// TestLogMonitorCannotReadTheLog: a service that answers 429 or 503 forever, or not at all,
// or with a 429 on every hash tile (where a 429 was reported as an inconsistency), ends the
// run with exit 2, "ERROR:" and the reason, after retries that wait Retry-After, and leaves
// the state file as it was.
func TestLogMonitorCannotReadTheLog(t *testing.T) {
	l := newLogService(t, "example.test/svc/log")
	l.populate("n")
	l.integrate()
	rec := newRecorder(t, l.srv.URL)
	state := filepath.Join(t.TempDir(), "monitor.json")
	run := func(args ...string) (int, string, string) {
		return svc(t, append([]string{"log", "monitor", "--url", rec.srv.URL, "--log-key", l.vkey, "--state", state}, args...)...)
	}
	answer := func(status int, retryAfter string, paths func(string) bool) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		rec.times = nil
		rec.answer = func(w http.ResponseWriter, r *http.Request) bool {
			if !paths(r.URL.Path) {
				return false
			}
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, `{"message":"busy"}`)
			return true
		}
	}
	every := func(string) bool { return true }
	notChecked := func(name, want string, code int, out string) {
		t.Helper()
		t.Logf("%s: exit %d %s", name, code, out)
		if code != 2 || !strings.HasPrefix(out, "ERROR: could not read the log: GET ") || !strings.Contains(out, want) || strings.Count(out, "\n") != 1 {
			t.Fatalf("%s: exit %d %q; want 2 and ERROR: ... %q", name, code, out, want)
		}
		if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: state file written: %v", name, err)
		}
	}

	answer(http.StatusTooManyRequests, "1", every)
	code, out, _ := run("--retries", "2")
	notChecked("429 forever", "/svc/log/checkpoint: 429 Too Many Requests busy; gave up after 3 tries", code, out)
	if len(rec.times) != 3 || rec.times[1].Sub(rec.times[0]) < time.Second || rec.times[2].Sub(rec.times[1]) < time.Second {
		t.Fatalf("429 forever: requests at %v, want 3 a second apart (Retry-After: 1)", rec.times)
	}

	answer(http.StatusServiceUnavailable, "", every)
	code, out, _ = run("--retries", "3", "--max-wait", "20ms")
	notChecked("503 forever", "503 Service Unavailable busy; gave up after 4 tries", code, out)

	answer(http.StatusServiceUnavailable, "3600", every)
	code, out, _ = run()
	notChecked("a Retry-After beyond --max-wait", "it asks to retry after 1h0m0s, longer than --max-wait 1m0s", code, out)
	if len(rec.times) != 1 {
		t.Fatalf("a Retry-After beyond --max-wait: %d requests", len(rec.times))
	}

	answer(http.StatusNotFound, "", every)
	code, out, _ = run()
	notChecked("404", "404 Not Found busy", code, out)
	if len(rec.times) != 1 {
		t.Fatalf("404: retried (%d requests)", len(rec.times))
	}

	// The hash tiles only: the checkpoint and the bundle read, the tile hash reader cannot.
	answer(http.StatusTooManyRequests, "1", func(p string) bool {
		return strings.Contains(p, "/svc/log/tile/") && !strings.Contains(p, "/tile/entries/")
	})
	code, out, _ = run("--retries", "1")
	notChecked("429 on the hash tiles", "/svc/log/tile/0/000.p/3: 429 Too Many Requests busy; gave up after 2 tries", code, out)

	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	code, out, _ = svc(t, "log", "monitor", "--url", gone.URL, "--log-key", l.vkey, "--state", state, "--retries", "1", "--max-wait", "10ms")
	notChecked("no service", "connection refused; gave up after 2 tries", code, out)

	// A state file that cannot be read: not checked either.
	if err := os.WriteFile(state, []byte(`{"entries":"!"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	answer(0, "", func(string) bool { return false })
	if code, out, _ := run(); code != 2 || !strings.HasPrefix(out, "ERROR: the log was not checked: state file ") {
		t.Fatalf("damaged state file: exit %d %q", code, out)
	}
	_ = os.Remove(state)
	if code, out, errs := run(); code != 0 {
		t.Fatalf("answered again: exit %d %q %q", code, out, errs)
	}
	if code, _, _ := run("--retries", "-1"); code != 2 {
		t.Fatalf("--retries -1: exit %d", code)
	}
}

// TestLogMonitorSendsTheKey: with --key, every request of the monitor carries the key (so that
// the key's own rate limit applies); without, none does.
func TestLogMonitorSendsTheKey(t *testing.T) {
	l := newLogService(t, "example.test/svc/log")
	l.populate("n")
	l.integrate()
	rec := newRecorder(t, l.srv.URL)
	state := filepath.Join(t.TempDir(), "monitor.json")
	if code, out, errs := svc(t, "log", "monitor", "--url", rec.srv.URL, "--log-key", l.vkey, "--state", state, "--key", l.key); code != 0 {
		t.Fatalf("exit %d %q %q", code, out, errs)
	}
	if len(rec.auth) != 1 || rec.auth["Bearer "+l.key] < 3 {
		t.Fatalf("Authorization headers %v", rec.auth)
	}
	rec.auth = map[string]int{}
	if code, out, errs := svc(t, "log", "monitor", "--url", rec.srv.URL, "--log-key", l.vkey, "--state", filepath.Join(t.TempDir(), "m.json")); code != 0 {
		t.Fatalf("exit %d %q %q", code, out, errs)
	}
	if len(rec.auth) != 1 || rec.auth[""] < 3 {
		t.Fatalf("Authorization headers without --key: %v", rec.auth)
	}
	var st leaf.MonitorState
	raw, _ := os.ReadFile(state)
	if err := json.Unmarshal(raw, &st); err != nil || st.Entries.Len() != 3 {
		t.Fatalf("state %s: %v", raw, err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    string
		want time.Duration
		ok   bool
	}{
		{"1", time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"Fri, 27 Nov 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Fri, 27 Nov 2026 11:00:00 GMT", 0, true},
	} {
		if d, ok := retryAfter(tc.h, now); d != tc.want || ok != tc.ok {
			t.Errorf("%q: %v %v, want %v %v", tc.h, d, ok, tc.want, tc.ok)
		}
	}
	for try, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second} {
		if got := backoff(try, 10*time.Second); got != want {
			t.Errorf("backoff %d: %v, want %v", try, got, want)
		}
	}
	if got := backoff(100, time.Minute); got != time.Minute {
		t.Errorf("backoff 100: %v", got)
	}
}
