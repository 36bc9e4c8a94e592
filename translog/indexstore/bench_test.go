package indexstore

import (
	"context"
	"flag"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/translog/stateindex"
)

var benchLeaves = flag.Int("index-leaves", 200000, "BenchmarkBuildOnDisk: the leaves of the log")

// BenchmarkBuildOnDisk builds the index of a log of -index-leaves record versions (a third of
// them updates of records already there) on disk, from leaf 0, as a first start over an
// existing log does (overlays of 64 Ki leaves, each committed with its meta), and reports: the
// time, the leaves per second, the disk the store takes per key, the heap in use at most while
// it builds (sampled every 10 ms), and the proof and verification of a key at the end. The
// disk is given as the build leaves it, and once compacted (what the store settles at).
//
//	go test -run '^$' -bench BuildOnDisk -benchtime 1x ./translog/indexstore [-args -index-leaves=1000000]
func BenchmarkBuildOnDisk(b *testing.B) {
	leaves := recordLeaves(*benchLeaves, 11)
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	s := open(b, b.TempDir())
	defer s.Close()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	})
	b.ResetTimer()
	start := time.Now()
	f := stateindex.NewFollower(s)
	for i := 0; i < len(leaves); {
		ov := stateindex.NewOverlay(s)
		of := stateindex.ResumeFollower(ov, f.Size(), f.Root(), false)
		for end := min(len(leaves), i+64<<10); i < end; i++ {
			if err := of.Apply(leaves[i]); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Commit(ov, Meta{Size: of.Size(), Root: of.Root()}); err != nil {
			b.Fatal(err)
		}
		f = stateindex.ResumeFollower(s, of.Size(), of.Root(), false)
	}
	took := time.Since(start)
	close(done)
	wg.Wait()
	b.StopTimer()
	keys := 0
	seen := map[string]bool{}
	for _, l := range leaves {
		ks, _ := stateindex.KeysOf(l)
		for _, k := range ks {
			if !seen[k.String()] {
				seen[k.String()] = true
				keys++
			}
		}
	}
	if err := s.db.Flush(); err != nil {
		b.Fatal(err)
	}
	unsettled := s.DiskBytes()
	if err := s.db.Compact(context.Background(), []byte{0}, []byte{0xff}, true); err != nil {
		b.Fatal(err)
	}
	k, _ := stateindex.KeysOf(leaves[len(leaves)-1])
	t0 := time.Now()
	const proofs = 1000
	var p stateindex.Proof
	var st stateindex.KeyState
	for range proofs {
		var err error
		if p, st, err = f.ProveKey(k[0]); err != nil {
			b.Fatal(err)
		}
	}
	prove := time.Since(t0) / proofs
	t0 = time.Now()
	for range proofs {
		if err := stateindex.VerifyMembership(f.Root(), k[0], st.List, p.Encode()); err != nil {
			b.Fatal(err)
		}
	}
	verify := time.Since(t0) / proofs
	b.ReportMetric(took.Seconds(), "build-s")
	b.ReportMetric(float64(len(leaves))/took.Seconds(), "leaves/s")
	b.ReportMetric(float64(unsettled)/float64(keys), "disk-before-compaction-B/key")
	b.ReportMetric(float64(s.DiskBytes())/float64(keys), "disk-B/key")
	b.ReportMetric(float64(peak.Load()-min(peak.Load(), m0.HeapInuse))/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(prove.Microseconds()), "prove-µs")
	b.ReportMetric(float64(verify.Microseconds()), "verify-µs")
	b.ReportMetric(float64(len(p.Encode())), "proof-B")
}
