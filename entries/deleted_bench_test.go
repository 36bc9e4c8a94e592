package entries_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/entries"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestDeleteRegistryLarge (SVC_DELETE_BENCH_RECORDS=100000 to run; SVC_DELETE_BENCH_DIALECT
// picks the dialect, Postgres by default): a delete-registry of a registry of that many records,
// and its restore, each under 5 s, with the registry's records missing in between and back
// after. The figures are in the log (docs/lifecycle.md).
func TestDeleteRegistryLarge(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("SVC_DELETE_BENCH_RECORDS"))
	if n <= 0 {
		t.Skip("set SVC_DELETE_BENCH_RECORDS to run")
	}
	dialect := os.Getenv("SVC_DELETE_BENCH_DIALECT")
	if dialect == "" {
		dialect = store.DialectPostgres
	}
	ctx := context.Background()
	s := storetest.Open(t, dialect)
	u, nsID := storetest.BenchNamespace(t, s)
	if _, err := s.CreateRegistry(ctx, nsID, storetest.BenchCreator, directory.RegistryInput{RegistryName: "people",
		Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := rand.New(rand.NewPCG(1, 2))
	batch := make([]directory.RecordInput, 0, directory.MaxBatch)
	for i := 0; i < n; i++ {
		batch = append(batch, directory.RecordInput{RecordName: storetest.PersonName(i), Details: storetest.Details(r, i)})
		if len(batch) == directory.MaxBatch || i == n-1 {
			if _, err := s.AddRecords(ctx, nsID, "people", storetest.BenchCreator, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := s.Analyze(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: seeded %d records in %s", dialect, n, time.Since(start).Round(time.Second))

	svc := entries.New(s, nil)
	caller := entries.Caller{UserID: u.ID, DID: storetest.BenchCreator}
	last := storetest.PersonName(n - 1)
	start = time.Now()
	d, err := svc.DeleteRegistry(ctx, caller, nsID, "people", "benchmark")
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if d.Records != int64(n) || d.Registry.State != directory.StateDeleted {
		t.Fatalf("delete-registry hid %d records, state %s", d.Records, d.Registry.State)
	}
	if _, err := s.GetRecord(ctx, nsID, "people", last, directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
		t.Fatalf("a record of the deleted registry reads: %v", err)
	}
	t.Logf("%s: delete-registry of %d records: %s", dialect, n, took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("delete-registry took %s, want under 5 s", took)
	}

	start = time.Now()
	d, err = svc.RestoreRegistry(ctx, caller, nsID, "people")
	took = time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if d.Records != int64(n) || d.Registry.State != directory.StateLive {
		t.Fatalf("restore/registry showed %d records, state %s", d.Records, d.Registry.State)
	}
	if _, err := s.GetRecord(ctx, nsID, "people", last, directory.VersionSel{}); err != nil {
		t.Fatalf("a record of the restored registry: %v", err)
	}
	t.Logf("%s: restore/registry of %d records: %s", dialect, n, took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("restore/registry took %s, want under 5 s", took)
	}
}
