package server_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/domainverify/dnstest"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/internal/testclock"
	"github.com/svc-directory/svc/ownership"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// TestReverification: success keeps the source; a failure puts it in its grace period; a
// recovery within the grace period restores it; a failure past the grace period removes it and,
// being the last source, takes the domain from the namespace.
func TestReverification(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			// retry interval: Grace/24 = 1h
			rv := server.ReverifyConfig{Interval: 2 * time.Hour, Grace: 24 * time.Hour, Sweep: time.Minute}
			clk := testclock.New()
			h, dns, _ := domainHarnessOn(t, storetest.Open(t, d), rv, func(c *server.Config) { c.Now = clk.Now })
			ctx := context.Background()
			alice := h.key("alice@example.com")
			a := newNamespace(t, h, alice, "A")
			if err := h.store.AllowDomain(ctx, "re.example"); err != nil {
				t.Fatal(err)
			}
			txt := gen(h, alice, a, "re.example", "?verification_method=self_dns").Body["txt"].(string)
			dns.SetTXT("re.example", []string{txt})
			h.must(200, "POST", "/svc/verify-domain", alice, map[string]any{"namespace_id": a})
			sweepAfter := func(d time.Duration) ownership.SweepStats {
				clk.Advance(d)
				st, err := h.srv.Verification().SweepOnce(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			sweep := func() ownership.SweepStats { return sweepAfter(rv.Interval + time.Second) } // past the interval (or the retry)
			verified := func() bool {
				return h.must(200, "GET", "/svc/lookup/"+a, "", nil).data()["is_verified"] == true
			}
			if st := sweepAfter(rv.Interval - time.Minute); st.Checked != 0 {
				t.Fatalf("a source was checked before its interval: %+v", st)
			}
			if st := sweep(); st.Checked != 1 || st.OK != 1 || !verified() {
				t.Fatalf("healthy source: %+v", st)
			}
			dns.Set("re.example", dnstest.NXDomain)
			if st := sweep(); st.Grace != 1 || !verified() {
				t.Fatalf("first failure: %+v (still verified during grace: %v)", st, verified())
			}
			dns.SetTXT("re.example", []string{txt})
			if st := sweep(); st.OK != 1 || !verified() {
				t.Fatalf("recovery: %+v", st)
			}
			dns.Set("re.example", dnstest.NXDomain)
			if st := sweep(); st.Grace != 1 {
				t.Fatalf("second failure: %+v", st)
			}
			st := sweepAfter(rv.Grace + time.Second)
			if st.DomainsRemoved != 1 || verified() {
				t.Fatalf("after the grace period: %+v, verified %v", st, verified())
			}
			if st := sweep(); st.Checked != 0 {
				t.Fatalf("a removed source was checked again: %+v", st)
			}
		})
	}
}

// Several instances sweeping one Postgres check each due source once.
func TestSweepsShareTheWork(t *testing.T) {
	clk := testclock.New()
	h, dns, _ := domainHarnessOn(t, storetest.Open(t, store.DialectPostgres), server.ReverifyConfig{Interval: time.Hour, Grace: time.Hour, Sweep: time.Second},
		func(c *server.Config) { c.Now = clk.Now })
	ctx := context.Background()
	const n = 8
	for i := 0; i < n; i++ {
		k := h.key(fmt.Sprintf("o%d@example.com", i))
		id := newNamespace(t, h, k, "n")
		dom := fmt.Sprintf("d%d.example", i)
		if err := h.store.AllowDomain(ctx, dom); err != nil {
			t.Fatal(err)
		}
		txt := gen(h, k, id, dom, "?verification_method=self_dns").Body["txt"].(string)
		dns.SetTXT(dom, []string{txt})
		h.must(200, "POST", "/svc/verify-domain", k, map[string]any{"namespace_id": id})
	}
	clk.Advance(2 * time.Hour) // every source is due
	var wg sync.WaitGroup
	counts := make([]int, 4)
	for i := range counts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := h.srv.Verification().SweepOnce(ctx)
			if err != nil {
				t.Error(err)
			}
			counts[i] = st.Checked
		}()
	}
	wg.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != n {
		t.Fatalf("sweeps checked %v sources in all (%v), want each of %d once", total, counts, n)
	}
}
