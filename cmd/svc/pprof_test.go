package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServePprofListener: with --pprof-addr (SVC_PPROF_ADDR) on a loopback address, svc serve
// serves Go's pprof handlers there and not on the API's address; without it there is no such
// listener; a non-loopback address is a usage error (exit 2) before anything is served.
func TestServePprofListener(t *testing.T) {
	get := func(url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	pprofAddr := func(logs string) string {
		sc := bufio.NewScanner(strings.NewReader(logs))
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "pprof listening" {
				return line.Addr
			}
		}
		return ""
	}

	srv := startServe(t, "sqlite://"+filepath.Join(t.TempDir(), "p.db"), "--pprof-addr", "127.0.0.1:0")
	waitServing(t, srv)
	addr := pprofAddr(srv.logs.String())
	if addr == "" {
		t.Fatalf("no pprof listener logged:\n%s", srv.logs.String())
	}
	if code, body := get("http://" + addr + "/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Fatalf("pprof index: %d %.200s", code, body)
	}
	if code, _ := get("http://" + addr + "/debug/pprof/heap?debug=1"); code != http.StatusOK {
		t.Fatalf("pprof heap: %d", code)
	}
	if code, _ := get(srv.base + "/debug/pprof/"); code == http.StatusOK {
		t.Fatal("the API's address serves pprof")
	}
	if code := srv.stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := http.Get("http://" + addr + "/debug/pprof/"); err != nil {
			break // closed with the server
		}
		if time.Now().After(deadline) {
			t.Fatal("the pprof listener outlived svc serve")
		}
		time.Sleep(20 * time.Millisecond)
	}

	off := startServe(t, "sqlite://"+filepath.Join(t.TempDir(), "q.db"))
	waitServing(t, off)
	if a := pprofAddr(off.logs.String()); a != "" {
		t.Fatalf("a pprof listener without SVC_PPROF_ADDR: %s", a)
	}
	off.stop()

	for _, bad := range []string{"0.0.0.0:6060", "192.0.2.1:6060", "example.org:6060", "6060"} {
		code, _, errOut := svc(t, "serve", "--addr", "127.0.0.1:0", "--database-url", "sqlite://"+filepath.Join(t.TempDir(), "r.db"), "--pprof-addr", bad)
		if code != 2 || !strings.Contains(errOut, "SVC_PPROF_ADDR") {
			t.Errorf("--pprof-addr %s: exit %d, %q", bad, code, errOut)
		}
	}
}
