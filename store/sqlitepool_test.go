package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestSQLitePoolKeepsConnections: under concurrent lookups the SQLite pool keeps the
// connections it opened (none is closed for want of an idle slot, which would open a new one,
// running its pragmas and reading the schema again), and its connections read through a
// memory map of the file.
func TestSQLitePoolKeepsConnections(t *testing.T) {
	s := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	ns := acmePeople(t, s)
	var in []directory.RecordInput
	for i := range 20 {
		in = append(in, directory.RecordInput{RecordName: fmt.Sprintf("rec-%d", i), Details: map[string]any{"i": float64(i)}})
	}
	if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, in); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				name := fmt.Sprintf("rec-%d", (w+i)%20)
				rec, err := s.GetRecord(ctx, ns.NamespaceID, "people", name, directory.VersionSel{})
				if err == nil && rec.RecordName != name {
					err = fmt.Errorf("asked %s, got %s", name, rec.RecordName)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := s.Pool().Stats()
	if st.MaxIdleClosed != 0 || st.MaxLifetimeClosed != 0 || st.MaxIdleTimeClosed != 0 {
		t.Errorf("the pool closed connections: %d for want of an idle slot, %d by lifetime, %d by idle time (open %d)",
			st.MaxIdleClosed, st.MaxLifetimeClosed, st.MaxIdleTimeClosed, st.OpenConnections)
	}
	var mmap int64
	if err := s.Pool().QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmap); err != nil {
		t.Fatal(err)
	}
	if mmap < 256<<20 {
		t.Errorf("mmap_size is %d; want the file read through a memory map", mmap)
	}
}
