package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// processCPU is the CPU time (user and system) this process has used: on a shared machine it
// measures what a lookup costs better than the wall clock does.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGetRecordSQLite100k: the latest version of a record drawn uniformly from 100,000
// (in 10 registries) on the embedded SQLite, in-process through the store, with the CPU time
// per lookup. "serial" reports
// p50 and p99; "parallel" reports lookups per second from 8 goroutines per core (the shape
// of concurrent HTTP lookups). The database is seeded once and kept under the temp directory.
func BenchmarkGetRecordSQLite100k(b *testing.B) {
	const n = 100_000
	s, nsID := storetest.SeededNamespace(b, store.DialectSQLite, n, 10)
	ctx := context.Background()
	lookup := func(i int) error {
		name := storetest.PersonName(i)
		rec, err := s.GetRecord(ctx, nsID, fmt.Sprintf("r%d", i%10), name, directory.VersionSel{})
		if err == nil && rec.RecordName != name {
			err = fmt.Errorf("got %s", rec.RecordName)
		}
		return err
	}
	b.Run("serial", func(b *testing.B) {
		r := rand.New(rand.NewPCG(3, 4))
		lat := make([]time.Duration, 0, b.N)
		cpu0 := processCPU(b)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			err := lookup(r.IntN(n))
			lat = append(lat, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		storetest.ReportPercentiles(b, lat)
		b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
	})
	b.Run("parallel", func(b *testing.B) {
		var seed atomic.Uint64
		b.SetParallelism(8)
		start, cpu0 := time.Now(), processCPU(b)
		b.RunParallel(func(pb *testing.PB) {
			r := rand.New(rand.NewPCG(seed.Add(1), 5))
			for pb.Next() {
				if err := lookup(r.IntN(n)); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "lookups/s")
		b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
	})
}
