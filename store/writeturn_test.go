package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/logstore"
)

// TestWritersTakeTurns: on SQLite the store's write transactions wait for their turn in the
// store (in arrival order) instead of polling the database's lock, so a waiting writer gives
// up when its context ends, without writing; on Postgres writers do not wait for each other.
func TestWritersTakeTurns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns, err := s.CreateNamespace(ctx, newOwner(t, s), creator, directory.NamespaceInput{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		holding, release := make(chan struct{}), make(chan struct{})
		first := make(chan error, 1)
		go func() {
			first <- s.InTx(ctx, func(tx *store.Tx) error {
				close(holding)
				<-release
				return nil
			})
		}()
		<-holding
		short, cancel := context.WithTimeout(ctx, time.Second) // room for a loaded machine: Postgres must not need it
		defer cancel()
		_, err = s.CreateRegistry(short, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom,
			Schema: map[string]any{"type": "object"}})
		close(release)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		_, getErr := s.GetRegistry(ctx, ns.NamespaceID, "people", directory.VersionSel{})
		if s.Dialect() == store.DialectSQLite {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a writer waiting for the turn past its deadline: %v, want the deadline", err)
			}
			if !errors.Is(getErr, directory.ErrNotFound) {
				t.Fatalf("the writer that gave up wrote its registry: %v", getErr)
			}
			return
		}
		if err != nil || getErr != nil {
			t.Fatalf("postgres: a write beside an open transaction: %v, %v", err, getErr)
		}
	})
}

// TestLogIntegrationBesideBulkWriters: a log integration gets its turn while several writers
// write records back to back (SQLite's busy handler alone let such a transaction wait out
// busy_timeout and fail while the writers kept taking the lock).
func TestLogIntegrationBesideBulkWriters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns := acmePeople(t, s)
		var stop atomic.Bool
		var writers errgroup.Group
		for w := range 4 {
			writers.Go(func() error {
				for i := 0; !stop.Load(); i++ {
					in := make([]directory.RecordInput, 20)
					for j := range in {
						in[j] = directory.RecordInput{RecordName: fmt.Sprintf("w%d-%d-%d", w, i, j), Details: map[string]any{"j": float64(j)}}
					}
					if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, in); err != nil {
						return err
					}
				}
				return nil
			})
		}
		integrated := 0
		for range 20 {
			n, err := s.IntegrateLog(ctx, 100, func(b *logstore.Batch) (logstore.Update, error) {
				return logstore.Update{Origin: "test", Checkpoint: fmt.Sprintf("size %d", b.State.Size+int64(len(b.Queued)))}, nil
			})
			if err != nil {
				t.Errorf("integration beside the writers: %v", err)
				break
			}
			integrated += n
		}
		stop.Store(true)
		if err := writers.Wait(); err != nil {
			t.Errorf("writer: %v", err)
		}
		if integrated == 0 {
			t.Fatal("no leaf was integrated while the writers wrote")
		}
	})
}
