package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/store"
)

// TestLogMonitorDomainLeaves: svc log monitor passes over a log that holds domain leaves
// (a namespace gaining a domain, losing it, and another gaining it) and prints each binding
// change after the OK line.
func TestLogMonitorDomainLeaves(t *testing.T) {
	l := newLogService(t, "example.test/svc/log")
	ctx := context.Background()
	first := l.populate("n")
	second := l.populate("m")
	if err := l.st.MarkVerified(ctx, first, "bound.example", store.MethodSelfDNS, time.Hour); err != nil {
		t.Fatal(err)
	}
	l.integrate()
	state := filepath.Join(t.TempDir(), "monitor.json")
	monitor := func() (int, string, string) {
		return svc(t, "log", "monitor", "--url", l.srv.URL, "--log-key", l.vkey, "--state", state)
	}
	code, out, errs := monitor()
	if code != 0 || !strings.HasPrefix(out, "OK: log example.test/svc/log size 7 (7 new leaves);") ||
		!strings.Contains(out, "domain bound.example gained by "+first+" at leaf 6 (self_dns, ") {
		t.Fatalf("first run: exit %d %q %q", code, out, errs)
	}
	// The first namespace loses it (its only source removed), the second gains it: the state
	// file kept the binding, so the monitor checks these against it.
	if err := l.st.InTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.DeleteSources(first, "bound.example"); err != nil {
			return err
		}
		_, _, err := tx.ReleaseDomain(first, "bound.example", store.MethodSelfDNS)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.st.MarkVerified(ctx, second, "bound.example", store.MethodSelfHTTP, time.Hour); err != nil {
		t.Fatal(err)
	}
	l.integrate()
	code, out, errs = monitor()
	if code != 0 || !strings.HasPrefix(out, "OK: log example.test/svc/log size 9 (2 new leaves);") ||
		!strings.Contains(out, "domain bound.example lost by "+first+" at leaf 7 (self_dns, ") ||
		!strings.Contains(out, "domain bound.example gained by "+second+" at leaf 8 (self_http, ") {
		t.Fatalf("second run: exit %d %q %q", code, out, errs)
	}
}
