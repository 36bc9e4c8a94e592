package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/dedi/fetch"
	"github.com/svc-directory/svc/dedi/ingest"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// hang is a handler that answers nothing until the client gives up or the test ends.
func hang(t *testing.T) http.HandlerFunc {
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the origin closes (cleanups run last first)
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
}

// TestIngestHangingPublisherDoesNotStallOthers: a publisher whose manifest lists 100 files
// that hang (real loopback HTTP) holds one worker for its budget; another publisher, due after
// it, has its new file indexed within 10 s. The hanging publisher then reads failed, naming
// its unreachable files, and the crawl ends soon after the budget.
func TestIngestHangingPublisherDoesNotStallOthers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: time.Now().UTC()}
		o := newOrigin(t)
		slow := newPublisher(t, o, "hang.test", c.Now())
		for i := range 100 {
			slow.registry(fmt.Sprintf("r%03d", i), rec("a", map[string]any{"id": "a"}))
		}
		slow.publish(t, c.Now())
		h := hang(t)
		for i := range 100 {
			o.handle("hang.test", fmt.Sprintf("/dedi/dedi.r%03d.json", i), h)
		}
		fresh := newPublisher(t, o, "later.test", c.Now())
		fresh.registry("keys", rec("new", map[string]any{"id": "new"}))
		fresh.publish(t, c.Now())
		for _, d := range []string{"hang.test", "later.test"} { // due in this order
			if _, err := s.AddDediPublisher(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		c.Add(time.Second)
		const budget = 4 * time.Second
		svc := ingest.New(ingest.Config{Store: s, Fetcher: o.fetcher(nil), Now: c.Now, Logger: slog.New(slog.DiscardHandler),
			Interval: time.Hour, CreatorDID: testDID, Budget: budget})
		start := time.Now()
		done := make(chan ingest.Stats, 1)
		go func() {
			st, err := svc.CrawlDue(ctx)
			if err != nil {
				t.Error(err)
			}
			done <- st
		}()
		for {
			_, err := s.GetRecord(ctx, "later.test", "keys", "new", directory.VersionSel{})
			if err == nil {
				break
			}
			if !errors.Is(err, directory.ErrNotFound) {
				t.Fatal(err)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("the other publisher's new file was not indexed within 10 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("the other publisher indexed after %v", time.Since(start))
		var st ingest.Stats
		select {
		case st = <-done:
		case <-time.After(budget + 15*time.Second):
			t.Fatal("the crawl did not end after the budget")
		}
		if st.Publishers != 2 {
			t.Fatalf("stats %+v", st)
		}
		pub, err := s.DediPublisher(ctx, "hang.test")
		if err != nil || pub.Status != store.DediFailed || pub.LastOutcome != ingest.OutcomeUnreachable ||
			!strings.Contains(pub.LastReason, "100 of the 100 files") || !strings.Contains(pub.LastReason, "r000 (unreachable: ") ||
			!strings.Contains(pub.LastReason, "r099 (unreachable)") {
			t.Fatalf("the hanging publisher: %+v, %v", pub, err)
		}
		if !strings.Contains(pub.LastReason, "budget") {
			t.Fatalf("the hanging publisher's reason does not say the budget ran out: %q", pub.LastReason)
		}
		if other, _ := s.DediPublisher(ctx, "later.test"); other.Status != store.DediOK || other.LastOutcome != "authentic" {
			t.Fatalf("the other publisher: %+v", other)
		}
	})
}

// TestIngestManifestFileCap: a manifest listing more files than MaxFiles has the first
// indexed and the rest refused as invalid, saying the cap; the publisher reads failed.
func TestIngestManifestFileCap(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "pub.test", c.Now())
		for i := range 5 {
			p.registry(fmt.Sprintf("r%d", i), rec("a", map[string]any{"id": "a"}))
		}
		p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(ctx, "pub.test"); err != nil {
			t.Fatal(err)
		}
		svc := ingest.New(ingest.Config{Store: s, Fetcher: o.fetcher(nil), Now: c.Now, Logger: slog.New(slog.DiscardHandler),
			Interval: time.Hour, CreatorDID: testDID, MaxFiles: 3})
		rep := mustCrawl(t, svc, "pub.test")
		for i := range 5 {
			f := rep.Files[fmt.Sprintf("r%d", i)]
			if want := i < 3; (f.Outcome == "authentic") != want || (!want && (f.Outcome != string(dedi.Invalid) || !strings.Contains(f.Reason, "first 3"))) {
				t.Errorf("r%d: %+v", i, f)
			}
		}
		if got := o.count("pub.test/dedi/dedi.r4.json"); got != 0 {
			t.Errorf("a file past the cap was fetched %d times", got)
		}
		if rep.Status != store.DediFailed || !strings.Contains(rep.Reason, "2 of the 5 files") {
			t.Fatalf("report: %s", describe(rep))
		}
	})
}

