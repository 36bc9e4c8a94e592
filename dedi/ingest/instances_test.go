package ingest_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestIngestInstancesCrawlEachPublisherOnce: three instances on one Postgres database crawl
// the due publishers together; each publisher's manifest is fetched exactly once.
func TestIngestInstancesCrawlEachPublisherOnce(t *testing.T) {
	s0, url := storetest.OpenURL(t, store.DialectPostgres)
	ctx := context.Background()
	c := &clock{t: time.Now().UTC().Truncate(time.Second).Add(time.Second)} // publishers are due from when they are added
	o := newOrigin(t)
	const n = 12
	for i := range n {
		d := fmt.Sprintf("p%02d.test", i)
		p := newPublisher(t, o, d, c.Now())
		p.registry("keys", rec("a", map[string]any{"id": "a"}))
		p.publish(t, c.Now())
		if _, err := s0.AddDediPublisher(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	// Every publisher is due by the store's clock (when it was added, however long adding them
	// took on a busy machine) at the crawl's.
	if late := time.Now().Add(time.Second); c.Now().Before(late) {
		c.Add(late.Sub(c.Now()))
	}
	var wg sync.WaitGroup
	totals := make([]int, 3)
	for i := range totals {
		s, err := store.Open(ctx, url, slog.New(slog.DiscardHandler), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		svc := newService(s, o, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := svc.CrawlDue(ctx)
			if err != nil {
				t.Error(err)
			}
			totals[i] = st.Publishers
		}()
	}
	wg.Wait()
	if sum := totals[0] + totals[1] + totals[2]; sum != n {
		t.Fatalf("publishers crawled %v, %d in all; want %d", totals, sum, n)
	}
	for i := range n {
		if got := o.count(fmt.Sprintf("p%02d.test", i) + dedi.WellKnownPath); got != 1 {
			t.Errorf("p%02d.test's manifest fetched %d times", i, got)
		}
	}
	// Nothing is due again before the interval.
	c.Add(30 * time.Minute)
	if st, err := newService(s0, o, c).CrawlDue(ctx); err != nil || st.Publishers != 0 {
		t.Fatalf("a second sweep within the interval: %+v, %v", st, err)
	}
	// After the interval, all are due again.
	c.Add(31 * time.Minute)
	if st, err := newService(s0, o, c).CrawlDue(ctx); err != nil || st.Publishers != n || st.NewVersions != 0 {
		t.Fatalf("a sweep after the interval: %+v, %v", st, err)
	}
}
