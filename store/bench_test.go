package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// BenchmarkGetRecordLatestPostgres1M: lookup of the latest version of a random record in a
// registry of 1,000,000 records, in-process through the store. Reports p50 and p99.
func BenchmarkGetRecordLatestPostgres1M(b *testing.B) {
	s, nsID := storetest.SeededRegistry(b, 1_000_000)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		name := storetest.PersonName(r.IntN(1_000_000))
		t0 := time.Now()
		rec, err := s.GetRecord(ctx, nsID, "people", name, directory.VersionSel{})
		lat = append(lat, time.Since(t0))
		if err != nil || rec.RecordName != name {
			b.Fatalf("lookup %s: %v", name, err)
		}
	}
	b.StopTimer()
	storetest.ReportPercentiles(b, lat)
}

// BenchmarkAddRecordsPostgres: batches of 1000 records through the store's bulk path
// (digests included; schema validation happens in the server and is measured there).
func BenchmarkAddRecordsPostgres(b *testing.B) {
	s := storetest.Open(b, store.DialectPostgres)
	ctx := context.Background()
	u, _ := s.EnsureUser(ctx, "bench@example.com")
	ns, err := s.CreateNamespace(ctx, u, creator, directory.NamespaceInput{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	batches := make([][]directory.RecordInput, b.N)
	for i := range batches {
		batches[i] = make([]directory.RecordInput, directory.MaxBatch)
		for j := range batches[i] {
			k := i*directory.MaxBatch + j
			batches[i][j] = directory.RecordInput{RecordName: fmt.Sprintf("p-%08d", k), Details: storetest.Details(r, k)}
		}
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, batches[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*directory.MaxBatch)/time.Since(start).Seconds(), "records/s")
}
