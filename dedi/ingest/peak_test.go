package ingest_test

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// measurePeak starts measuring the memory that what follows takes above what the process
// holds now, and returns the function that stops and says it (and returns the two peaks
// above the start in MiB; rss is 0 when it cannot be measured):
//   - the Go heap in use (the heap's spans in use, objects and their free slots, as
//     MemStats.HeapInuse), sampled every millisecond through runtime/metrics (which does not
//     stop the world), above the heap in use after a full collection now;
//   - the process's peak resident set (VmHWM of /proc/self/status, which the kernel keeps and
//     no sampling can miss), reset here (/proc/self/clear_refs) after the heap was collected
//     and given back to the system, above the resident set then (VmRSS). It counts what the Go
//     heap does not: the runtime's own memory and the C-side memory of the SQLite library.
//
// SVC_DEDI_BENCH_HEAPPROFILE=file writes a heap profile there each time the heap grows by 8
// MiB more than it had.
func measurePeak(t *testing.T) func() (say string, heap, rss float64) {
	t.Helper()
	debug.FreeOSMemory()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	baseRSS := procStatus(t, "VmRSS")
	rssOK := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil && baseRSS > 0
	prof := os.Getenv("SVC_DEDI_BENCH_HEAPPROFILE")
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	var peak, profiled uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			if inuse := samples[0].Value.Uint64() + samples[1].Value.Uint64(); inuse > peak {
				peak = inuse
				if prof != "" && peak > profiled+8<<20 {
					profiled = peak
					if f, err := os.Create(prof); err == nil {
						_ = pprof.WriteHeapProfile(f)
						_ = f.Close()
					}
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (say string, heap, rss float64) {
		close(stop)
		wg.Wait()
		mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
		heap = mib(peak) - mib(base.HeapInuse)
		say = fmt.Sprintf("Go heap in use: %.0f MiB before (the fixture), peak %.0f MiB (+%.0f MiB)", mib(base.HeapInuse), mib(peak), heap)
		if rssOK {
			hwm := procStatus(t, "VmHWM")
			rss = mib(hwm) - mib(baseRSS)
			say += fmt.Sprintf("; resident set: %.0f MiB before, peak %.0f MiB (+%.0f MiB)", mib(baseRSS), mib(hwm), rss)
		} else {
			say += "; resident set: not measured (no /proc/self/clear_refs)"
		}
		return say, heap, rss
	}
}

// procStatus reads a field of /proc/self/status in bytes (0 when there is none).
func procStatus(t *testing.T, field string) uint64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", field, err)
		}
		return kb << 10
	}
	return 0
}
