package server_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
)

// BenchmarkTRQPAuthorizationVsLookup100k: POST /authorization and GET /svc/lookup of the same
// record, alternated (each first every other time), through the whole echo stack in-process
// (no socket), one request at a time, on each dialect over 100,000 records in 10 registries (the data set of the dialect
// comparisons under a name of its own, svc_bench_trqp_100000, whose registries declare
// (issue, r{g}) in their meta.trqp). Reports each one's rate (1 / mean latency), their ratio
// (target: trqp/lookup ≥ 0.8), the ratio of their median latencies (trqp/lookup-p50, the
// steadier figure on a shared machine) and the p50/p99 of an answer with evidence.
func BenchmarkTRQPAuthorizationVsLookup100k(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			ctx := context.Background()
			st, nsID := storetest.SeededNamespaceAt(b, dialect, "svc_bench_trqp_100000", benchDialectRecords, benchDialectRegistries)
			for g := 0; g < benchDialectRegistries; g++ {
				meta := map[string]any{"trqp": map[string]any{"authorizations": []any{
					map[string]any{"action": "issue", "resource": fmt.Sprintf("r%d", g)}}}}
				if _, err := st.UpdateRegistry(ctx, nsID, fmt.Sprintf("r%d", g), "", directory.RegistryPatch{Meta: meta}); err != nil {
					b.Fatal(err)
				}
			}
			e := benchServer(b, st)
			r := rand.New(rand.NewPCG(7, 8))
			lookups := make([]time.Duration, 0, b.N)
			answers := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			lookup := func(g int, name string) {
				req := httptest.NewRequest("GET", fmt.Sprintf("/svc/lookup/%s/r%d/%s", nsID, g, name), nil)
				rec := httptest.NewRecorder()
				t0 := time.Now()
				e.ServeHTTP(rec, req)
				lookups = append(lookups, time.Since(t0))
				if rec.Code != 200 {
					b.Fatalf("lookup: %d %s", rec.Code, rec.Body.String())
				}
			}
			answer := func(g int, name string) {
				req := httptest.NewRequest("POST", "/authorization", strings.NewReader(fmt.Sprintf(
					`{"entity_id":%q,"authority_id":%q,"action":"issue","resource":"r%d"}`, name, nsID, g)))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				t0 := time.Now()
				e.ServeHTTP(rec, req)
				answers = append(answers, time.Since(t0))
				if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"authorized":true`) {
					b.Fatalf("authorization: %d %s", rec.Code, rec.Body.String())
				}
			}
			for n := 0; n < b.N; n++ {
				i := r.IntN(benchDialectRecords)
				g, name := i%benchDialectRegistries, storetest.PersonName(i)
				// Each goes first every other time: the second read of a record finds its
				// pages warm.
				if n%2 == 0 {
					lookup(g, name)
					answer(g, name)
				} else {
					answer(g, name)
					lookup(g, name)
				}
			}
			b.StopTimer()
			mean := func(l []time.Duration) float64 {
				var s time.Duration
				for _, d := range l {
					s += d
				}
				return float64(s) / float64(len(l))
			}
			lr, ar := 1e9/mean(lookups), 1e9/mean(answers)
			b.ReportMetric(lr, "lookup-req/s")
			b.ReportMetric(ar, "trqp-req/s")
			b.ReportMetric(ar/lr, "trqp/lookup")
			// On a shared machine the means take in the waits for a core; the medians' ratio
			// is the steadier figure of the two.
			median := func(l []time.Duration) float64 {
				s := slices.Clone(l)
				slices.Sort(s)
				return float64(s[len(s)/2])
			}
			b.ReportMetric(median(lookups)/median(answers), "trqp/lookup-p50")
			lp50, _ := storetest.Percentiles(lookups)
			p50, p99 := storetest.Percentiles(answers)
			b.ReportMetric(lp50, "lookup-p50-ms")
			b.ReportMetric(p50, "trqp-p50-ms")
			b.ReportMetric(p99, "trqp-p99-ms")
		})
	}
}
