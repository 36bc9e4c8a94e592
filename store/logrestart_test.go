package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/translog/logstore"
)

// RestartLog empties the log and queues every public version again in creation order under
// the new origin; the old origin is refused, and the new log's indices start at 0.
func TestRestartLog(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openForTest(t, d)
			ns := newPeople(t, s, "Acme")
			addNamed(t, s, ctx, ns.NamespaceID, "a", 5, "")
			drafts := addNamed(t, s, ctx, ns.NamespaceID, "d", 2, directory.StateDraft)
			second := "second"
			if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "a-0", "", directory.RecordPatch{Description: &second}); err != nil {
				t.Fatal(err)
			}
			first := integrateAll(t, s, 3) // origin example.test/log
			if _, err := s.SaveLogCosigned(ctx, logstore.Cosigned{Text: "cosigned", Size: 2}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.RestartLog(ctx, "example.test/log"); !errors.Is(err, directory.ErrConflict) {
				t.Fatalf("a restart under the log's own origin: %v, want directory.ErrConflict", err)
			}
			queued, err := s.RestartLog(ctx, "new.example/log")
			if err != nil {
				t.Fatal(err)
			}
			if queued != int64(len(first)) || queued != 8 {
				t.Fatalf("%d versions queued again; the old log held %d, want 8 (namespace, registry, 5 records, 1 update)", queued, len(first))
			}
			st, err := s.LogState(ctx)
			if err != nil || st.Origin != "new.example/log" || st.Size != 0 || st.Checkpoint != "" {
				t.Fatalf("state after the restart: %+v, %v", st, err)
			}
			if c, err := s.LogCosigned(ctx); err != nil || c.Text != "" || c.Size != 0 {
				t.Fatalf("cosigned after the restart: %+v, %v", c, err)
			}
			if _, err := s.LogIndex(ctx, first[0]); !errors.Is(err, directory.ErrNotFound) {
				t.Fatalf("a version before the new log integrates: %v, want directory.ErrNotFound", err)
			}
			again := integrateAll(t, s, 3)
			if len(again) != len(first) {
				t.Fatalf("the new log took %d versions, the old %d", len(again), len(first))
			}
			for i := range first {
				if again[i] != first[i] {
					t.Fatalf("leaf %d: %s in the new log, %s in the old: not the creation order", i, again[i], first[i])
				}
			}
			checkIndices(t, s, again)
			if _, err := s.LogIndex(ctx, drafts[0].Version); !errors.Is(err, directory.ErrNotFound) {
				t.Fatalf("a draft: %v, want directory.ErrNotFound", err)
			}
		})
	}
}

// BenchmarkRestartLogPostgres restarts the log of a database of 100,000 records on Postgres (a
// new log each time) and reports how many versions per second the restart queues.
//
//	go test -run '^$' -bench RestartLog -benchtime 3x ./store
func BenchmarkRestartLogPostgres(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, testdb.URL(b, testdb.Postgres), nil, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	u, err := s.EnsureUser(ctx, "bench@example.com")
	if err != nil {
		b.Fatal(err)
	}
	ns, err := s.CreateNamespace(ctx, u, "did:web:example.com", directory.NamespaceInput{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:example.com", directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom}); err != nil {
		b.Fatal(err)
	}
	const records = 100_000
	in := make([]directory.RecordInput, directory.MaxBatch)
	for k := 0; k < records; k += directory.MaxBatch {
		for i := range in {
			in[i] = directory.RecordInput{RecordName: fmt.Sprintf("p-%07d", k+i), Details: map[string]any{"i": float64(k + i)}}
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", "did:web:example.com", in); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	var queued int64
	for i := 0; i < b.N; i++ {
		if queued, err = s.RestartLog(ctx, fmt.Sprintf("bench.example/svc/log/%d", i+2)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(queued)*float64(b.N)/b.Elapsed().Seconds(), "versions/s")
}