// TestIngestLeaseRenewedWhileCrawling: a crawl that outlasts the lease renews it, so that
// another instance on the same database does not take the publisher meanwhile.
func TestIngestLeaseRenewedWhileCrawling(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		o := newOrigin(t)
		p := newPublisher(t, o, "slow.test", time.Now())
		p.registry("keys", rec("a", map[string]any{"id": "a"}))
		p.publish(t, time.Now())
		release := make(chan struct{})
		o.handle("slow.test", "/dedi/dedi.keys.json", func(w http.ResponseWriter, r *http.Request) {
			select { // slow, within the fetch's timeouts
			case <-release:
			case <-r.Context().Done():
				return
			}
			o.mu.Lock()
			b := o.docs["slow.test/dedi/dedi.keys.json"]
			o.mu.Unlock()
			_, _ = w.Write(b)
		})
		if _, err := s.AddDediPublisher(ctx, "slow.test"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
		const lease = 900 * time.Millisecond
		newInstance := func() *ingest.Service {
			return ingest.New(ingest.Config{Store: s, Now: time.Now, Logger: slog.New(slog.DiscardHandler), Interval: time.Hour,
				CreatorDID: testDID, Lease: lease, Fetcher: o.fetcher(func(f *fetch.Options) { f.Timeout, f.HeaderTimeout = 20*time.Second, 20*time.Second })})
		}
		done := make(chan ingest.Stats, 1)
		go func() {
			st, err := newInstance().CrawlDue(ctx)
			if err != nil {
				t.Error(err)
			}
			done <- st
		}()
		for o.count("slow.test/dedi/dedi.keys.json") == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(3 * lease) // the first lease has long run out
		st, err := newInstance().CrawlDue(ctx)
		if err != nil || st.Publishers != 0 {
			t.Fatalf("another instance crawled the publisher being crawled: %+v, %v", st, err)
		}
		close(release)
		if st := <-done; st.Publishers != 1 || st.NewVersions == 0 {
			t.Fatalf("the crawl: %+v", st)
		}
		if got := o.count("slow.test" + dedi.WellKnownPath); got != 1 {
			t.Fatalf("the manifest was fetched %d times", got)
		}
	})
}

// TestIngestCrawlEach: svc dedi crawl's crawl of every publisher, a few at once, reports in
// the order asked; a hanging publisher ends with its budget, failed, and the others are ok.
func TestIngestCrawlEach(t *testing.T) {
	s := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	c := &clock{t: t0}
	o := newOrigin(t)
	domains := []string{"a.test", "hang.test", "b.test", "c.test"}
	for _, d := range domains {
		p := newPublisher(t, o, d, c.Now())
		p.registry("keys", rec("a", map[string]any{"id": "a"}))
		p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	o.handle("hang.test", "/dedi/dedi.keys.json", hang(t))
	svc := ingest.New(ingest.Config{Store: s, Fetcher: o.fetcher(func(f *fetch.Options) { f.Timeout, f.HeaderTimeout = time.Minute, time.Minute }),
		Now: c.Now, Logger: slog.New(slog.DiscardHandler), Interval: time.Hour, CreatorDID: testDID, Budget: 2 * time.Second, Concurrency: 2})
	start := time.Now()
	reps, errs := svc.CrawlEach(ctx, domains)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("took %v", took)
	}
	for i, d := range domains {
		want := store.DediOK
		if d == "hang.test" {
			want = store.DediFailed
		}
		if errs[i] != nil || reps[i].Status != want {
			t.Errorf("%s: %s, %v", d, describe(reps[i]), errs[i])
		}
	}
	if f := reps[1].Files["keys"]; f.Outcome != ingest.OutcomeUnreachable || !strings.Contains(f.Reason, "budget") {
		t.Fatalf("the hanging file: %+v", f)
	}
}
