package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// A CSV job writes as its owner: each batch reads the owner's role after the registry's lock,
// and a job whose owner stopped being a delegate of the namespace fails at its next batch,
// saying why, and writes nothing of it.
func TestImportBatchNeedsItsOwnersRole(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns := acmePeople(t, s)
		_, d, err := s.CreateAPIKey(ctx, "dee@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.AddDelegate(ns.NamespaceID, d.Email) }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateImportJob(ctx, d.ID, ns.NamespaceID, "people", creator, []string{"record_name"}, 2, []byte("record_name\na\nb\n")); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		job, ok, err := s.ClaimImportJob(ctx, now, now.Add(time.Minute))
		if err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		row := func(i int64, name string) []store.ImportRow {
			return []store.ImportRow{{Row: i, Input: directory.RecordInput{RecordName: name}}}
		}
		if j, err := s.ImportBatch(ctx, job.ID, 0, 1, row(1, "a"), nil, now.Add(time.Minute)); err != nil || j.ImportedRows != 1 {
			t.Fatalf("first batch, as a delegate: %+v %v", j, err)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.RemoveDelegate(ns.NamespaceID, d.Email) }); err != nil {
			t.Fatal(err)
		}
		j, err := s.ImportBatch(ctx, job.ID, 1, 2, row(2, "b"), nil, now.Add(time.Minute))
		if err != nil || j.State != store.JobFailed || !strings.Contains(j.Failure, "not the owner or a delegate") || j.ImportedRows != 1 {
			t.Fatalf("second batch, no longer a delegate: %+v %v; want the job failed, saying why", j, err)
		}
		if _, err := s.GetRecord(ctx, ns.NamespaceID, "people", "b", directory.VersionSel{}); err == nil {
			t.Fatal("the batch after the owner's role was lost wrote its record")
		}
	})
}
