package ownership_test

import (
	"context"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/internal/testclock"
	"github.com/svc-directory/svc/ownership"
	"github.com/svc-directory/svc/store"
)

// A namespace that holds its domain through two sources keeps it when one of them is removed
// after its grace period, and loses it only with the last one.
func TestDomainStaysWhileAnotherSourceRemains(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		clk := testclock.New()
		v := ownership.New(ownership.Config{Store: s, Now: clk.Now, Interval: time.Hour, Grace: time.Minute})
		u, _ := s.EnsureUser(ctx, "o@example.com")
		ns, err := s.CreateNamespace(ctx, u, "did:web:x:o", directory.NamespaceInput{Name: "n"})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{store.MethodSelfDNS, store.MethodSelfHTTP} {
			if err := s.MarkVerified(ctx, ns.NamespaceID, "two.example", m, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		if srcs, err := s.ClaimDueSources(ctx, clk.Now(), clk.Now().Add(time.Minute), 10); err != nil || len(srcs) != 0 {
			t.Fatalf("due before their interval: %v %v", srcs, err)
		}
		clk.Advance(2 * time.Hour) // every source is due
		srcs, err := s.ClaimDueSources(ctx, clk.Now(), clk.Now().Add(time.Minute), 10)
		if err != nil || len(srcs) != 2 {
			t.Fatalf("due sources: %v %v", srcs, err)
		}
		var dns, web store.Source
		for _, src := range srcs {
			if src.Method == store.MethodSelfDNS {
				dns = src
			} else {
				web = src
			}
		}
		// The DNS source fails: grace; with the grace over it is removed, but the HTTP source stays.
		if out, err := v.RecordCheck(ctx, dns, false, "gone"); err != nil || out != ownership.OutcomeGrace {
			t.Fatalf("first failure: %s %v", out, err)
		}
		clk.Advance(30 * time.Second)
		if out, err := v.RecordCheck(ctx, dns, false, "gone"); err != nil || out != ownership.OutcomeGrace {
			t.Fatalf("failure within the grace period: %s %v", out, err)
		}
		clk.Advance(time.Minute)
		if out, err := v.RecordCheck(ctx, dns, false, "gone"); err != nil || out != ownership.OutcomeRemoved {
			t.Fatalf("after the grace period: %s %v", out, err)
		}
		got, _ := s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{})
		if got.Domain != "two.example" {
			t.Fatalf("the domain left while another source remained: %q", got.Domain)
		}
		if out, _ := v.RecordCheck(ctx, web, false, "gone"); out != ownership.OutcomeGrace {
			t.Fatalf("last source, first failure: %s", out)
		}
		clk.Advance(2 * time.Minute)
		if out, _ := v.RecordCheck(ctx, web, false, "gone"); out != ownership.OutcomeDomainRemoved {
			t.Fatalf("last source removed: %s", out)
		}
		got, _ = s.GetNamespace(ctx, ns.NamespaceID, directory.VersionSel{})
		if got.Domain != "" {
			t.Fatalf("the domain stayed without a source: %q", got.Domain)
		}
		if out, _ := v.RecordCheck(ctx, web, false, "gone"); out != ownership.OutcomeRemoved {
			t.Fatalf("a source removed meanwhile: %s", out)
		}
		// remove-namespace-verification of a pair with two sources removes both.
		for _, m := range []string{store.MethodSelfDNS, store.MethodSelfHTTP} {
			if err := s.MarkVerified(ctx, ns.NamespaceID, "two.example", m, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		r, err := v.Remove(ctx, ns.NamespaceID, "two.example", store.Principal{})
		if err != nil || len(r.Methods) != 2 || !r.DomainRemoved || r.StillVerified {
			t.Fatalf("removal: %+v %v", r, err)
		}
	})
}
