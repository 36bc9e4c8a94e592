package translog

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/indexstore"
)

// BenchmarkCommitToCheckpointPostgres writes add-records batches for a few seconds from
// several writers at once (each to its own namespace, as separate clients would) while the
// integrator runs as svc serve runs it, with its state index on disk, and reports the write
// rate and the time from each batch's commit to the first signed checkpoint that holds it
// (p50, p99): every checkpoint ends in a state leaf, so that is also when the index's root over
// the batch is committed. -writers sets how many write at once (default 3); -records, when set,
// writes that many records in all instead of writing for 5 s (the import of issue 40's
// figures: -records=1000000); the heap in use at most is sampled as it runs.
//
//	go test -run '^$' -bench CommitToCheckpoint -benchtime 1x ./translog [-args -records=1000000]
func BenchmarkCommitToCheckpointPostgres(b *testing.B) {
	s := storetest.Open(b, store.DialectPostgres)
	ctx := context.Background()
	skey, _, _ := GenerateKey("bench.example/svc/log")
	key, err := ParseKey(skey)
	if err != nil {
		b.Fatal(err)
	}
	u, _ := s.EnsureUser(ctx, "bench@example.com")
	namespaces := make([]string, *benchWriters)
	for w := range namespaces {
		ns, err := s.CreateNamespace(ctx, u, creator, directory.NamespaceInput{Name: fmt.Sprintf("bench-%d", w)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom}); err != nil {
			b.Fatal(err)
		}
		namespaces[w] = ns.NamespaceID
	}
	idx, err := indexstore.Open(b.TempDir(), indexstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer idx.Close()
	g := NewIntegrator(s, key, nil, nil).WithStateIndexIn(idx)
	if _, err := g.IntegrateOnce(ctx); err != nil {
		b.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); g.Run(runCtx, 250*time.Millisecond) }()

	type checkpoint struct {
		size int64
		at   time.Time
	}
	type commit struct {
		last string // the batch's last version
		at   time.Time
	}
	var mu sync.Mutex
	var sizes []checkpoint // the checkpoint sizes seen, in order
	var peakHeap uint64
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		var m runtime.MemStats
		for i := 0; runCtx.Err() == nil; i++ {
			if i%100 == 0 {
				runtime.ReadMemStats(&m)
				peakHeap = max(peakHeap, m.HeapInuse)
			}
			st, err := s.LogState(ctx)
			if err == nil {
				mu.Lock()
				if len(sizes) == 0 || sizes[len(sizes)-1].size != st.Size {
					sizes = append(sizes, checkpoint{st.Size, time.Now()})
				}
				mu.Unlock()
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	const span = 5 * time.Second
	var start time.Time
	more := func(n int) bool {
		if *benchRecords > 0 {
			return n < *benchRecords/len(namespaces)
		}
		return time.Since(start) < span
	}
	commits := make([][]commit, len(namespaces))
	written := make([]int, len(namespaces))
	start = time.Now()
	b.ResetTimer()
	var writers sync.WaitGroup
	for w, nsID := range namespaces {
		writers.Add(1)
		go func() {
			defer writers.Done()
			r := rand.New(rand.NewPCG(1, uint64(w)))
			for n := 0; more(n); {
				in := make([]directory.RecordInput, directory.MaxBatch)
				for j := range in {
					in[j] = directory.RecordInput{RecordName: fmt.Sprintf("p-%08d", n+j), Details: storetest.Details(r, n+j)}
				}
				added, err := s.AddRecords(ctx, nsID, "people", creator, in)
				if err != nil {
					b.Error(err)
					return
				}
				n += len(in)
				commits[w] = append(commits[w], commit{added[len(added)-1].Version, time.Now()})
				written[w] = n
			}
		}()
	}
	writers.Wait()
	elapsed := time.Since(start)
	total := 0
	for _, n := range written {
		total += n
	}
	// Wait until everything is integrated.
	for {
		if q, _ := s.LogQueueLength(ctx); q == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	stop()
	wg.Wait()
	<-watchDone
	b.StopTimer()
	var lat []time.Duration
	for _, cs := range commits {
		for _, c := range cs {
			idx, err := s.LogIndex(ctx, c.last)
			if err != nil {
				b.Fatal(err)
			}
			i := slices.IndexFunc(sizes, func(m checkpoint) bool { return m.size > idx })
			if i < 0 {
				b.Fatalf("version %s at %d never seen in a checkpoint", c.last, idx)
			}
			lat = append(lat, max(0, sizes[i].at.Sub(c.at)))
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(total)/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Milliseconds()), "p99-ms")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(idx.DiskBytes())/float64(total), "index-disk-B/record")
	if size, _ := g.StateIndexSize(); size == 0 {
		b.Fatal("the integrator kept no state index")
	}
}

var (
	benchWriters = flag.Int("writers", 3, "BenchmarkCommitToCheckpointPostgres: writers at once")
	benchRecords = flag.Int("records", 0, "BenchmarkCommitToCheckpointPostgres: records to write in all (0: write for 5 s)")
)
