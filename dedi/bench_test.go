package dedi

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// LargeFixture signs a file of n records (each like a small key-directory entry) and the
// manifest listing it.
func largeFixture(b testing.TB, n int) *fixture {
	fx := newFixture(b)
	fx.file.Records = make([]Record, n)
	for i := range fx.file.Records {
		fx.file.Records[i] = Record{Name: fmt.Sprintf("service-%06d", i), Details: map[string]any{
			"id": fmt.Sprintf("service-%06d", i), "public_key": "z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "rank": float64(i)}}
	}
	return fx
}

// BenchmarkVerify200k: Verify of a 200,000-record file (parse, schema, signature, manifest,
// every record against the inline schema).
func BenchmarkVerify200k(b *testing.B) {
	fx := largeFixture(b, 200000)
	in := fx.input(b, now)
	b.SetBytes(int64(len(in.File)))
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if res := Verify(context.Background(), in); res.Outcome != Authentic {
			b.Fatalf("%s (%s)", res.Outcome, res.Reason)
		}
	}
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the CPU time (user and system) of the process so far: on a shared machine it
// says what a run costs when the wall time also holds the waits for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
