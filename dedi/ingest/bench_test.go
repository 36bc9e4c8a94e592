package ingest_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestIngestLargeFile (SVC_DEDI_BENCH_RECORDS=200000 to run; SVC_DEDI_BENCH_DIALECT picks the
// database, default sqlite) ingests one file of that many records from scratch, verification
// included, then crawls it again unchanged, and reports the rates and the peaks of the Go heap
// and of the resident set during the first crawl (measurePeak), which must not pass 4 x the
// file's size + 100 MiB.
func TestIngestLargeFile(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SVC_DEDI_BENCH_RECORDS"))
	if n <= 0 {
		t.Skip("set SVC_DEDI_BENCH_RECORDS to run")
	}
	dialect := os.Getenv("SVC_DEDI_BENCH_DIALECT")
	if dialect == "" {
		dialect = store.DialectSQLite
	}
	s := storetest.Open(t, dialect)
	c := &clock{t: t0}
	o := newOrigin(t)
	p := newPublisher(t, o, "big.test", c.Now())
	recs := make([]dedi.Record, n)
	for i := range recs {
		recs[i] = rec(fmt.Sprintf("r%07d", i), map[string]any{"id": fmt.Sprintf("id-%d", i), "name": "Name " + strconv.Itoa(i),
			"tags": []any{"a", "b"}, "n": float64(i)})
	}
	p.registry("keys", recs...)
	docs := p.publish(t, c.Now())
	if _, err := s.AddDediPublisher(t.Context(), "big.test"); err != nil {
		t.Fatal(err)
	}
	svc := newServiceWith(s, o, c, nil)
	peak := measurePeak(t)
	start := time.Now()
	rep := mustCrawl(t, svc, "big.test")
	first := time.Since(start)
	mem, heap, rss := peak()
	if rep.NewVersions != n+1 {
		t.Fatalf("first crawl: %d versions, %s", rep.NewVersions, rep.Files["keys"].Reason)
	}
	c.Add(time.Minute)
	start = time.Now()
	rep = mustCrawl(t, svc, "big.test")
	second := time.Since(start)
	if rep.NewVersions != 0 || rep.Requests != 2 {
		t.Fatalf("unchanged crawl: %+v", rep)
	}
	size := float64(len(docs["keys"])) / (1 << 20)
	t.Logf("%s: %d records, file %.1f MiB: first crawl %s (%.0f records/s, verification and indexing), unchanged crawl %s (%d requests); %s; the target is at most 4 x the file + 100 MiB = %.0f MiB",
		dialect, n, size, first.Round(time.Millisecond), float64(n)/first.Seconds(), second.Round(time.Millisecond),
		rep.Requests, mem, 4*size+100)
	// docs/dedi-files.md: ingesting a file takes at most 4 x its size + 100 MiB at its peak.
	if limit := 4*size + 100; heap > limit || rss > limit {
		t.Errorf("the first crawl's peak is over %.0f MiB: %s", limit, mem)
	}
}

// TestIngestManyPublishers (SVC_DEDI_BENCH_PUBLISHERS=100 SVC_DEDI_BENCH_RECORDS=10000 to
// run) crawls that many publishers of one file each from scratch, then again unchanged: the
// second crawl makes no version and costs one request (a 304) per manifest and file.
func TestIngestManyPublishers(t *testing.T) {
	np, _ := strconv.Atoi(os.Getenv("SVC_DEDI_BENCH_PUBLISHERS"))
	n, _ := strconv.Atoi(os.Getenv("SVC_DEDI_BENCH_RECORDS"))
	if np <= 0 || n <= 0 {
		t.Skip("set SVC_DEDI_BENCH_PUBLISHERS and SVC_DEDI_BENCH_RECORDS to run")
	}
	dialect := os.Getenv("SVC_DEDI_BENCH_DIALECT")
	if dialect == "" {
		dialect = store.DialectSQLite
	}
	s := storetest.Open(t, dialect)
	c := &clock{t: time.Now().UTC().Truncate(time.Second).Add(time.Second)}
	o := newOrigin(t)
	for i := range np {
		d := fmt.Sprintf("p%03d.test", i)
		p := newPublisher(t, o, d, c.Now())
		recs := make([]dedi.Record, n)
		for j := range recs {
			recs[j] = rec(fmt.Sprintf("r%06d", j), map[string]any{"id": fmt.Sprintf("%s-%d", d, j), "n": float64(j)})
		}
		p.registry("keys", recs...)
		p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	c.mu.Lock()
	c.t = time.Now().UTC().Add(time.Second) // every publisher is due
	c.mu.Unlock()
	svc := newService(s, o, c)
	start := time.Now()
	st, err := svc.CrawlDue(t.Context())
	if err != nil || st.Publishers != np || st.NewVersions != np*(n+1) {
		t.Fatalf("first sweep: %+v, %v", st, err)
	}
	first := time.Since(start)
	c.Add(time.Hour + time.Minute)
	before, notMod := o.requests.Load(), o.notMod.Load()
	start = time.Now()
	st, err = svc.CrawlDue(t.Context())
	if err != nil || st.Publishers != np || st.NewVersions != 0 {
		t.Fatalf("unchanged sweep: %+v, %v", st, err)
	}
	reqs, m304 := o.requests.Load()-before, o.notMod.Load()-notMod
	if reqs != int64(2*np) || m304 != reqs {
		t.Fatalf("unchanged sweep: %d requests, %d of them 304; want %d, all 304", reqs, m304, 2*np)
	}
	t.Logf("%s: %d publishers x %d records: from scratch %s (%.0f records/s); unchanged %s, %d requests (all 304), 0 new versions",
		dialect, np, n, first.Round(time.Millisecond), float64(np*n)/first.Seconds(), time.Since(start).Round(time.Millisecond), reqs)
}
