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

	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
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
