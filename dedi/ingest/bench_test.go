package ingest_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestIngestLargeFile (SVC_DEDI_BENCH_RECORDS=200000 to run; SVC_DEDI_BENCH_DIALECT picks the
// database, default sqlite) ingests one file of that many records from scratch, verification
// included, then crawls it again unchanged, and reports the rates and the Go heap's peak.
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
	var peak uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak {
				peak = ms.HeapInuse
			}
		}
	}()
	start := time.Now()
	rep := mustCrawl(t, svc, "big.test")
	first := time.Since(start)
	close(stop)
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
	t.Logf("%s: %d records, file %.1f MiB: first crawl %s (%.0f records/s, verification and indexing), unchanged crawl %s (%d requests); Go heap peak %.0f MiB",
		dialect, n, float64(len(docs["keys"]))/(1<<20), first.Round(time.Millisecond), float64(n)/first.Seconds(), second.Round(time.Millisecond),
		rep.Requests, float64(peak)/(1<<20))
}
