package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// svc runs the command in-process and returns its exit status, stdout and stderr.
func svc(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestOperatorCommands(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			db := "--database-url=" + storetest.URL(t, d)
			code, out, errs := svc(t, "migrate", db)
			if code != 0 || !strings.Contains(out, "schema version") {
				t.Fatalf("migrate: %d %q %q", code, out, errs)
			}
			code, key, errs := svc(t, "key", "create", db, "--email", "Ops@Example.com")
			key = strings.TrimSpace(key)
			if code != 0 || store.ParseAPIKey(key) != nil || strings.Contains(key, "\n") {
				t.Fatalf("key create: %d %q %q", code, key, errs)
			}
			tests := []struct {
				name     string
				args     []string
				wantCode int
				wantOut  string
			}{
				{"add-key", []string{"user", "add-key", db, "--email", "ops@example.com", "--multibase", "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"}, 0, "added"},
				{"add-key twice", []string{"user", "add-key", db, "--email", "ops@example.com", "--multibase", "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"}, 1, ""},
				{"add-key not ed25519", []string{"user", "add-key", db, "--email", "ops@example.com", "--multibase", "zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"}, 1, ""},
				{"add-key not multibase", []string{"user", "add-key", db, "--email", "ops@example.com", "--multibase", "6Mkh"}, 1, ""},
				{"domain allow", []string{"domain", "allow", db, "Example.COM."}, 0, "allowed example.com"},
				{"domain allow wildcard", []string{"domain", "allow", db, "*.example.org"}, 0, "allowed *.example.org"},
				{"domain allow bad", []string{"domain", "allow", db, "not a domain"}, 1, ""},
				{"domain disallow", []string{"domain", "disallow", db, "example.com"}, 0, "disallowed example.com"},
				{"domain disallow again", []string{"domain", "disallow", db, "example.com"}, 1, ""},
				{"revoke", []string{"key", "revoke", db, "--key", key}, 0, "revoked"},
				{"revoke again", []string{"key", "revoke", db, "--key", key}, 1, ""},
				{"revoke malformed", []string{"key", "revoke", db, "--key", "nope"}, 1, ""},
				{"disable", []string{"user", "disable", db, "--email", "ops@example.com"}, 0, "disabled"},
				{"disable unknown", []string{"user", "disable", db, "--email", "who@example.com"}, 1, ""},
				{"key create without email", []string{"key", "create", db}, 2, ""},
				{"unknown command", []string{"frobnicate"}, 2, ""},
				{"no command", nil, 2, ""},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					code, out, errs := svc(t, tc.args...)
					if code != tc.wantCode || !strings.Contains(out, tc.wantOut) {
						t.Fatalf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tc.wantCode, out, tc.wantOut, errs)
					}
				})
			}
		})
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestServeShutsDownGracefully serves on the embedded default, checks health, readiness and the
// contract, then cancels (as SIGTERM does) while a slow request is in flight: the request finishes
// and serve returns 0.
func TestServeShutsDownGracefully(t *testing.T) {
	addr := freeAddr(t)
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "svc.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code, key, errs := svc(t, "key", "create", "--database-url", dbURL, "--email", "a@example.com")
	if code != 0 {
		t.Fatalf("key create: %s", errs)
	}
	key = strings.TrimSpace(key)
	logs := &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--addr", addr, "--database-url", dbURL}, io.Discard, logs) }()

	base := "http://" + addr
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range []string{"/readyz", "/openapi.yaml"} {
		resp, err := http.Get(base + p)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}

	// A request whose body arrives slowly is in flight when shutdown starts.
	pr, pw := io.Pipe()
	result := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, base+"/svc/create-namespace", pr)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				err = fmt.Errorf("status %d, want 201", resp.StatusCode)
			}
		}
		result <- err
	}()
	_, _ = pw.Write([]byte(`{"name":`))
	time.Sleep(100 * time.Millisecond)
	cancel()
	time.Sleep(100 * time.Millisecond)
	_, _ = pw.Write([]byte(`"x"}`))
	_ = pw.Close()
	if err := <-result; err != nil {
		t.Fatalf("in-flight request: %v", err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d\n%s", code, logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(logs.String(), "stopped") {
		t.Fatalf("no clean stop in the logs:\n%s", logs.String())
	}
}

// TestServeFailsReadinessWhileDraining: once SIGTERM arrives, /readyz answers 503 while the
// server goes on serving for the drain delay (load balancers stop sending traffic), then serve
// stops.
func TestServeFailsReadinessWhileDraining(t *testing.T) {
	addr := freeAddr(t)
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "svc.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	done := make(chan int, 1)
	const delay = 3 * time.Second
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--database-url", dbURL, "--drain-delay", delay.String()}, io.Discard, logs)
	}()
	base := "http://" + addr
	get := func(path string) (int, string) {
		t.Helper()
		// A new connection each time: the server must still accept them while draining.
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
		resp, err := c.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if code, _ := get("/readyz"); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not become ready\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopAt := time.Now()
	cancel() // as SIGTERM does
	// The 503 comes at once; half the delay leaves room for a loaded machine.
	deadline = time.Now().Add(delay / 2)
	for {
		code, body := get("/readyz")
		if code == http.StatusServiceUnavailable && strings.Contains(body, "shutting down") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz while draining: %d %s; want 503\n%s", code, body, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := get("/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz while draining: %d %s; want 200 (requests are still served)", code, body)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d\n%s", code, logs.String())
		}
		if took := time.Since(stopAt); took < delay {
			t.Fatalf("serve stopped after %v, before the drain delay of %v", took, delay)
		}
	case <-time.After(delay + 20*time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(logs.String(), `"draining"`) || !strings.Contains(logs.String(), "stopped") {
		t.Fatalf("logs lack draining and stopped:\n%s", logs.String())
	}
}

// TestHTTPServerLimits: what the README says net/http answers itself, in plain text, before
// the service sees a request.
func TestHTTPServerLimits(t *testing.T) {
	srv := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}), newLogger(io.Discard, "error"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	raw := func(req string) string {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.WriteString(c, req)
		b, _ := io.ReadAll(c)
		return string(b)
	}
	for _, tc := range []struct{ name, req, want string }{
		{"fits", "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("a", 60<<10) + "\r\nConnection: close\r\n\r\n", "HTTP/1.1 204"},
		{"headers over 64 KiB", "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("a", 72<<10) + "\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain"},
		{"malformed request line", "GARBAGE\r\n\r\n", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain"},
		{"unknown transfer encoding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: zip\r\n\r\n", "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain"},
	} {
		if got := raw(tc.req); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: answer %.120q; want it to start with %q", tc.name, got, tc.want)
		}
	}
}
