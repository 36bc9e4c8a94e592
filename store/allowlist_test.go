package store_test

import (
	"context"
	"testing"

	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// DomainAllowed answers as matching every entry with domainverify.MatchAllowPattern would: an
// exact entry covers its domain, "*.d" covers subdomains of d at any depth but not d itself.
func TestDomainAllowedMatchesThePatterns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		patterns := []string{"exact.test", "*.wild.test", "*.deep.a.test"}
		for _, p := range patterns {
			if err := s.AllowDomain(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range []string{"exact.test", "sub.exact.test", "wild.test", "x.wild.test", "a.b.wild.test", "xwild.test",
			"deep.a.test", "z.deep.a.test", "a.test", "other.test", "exact.test.evil"} {
			want := false
			for _, p := range patterns {
				want = want || domainverify.MatchAllowPattern(p, d)
			}
			got, err := s.DomainAllowed(ctx, d)
			if err != nil || got != want {
				t.Errorf("DomainAllowed(%s) = %v, %v; want %v", d, got, err, want)
			}
		}
	})
}
