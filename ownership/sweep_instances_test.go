package ownership_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/internal/testclock"
	"github.com/svc-directory/svc/ownership"
	"github.com/svc-directory/svc/store"
)

// Re-verification runs once across instances: three services, each with its own store on one
// database (as three instances are), sweep at the same time, and every due source is checked
// by exactly one of them; sweeping again finds nothing due until the next interval.
func TestSweepChecksEachSourceOnceAcrossInstances(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			first, url := storetest.OpenURL(t, d)
			clk := testclock.New()
			const sources = 60
			u, _ := first.EnsureUser(ctx, "o@example.com")
			for i := range sources {
				ns, err := first.CreateNamespace(ctx, u, "did:web:x:o", directory.NamespaceInput{Name: fmt.Sprintf("n%d", i)})
				if err != nil {
					t.Fatal(err)
				}
				if err := first.MarkVerified(ctx, ns.NamespaceID, fmt.Sprintf("d%d.example", i), store.MethodSelfDNS, time.Hour); err != nil {
					t.Fatal(err)
				}
			}
			var services []*ownership.Service
			for range 3 {
				s, err := store.Open(ctx, url, nil, store.Options{Now: clk.Now})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				services = append(services, ownership.New(ownership.Config{Store: s, Now: clk.Now, Interval: time.Hour,
					Grace: 24 * time.Hour, Sweep: time.Minute}))
			}
			clk.Advance(2 * time.Hour) // every source is due
			var g errgroup.Group
			total := make([]int, len(services))
			for i, v := range services {
				g.Go(func() error {
					st, err := v.SweepOnce(ctx)
					total[i] = st.Checked
					return err
				})
			}
			if err := g.Wait(); err != nil {
				t.Fatal(err)
			}
			sum := 0
			for _, n := range total {
				sum += n
			}
			if sum != sources {
				t.Fatalf("the instances checked %v sources (%d in all), want each of the %d once", total, sum, sources)
			}
			for _, v := range services {
				if st, err := v.SweepOnce(ctx); err != nil || st.Checked != 0 {
					t.Fatalf("a second sweep checked %d sources again: %v", st.Checked, err)
				}
			}
		})
	}
}
