package ingest

import (
	"context"
	"sync"
	"time"
)

// Stats counts what CrawlDue did.
type Stats struct {
	Publishers, Requests, NewVersions int
	Outcomes                          map[string]int // publishers by the outcome of their crawl
}

// busyPoll is how often CrawlDue looks for due publishers while its workers are busy.
const busyPoll = 5 * time.Second

// CrawlDue crawls every publisher that is due, up to Concurrency of them at once, and returns
// when none is due and none is being crawled. Each publisher is leased first (for Lease,
// renewed while its crawl runs), so that with several instances on one database each is
// crawled by one of them; a slow publisher holds one worker for at most its Budget (and the
// indexing of what it fetched) while the others go on.
func (s *Service) CrawlDue(ctx context.Context) (Stats, error) {
	st := Stats{Outcomes: map[string]int{}}
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		running int
	)
	finished := make(chan struct{}, s.cfg.Concurrency)
	defer wg.Wait()
	for {
		mu.Lock()
		free := s.cfg.Concurrency - running
		mu.Unlock()
		var due []string
		var lease time.Time
		if free > 0 {
			now := s.cfg.Now()
			lease = now.Add(s.cfg.Lease)
			var err error
			if due, err = s.cfg.Store.ClaimDueDediPublishers(ctx, now, lease, free); err != nil {
				wg.Wait()
				return st, err
			}
		}
		for _, d := range due {
			mu.Lock()
			running++
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep, err := s.crawl(ctx, d, lease)
				mu.Lock()
				if err != nil {
					s.log.WarnContext(ctx, "dedi crawl", "domain", d, "error", err)
					st.Outcomes["error"]++
				} else {
					st.Publishers++
					st.Requests += rep.Requests
					st.NewVersions += rep.NewVersions
					st.Outcomes[rep.Outcome]++
				}
				running--
				mu.Unlock()
				select { // one signal pending is enough to wake the loop
				case finished <- struct{}{}:
				default:
				}
			}()
		}
		mu.Lock()
		idle := running == 0
		mu.Unlock()
		if idle && len(due) == 0 {
			return st, nil
		}
		if len(due) == 0 || len(due) == free {
			// Every worker is busy, or nothing more is due now: wait for a crawl to end, or
			// look again for a publisher that became due meanwhile.
			t := time.NewTimer(busyPoll)
			select {
			case <-finished:
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				wg.Wait()
				return st, ctx.Err()
			}
			t.Stop()
		}
	}
}

// renew keeps the lease of the publisher being crawled (held, as claimed) every third of the
// lease until stop is called; a lease found taken (it ran out and another instance claimed the
// publisher) is logged and no longer renewed.
func (s *Service) renew(ctx context.Context, domain string, held time.Time) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.cfg.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			until := s.cfg.Now().Add(s.cfg.Lease)
			ok, err := s.cfg.Store.RenewDediLease(ctx, domain, held, until)
			switch {
			case err != nil:
				if ctx.Err() == nil {
					s.log.WarnContext(ctx, "dedi crawl: renewing the lease", "domain", domain, "error", err)
				}
			case !ok:
				s.log.WarnContext(ctx, "dedi crawl: the lease was lost (another instance may crawl the publisher too)", "domain", domain)
				return
			default:
				held = until
			}
		}
	}()
	return func() { cancel(); <-done }
}

// CrawlEach crawls the publishers now, Concurrency of them at once, without leasing them (svc
// dedi crawl); the reports and errors are in the order of domains.
func (s *Service) CrawlEach(ctx context.Context, domains []string) ([]Report, []error) {
	reps, errs := make([]Report, len(domains)), make([]error, len(domains))
	sem := make(chan struct{}, s.cfg.Concurrency)
	var wg sync.WaitGroup
	for i, d := range domains {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			reps[i], errs[i] = s.Crawl(ctx, d)
		}()
	}
	wg.Wait()
	return reps, errs
}
