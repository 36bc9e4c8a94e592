package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
)

// BenchmarkStatsOverHTTP1M: GET /svc/stats over loopback HTTP on Postgres with the million
// seeded records, one request at a time, against the COUNT(*) of the records table that the
// counters replace (the target: stats under 5 ms at 1M records).
//
//	go test -run '^$' -bench StatsOverHTTP1M -benchtime 2000x ./server
func BenchmarkStatsOverHTTP1M(b *testing.B) {
	const n = 1_000_000
	st, _ := storetest.SeededRegistry(b, n)
	svc := httptest.NewServer(benchServer(b, st))
	defer svc.Close()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		resp, err := http.Get(svc.URL + "/svc/stats")
		if err != nil {
			b.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	p50, p99 := storetest.Percentiles(lat)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	s, err := st.Stats(context.Background())
	if err != nil || s.Records < n {
		b.Fatalf("stats %+v, %v: want at least %d records", s, err, n)
	}
	t0 := time.Now()
	if got := storetest.SeededRegistryInt64(b, n, `SELECT COUNT(*) FROM records`); got != s.Records {
		b.Fatalf("COUNT(*) = %d, counters %d", got, s.Records)
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds())/1000, "count-star-ms")
}
