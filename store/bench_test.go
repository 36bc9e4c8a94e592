package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"svc/store"
	"svc/store/storetest"
)

// BenchNamespaceRef names the namespace of the persistent million-record benchmark data set.
const benchSchema = "svc_bench_lookup_1m"

// benchDetails builds realistic nested details for record i.
func benchDetails(r *rand.Rand, i int) map[string]any {
	first := []string{"Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Tim"}
	last := []string{"Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Perlman", "Berners-Lee"}
	city := []string{"London", "Zürich", "Paris", "München", "Kraków", "Lisboa", "Oslo", "Tōkyō", "Austin", "Nairobi"}
	f, l := first[r.IntN(len(first))], last[r.IntN(len(last))]
	return map[string]any{
		"name":  map[string]any{"first": f, "last": l},
		"email": fmt.Sprintf("%s.%s.%d@example.com", f, l, i),
		"address": map[string]any{
			"street": fmt.Sprintf("%d Main Street", r.IntN(999)+1), "city": city[r.IntN(len(city))],
			"zip": fmt.Sprintf("%05d", r.IntN(99999)),
		},
		"tags":   []any{"employee", []string{"engineering", "sales", "legal", "ops"}[r.IntN(4)], fmt.Sprintf("grade-%d", r.IntN(9))},
		"number": float64(i),
	}
}

// seedMillion seeds (once, kept across runs) one namespace with one registry of n records
// through the store's bulk path and returns the namespace id.
func seedMillion(b *testing.B, n int) (*store.Store, string) {
	ctx := context.Background()
	var nsID string
	find := func(s *store.Store) bool {
		u, err := s.UserByEmail(ctx, "bench@example.com")
		if err != nil {
			return false
		}
		_ = u
		ids, err := benchNamespace(ctx, s)
		if err != nil || ids == "" {
			return false
		}
		reg, err := s.GetRegistry(ctx, ids, "people", store.VersionSel{})
		if err != nil || reg.RecordCount != int64(n) {
			return false
		}
		nsID = ids
		return true
	}
	s := storetest.Seeded(b, benchSchema, find, func(s *store.Store) {
		start := time.Now()
		u, err := s.EnsureUser(ctx, "bench@example.com")
		if err != nil {
			b.Fatal(err)
		}
		ns, err := s.CreateNamespace(ctx, u, creator, store.NamespaceInput{Name: "bench", Description: "benchmark data"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, store.RegistryInput{RegistryName: "people", Tag: store.TagCustom,
			Schema: map[string]any{"type": "object"}}); err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		batch := make([]store.RecordInput, 0, store.MaxBatch)
		for i := 0; i < n; i++ {
			batch = append(batch, store.RecordInput{RecordName: fmt.Sprintf("person-%07d", i), Description: "seeded", Details: benchDetails(r, i)})
			if len(batch) == store.MaxBatch || i == n-1 {
				if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		nsID = ns.NamespaceID
		b.Logf("seeded %d records in %s", n, time.Since(start).Round(time.Second))
	})
	return s, nsID
}

func benchNamespace(ctx context.Context, s *store.Store) (string, error) {
	u, err := s.UserByEmail(ctx, "bench@example.com")
	if err != nil {
		return "", err
	}
	return s.FirstNamespaceOf(ctx, u.ID)
}

// BenchmarkGetRecordLatestPostgres1M: lookup of the latest version of a random record in a
// registry of 1,000,000 records, in-process through the store. Reports p50 and p99.
func BenchmarkGetRecordLatestPostgres1M(b *testing.B) {
	s, nsID := seedMillion(b, 1_000_000)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		name := fmt.Sprintf("person-%07d", r.IntN(1_000_000))
		t0 := time.Now()
		rec, err := s.GetRecord(ctx, nsID, "people", name, store.VersionSel{})
		lat = append(lat, time.Since(t0))
		if err != nil || rec.RecordName != name {
			b.Fatalf("lookup %s: %v", name, err)
		}
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkAddRecordsPostgres: batches of 1000 records through the store's bulk path
// (digests included; schema validation happens in the server and is measured there).
func BenchmarkAddRecordsPostgres(b *testing.B) {
	s := storetest.Open(b, store.DialectPostgres)
	ctx := context.Background()
	u, _ := s.EnsureUser(ctx, "bench@example.com")
	ns, err := s.CreateNamespace(ctx, u, creator, store.NamespaceInput{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, store.RegistryInput{RegistryName: "people", Tag: store.TagCustom}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	batches := make([][]store.RecordInput, b.N)
	for i := range batches {
		batches[i] = make([]store.RecordInput, store.MaxBatch)
		for j := range batches[i] {
			k := i*store.MaxBatch + j
			batches[i][j] = store.RecordInput{RecordName: fmt.Sprintf("p-%08d", k), Details: benchDetails(r, k)}
		}
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, batches[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*store.MaxBatch)/time.Since(start).Seconds(), "records/s")
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
