package server_test

import (
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// benchDialectRecords and benchDialectRegistries are the data set of the dialect comparisons:
// the same 100,000 records (storetest.Details, one seed) over 10 registries, kept in a SQLite
// file under the temp directory and in the Postgres schema svc_bench_search_100000, both
// seeded once through the store's bulk path and reused by later runs (and by the store's 100k
// search benchmarks).
const benchDialectRecords, benchDialectRegistries = 100_000, 10

// dialectLookupPath draws record i uniformly from the data set and returns its lookup path.
func dialectLookupPath(nsID string) func(r *rand.Rand) func() string {
	return func(r *rand.Rand) func() string {
		return func() string {
			i := r.IntN(benchDialectRecords)
			return fmt.Sprintf("/svc/lookup/%s/r%d/%s", nsID, i%benchDialectRegistries, storetest.PersonName(i))
		}
	}
}

// BenchmarkLookupRecordOverHTTPSQLiteVsPostgres100k measures, in one run, record lookups over
// loopback HTTP from 16 keep-alive clients against the whole service on the embedded SQLite
// and on Postgres, holding the same 100,000 records, with keys drawn uniformly (the lookup
// cache rarely hits: the database's own rate). The target: SQLite at no less than Postgres
// (ratio ≥ 1). The phases run SQLite, Postgres, Postgres, SQLite, three times over, 2 s each,
// so that a drift in the machine's load weighs on both alike; the averages report requests per second and the CPU spent
// per request in this process (load generator and server) and, for Postgres, in its server
// processes too (read from /proc): on shared cores the rates follow those costs.
func BenchmarkLookupRecordOverHTTPSQLiteVsPostgres100k(b *testing.B) {
	sq, sqNS := storetest.SeededNamespace(b, store.DialectSQLite, benchDialectRecords, benchDialectRegistries)
	pg, pgNS := storetest.SeededNamespace(b, store.DialectPostgres, benchDialectRecords, benchDialectRegistries)
	sqSrv := httptest.NewServer(benchServer(b, sq))
	defer sqSrv.Close()
	pgSrv := httptest.NewServer(benchServer(b, pg))
	defer pgSrv.Close()
	const conc, rounds = 16, 3
	dur := 2 * time.Second
	var sqSum, pgSum phase
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for range rounds {
			sqSum = sqSum.plus(measurePhase(b, sqSrv.URL, conc, dur, dialectLookupPath(sqNS)))
			pgSum = pgSum.plus(measurePhase(b, pgSrv.URL, conc, dur, dialectLookupPath(pgNS)))
			pgSum = pgSum.plus(measurePhase(b, pgSrv.URL, conc, dur, dialectLookupPath(pgNS)))
			sqSum = sqSum.plus(measurePhase(b, sqSrv.URL, conc, dur, dialectLookupPath(sqNS)))
		}
	}
	b.StopTimer()
	sqAvg, pgAvg := sqSum.scaled(1/float64(2*rounds*b.N)), pgSum.scaled(1/float64(2*rounds*b.N))
	b.ReportMetric(sqAvg.rps, "sqlite-req/s")
	b.ReportMetric(pgAvg.rps, "postgres-req/s")
	b.ReportMetric(sqAvg.rps/pgAvg.rps, "sqlite/postgres")
	b.ReportMetric(sqAvg.goCPU, "sqlite-cpu-µs/req")
	b.ReportMetric(pgAvg.goCPU, "postgres-cpu-µs/req")
	b.ReportMetric(pgAvg.pgCPU, "postgres-pg-µs/req")
}

// BenchmarkLookupRecordInProcess100k: GET /svc/lookup/{ns}/r{i%10}/{record} through the whole
// echo stack in-process (no socket), one request at a time, on each dialect over the same
// 100,000 records; reports p50 and p99.
func BenchmarkLookupRecordInProcess100k(b *testing.B) {
	for _, dialect := range storetest.Dialects {
		b.Run(dialect, func(b *testing.B) {
			st, nsID := storetest.SeededNamespace(b, dialect, benchDialectRecords, benchDialectRegistries)
			e := benchServer(b, st)
			inProcessLookups(b, e, dialectLookupPath(nsID)(rand.New(rand.NewPCG(7, 8))))
		})
	}
}
