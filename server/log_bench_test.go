package server_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

// zeros is a reader of zero bytes: the benchmark log's key is the same in every run, as the
// log kept in the seeded schema requires.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// benchLogKey is the benchmarks' log signer key, the same in every run.
func benchLogKey(b *testing.B) translog.Key {
	b.Helper()
	skey, _, err := note.GenerateKey(zeros{}, "bench.example/svc/log")
	if err != nil {
		b.Fatal(err)
	}
	key, err := translog.ParseKey(skey)
	if err != nil {
		b.Fatal(err)
	}
	return key
}

// BenchmarkLogAt1M logs the million seeded records of SeededRegistry (once: the log stays in
// the seeded schema, and the first run reports how fast it integrated them), then measures, on
// Postgres over loopback HTTP: inclusion proofs per second for versions drawn uniformly from
// the log, the latency of full level-0 and entry-bundle tile requests, and the log's storage per
// version: beyond the leaf itself (log-B: the version-to-index map, the relation sizes of
// log_tiles and log_state, indexes and TOAST included, less the entry bundles as stored), then
// its parts (the version-to-index map, the hash tiles), the bundles as stored (compressed) beside the
// leaves' own size, and the queue's table after compaction.
//
//	go test -run '^$' -bench LogAt1M -benchtime 1x ./server
func BenchmarkLogAt1M(b *testing.B) {
	const n = 1_000_000
	st, _ := storetest.SeededRegistry(b, n)
	ctx := context.Background()
	key := benchLogKey(b)
	g := translog.NewIntegrator(st, key, nil, nil)
	start, leaves := time.Now(), 0
	for {
		k, err := g.IntegrateOnce(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if leaves += k; k == 0 {
			break
		}
	}
	if leaves > 0 {
		b.Logf("integrated %d leaves in %s (%.0f leaves/s)", leaves, time.Since(start).Round(time.Second), float64(leaves)/time.Since(start).Seconds())
	}
	r := translog.NewReader(st)
	_, cp, err := r.Checkpoint(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if cp.Size < n {
		b.Fatalf("the log holds %d leaves, want at least %d", cp.Size, n)
	}
	// Versions to prove: every leaf of 200 entry bundles drawn at random.
	rng := rand.New(rand.NewPCG(3, 4))
	var versions []string
	for range 200 {
		bundle, err := r.Tile(ctx, logstore.EntriesLevel, rng.Int64N(cp.Size/leaf.TileWidth), leaf.TileWidth)
		if err != nil {
			b.Fatal(err)
		}
		leaves, err := leaf.SplitBundle(bundle, leaf.TileWidth)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range leaves {
			f, err := leaf.Parse(l)
			if err != nil {
				b.Fatal(err)
			}
			versions = append(versions, f.Version)
		}
	}
	svc := httptest.NewServer(benchServer(b, st))
	defer svc.Close()

	b.ResetTimer()
	var incl phase
	for i := 0; i < b.N; i++ {
		incl = measurePhase(b, svc.URL, 16, 3*time.Second, func(r *rand.Rand) func() string {
			return func() string { return "/svc/log/inclusion/" + versions[r.IntN(len(versions))] }
		})
	}
	b.StopTimer()
	tileLatency := func(level int) (p50, p99 float64) {
		var lat []time.Duration
		for range 2000 {
			t := tlog.Tile{H: leaf.TileHeight, L: level, N: rng.Int64N(cp.Size / leaf.TileWidth), W: leaf.TileWidth}
			path := svc.URL + "/svc/log/" + leaf.TileServicePath(t)
			t0 := time.Now()
			resp, err := http.Get(path)
			if err != nil {
				b.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("%s: %d", path, resp.StatusCode)
			}
			lat = append(lat, time.Since(t0))
		}
		return storetest.Percentiles(lat)
	}
	t50, t99 := tileLatency(0)
	e50, e99 := tileLatency(-1)
	// Storage, after the compaction the integrator runs every so many integrations.
	if err := st.CompactLog(ctx); err != nil {
		b.Fatal(err)
	}
	q := func(query string) float64 {
		return float64(storetest.SeededRegistryInt64(b, n, query)) / float64(cp.Size)
	}
	// The version-to-index map: the runs, the positions kept in the version rows (8 bytes
	// each as stored) and, for versions logged before schema 13, log_entries.
	entries := q(`SELECT pg_total_relation_size('log_entries') + pg_total_relation_size('log_runs') +
		(SELECT COALESCE(SUM(pg_column_size(log_seq)), 0) FROM namespace_versions) +
		(SELECT COALESCE(SUM(pg_column_size(log_seq)), 0) FROM registry_versions) +
		(SELECT COALESCE(SUM(pg_column_size(log_seq)), 0) FROM record_versions)`)
	hashTiles := q(`SELECT COALESCE(SUM(pg_column_size(data)), 0) FROM log_tiles WHERE level >= 0`)
	bundles := q(`SELECT COALESCE(SUM(pg_column_size(data)), 0) FROM log_tiles WHERE level = -1`)     // as stored (compressed)
	leafBytes := q(`SELECT COALESCE(SUM(octet_length(data)), 0) FROM log_tiles WHERE level = -1`) - 2 // less each entry's length prefix
	beyond := entries + q(`SELECT pg_total_relation_size('log_tiles') + pg_total_relation_size('log_state')`) - bundles
	queue := q(`SELECT pg_total_relation_size('log_queue')`)
	b.ReportMetric(incl.rps, "inclusion-req/s")
	b.ReportMetric(incl.goCPU, "inclusion-cpu-µs/req")
	b.ReportMetric(incl.pgCPU, "inclusion-pg-µs/req")
	b.ReportMetric(t50, "tile-p50-ms")
	b.ReportMetric(t99, "tile-p99-ms")
	b.ReportMetric(e50, "bundle-p50-ms")
	b.ReportMetric(e99, "bundle-p99-ms")
	b.ReportMetric(beyond, "log-B/version")
	b.ReportMetric(entries, "entries-B/version")
	b.ReportMetric(hashTiles, "hashtiles-B/version")
	b.ReportMetric(bundles, "bundles-stored-B/version")
	b.ReportMetric(leafBytes, "leaf-B/version")
	b.ReportMetric(queue, "queue-B/version")
}
