package translog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/store/storetest"
)

// BenchmarkCommitToCheckpointPostgres writes add-records batches for a few seconds while the
// integrator runs as svc serve runs it, and reports the write rate and the time from each
// batch's commit to the first signed checkpoint that holds it (p50, p99).
//
//	go test -run '^$' -bench CommitToCheckpoint -benchtime 1x ./translog
func BenchmarkCommitToCheckpointPostgres(b *testing.B) {
	s := storetest.Open(b, store.DialectPostgres)
	ctx := context.Background()
	skey, _, _ := GenerateKey("bench.example/svc/log")
	key, err := ParseKey(skey)
	if err != nil {
		b.Fatal(err)
	}
	u, _ := s.EnsureUser(ctx, "bench@example.com")
	ns, err := s.CreateNamespace(ctx, u, creator, store.NamespaceInput{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, store.RegistryInput{RegistryName: "people", Tag: store.TagCustom}); err != nil {
		b.Fatal(err)
	}
	g := NewIntegrator(s, key, nil, nil)
	if _, err := g.IntegrateOnce(ctx); err != nil {
		b.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); g.Run(runCtx, 250*time.Millisecond) }()

	type mark struct {
		size int64 // the log size that holds the batch
		at   time.Time
	}
	var mu sync.Mutex
	var commits []mark
	var sizes []mark // observed checkpoint sizes
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		for runCtx.Err() == nil {
			st, err := s.LogState(ctx)
			if err == nil {
				mu.Lock()
				if len(sizes) == 0 || sizes[len(sizes)-1].size != st.Size {
					sizes = append(sizes, mark{st.Size, time.Now()})
				}
				mu.Unlock()
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	r := rand.New(rand.NewPCG(1, 2))
	base := int64(2) // namespace and registry
	n := 0
	start := time.Now()
	b.ResetTimer()
	for time.Since(start) < 5*time.Second {
		in := make([]store.RecordInput, store.MaxBatch)
		for j := range in {
			in[j] = store.RecordInput{RecordName: fmt.Sprintf("p-%08d", n+j), Details: storetest.Details(r, n+j)}
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, in); err != nil {
			b.Fatal(err)
		}
		n += len(in)
		mu.Lock()
		commits = append(commits, mark{base + int64(n), time.Now()})
		mu.Unlock()
	}
	elapsed := time.Since(start)
	// Wait until everything is integrated.
	for {
		st, _ := s.LogState(ctx)
		if st.Size >= base+int64(n) {
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
	for _, c := range commits {
		i := slices.IndexFunc(sizes, func(m mark) bool { return m.size >= c.size })
		if i < 0 {
			b.Fatalf("batch ending at %d never seen in a checkpoint", c.size)
		}
		lat = append(lat, max(0, sizes[i].at.Sub(c.at)))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(n)/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Milliseconds()), "p99-ms")
}
