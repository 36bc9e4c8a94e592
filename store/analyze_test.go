package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestPlannerStatisticsFollowBulkWrites: after large add-records batches the store refreshes
// the planner's statistics of the record tables by itself (in the background), so that search
// plans do not wait for autovacuum, which may be off. Read from pg_stat_user_tables: the
// tables were ANALYZEd (by a command, not by autovacuum) and the statistics count every row.
func TestPlannerStatisticsFollowBulkWrites(t *testing.T) {
	s, dbURL := storetest.OpenURL(t, store.DialectPostgres)
	ctx := context.Background()
	ns, err := s.CreateNamespace(ctx, newOwner(t, s), creator, directory.NamespaceInput{Name: "Bulk Co"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom,
		Schema: map[string]any{"type": "object"}}); err != nil {
		t.Fatal(err)
	}
	const batches = 3
	for b := range batches {
		in := make([]directory.RecordInput, directory.MaxBatch)
		for i := range in {
			in[i] = directory.RecordInput{RecordName: fmt.Sprintf("p-%d-%04d", b, i), Details: map[string]any{"zip": fmt.Sprintf("%05d", b*directory.MaxBatch+i)}}
		}
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, in); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The refresh runs in the background: wait for it (a generous deadline, not a measurement).
	var state string
	for deadline := time.Now().Add(60 * time.Second); ; {
		ok := true
		state = ""
		for _, table := range []string{"records", "record_versions"} {
			var analyzed bool
			var tuples float64
			if err := conn.QueryRow(ctx, `SELECT s.last_analyze IS NOT NULL, c.reltuples FROM pg_stat_user_tables s
				JOIN pg_class c ON c.oid = s.relid WHERE s.relid = $1::regclass`, table).Scan(&analyzed, &tuples); err != nil {
				t.Fatal(err)
			}
			state += fmt.Sprintf(" %s: analyzed %v, reltuples %.0f;", table, analyzed, tuples)
			ok = ok && analyzed && tuples >= batches*directory.MaxBatch
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("statistics not refreshed after %d records were added:%s", batches*directory.MaxBatch, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
