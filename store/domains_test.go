package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
)

// A namespace that holds its domain through two sources keeps it when one of them is removed
// after its grace period, and loses it only with the last one.
func TestDomainStaysWhileAnotherSourceRemains(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) { domainStaysWhileAnotherSourceRemains(t, d) })
	}
}

func domainStaysWhileAnotherSourceRemains(t *testing.T, dialect string) {
	clock := storetest.NewClock()
	s, _ := storetest.OpenWith(t, dialect, store.Options{Now: clock.Now})
	ctx := context.Background()
	u, _ := s.EnsureUser(ctx, "o@example.com")
	ns, err := s.CreateNamespace(ctx, u, "did:web:x:o", store.NamespaceInput{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{store.MethodSelfDNS, store.MethodSelfHTTP} {
		if err := s.MarkVerified(ctx, ns.NamespaceID, "two.example", m, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if srcs, err := s.ClaimDueSources(ctx, time.Minute, 10); err != nil || len(srcs) != 0 {
		t.Fatalf("sources due before their interval: %v %v", srcs, err)
	}
	clock.Advance(time.Hour)
	srcs, err := s.ClaimDueSources(ctx, time.Minute, 10)
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
	// The DNS source fails: grace; with no grace left it is removed, but the HTTP source stays.
	if out, err := s.RecordCheck(ctx, dns, false, "gone", time.Hour, 0, time.Minute); err != nil || out != store.OutcomeGrace {
		t.Fatalf("first failure: %s %v", out, err)
	}
	if out, err := s.RecordCheck(ctx, dns, false, "gone", time.Hour, 0, time.Minute); err != nil || out != store.OutcomeRemoved {
		t.Fatalf("after the grace period: %s %v", out, err)
	}
	got, _ := s.GetNamespace(ctx, ns.NamespaceID, store.VersionSel{})
	if got.Domain != "two.example" {
		t.Fatalf("the domain left while another source remained: %q", got.Domain)
	}
	if out, _ := s.RecordCheck(ctx, web, false, "gone", time.Hour, 0, time.Minute); out != store.OutcomeGrace {
		t.Fatalf("last source, first failure: %s", out)
	}
	if out, _ := s.RecordCheck(ctx, web, false, "gone", time.Hour, 0, time.Minute); out != store.OutcomeDomainRemoved {
		t.Fatalf("last source removed: %s", out)
	}
	got, _ = s.GetNamespace(ctx, ns.NamespaceID, store.VersionSel{})
	if got.Domain != "" {
		t.Fatalf("the domain stayed without a source: %q", got.Domain)
	}
	// remove-namespace-verification of a pair with two sources removes both.
	for _, m := range []string{store.MethodSelfDNS, store.MethodSelfHTTP} {
		if err := s.MarkVerified(ctx, ns.NamespaceID, "two.example", m, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.RemoveVerification(ctx, ns.NamespaceID, "two.example")
	if err != nil || len(r.Methods) != 2 || !r.DomainRemoved || r.StillVerified {
		t.Fatalf("removal: %+v %v", r, err)
	}
}
