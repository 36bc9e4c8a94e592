package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestConcurrentLatestLookups: many lookups at once (grouped on Postgres) each get their own
// record, unknown names get ErrNotFound, and a caller that gives up does not fail the others.
func TestConcurrentLatestLookups(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ns, err := s.CreateNamespace(ctx, newOwner(t, s), creator, directory.NamespaceInput{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		for _, reg := range []string{"a", "b"} {
			if _, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: reg, Tag: directory.TagCustom,
				Schema: map[string]any{"type": "object"}}); err != nil {
				t.Fatal(err)
			}
			var in []directory.RecordInput
			for i := range 50 {
				in = append(in, directory.RecordInput{RecordName: fmt.Sprintf("rec-%d", i), Details: map[string]any{"reg": reg, "i": float64(i)}})
			}
			if _, err := s.AddRecords(ctx, ns.NamespaceID, reg, creator, in); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2000)
		for w := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 50 {
					reg, i := []string{"a", "b"}[(w+j)%2], (w*7+j)%60 // names 50-59 do not exist
					name := fmt.Sprintf("rec-%d", i)
					cctx, cancel := context.WithCancel(ctx)
					if j%10 == 9 {
						cancel() // a caller that has gone: its own lookup fails, nobody else's
					}
					r, err := s.GetRecord(cctx, ns.NamespaceID, reg, name, directory.VersionSel{})
					cancel()
					switch {
					case j%10 == 9:
						if err == nil {
							errs <- fmt.Errorf("%s/%s: a cancelled lookup succeeded", reg, name)
						}
					case i >= 50:
						if !errors.Is(err, directory.ErrNotFound) {
							errs <- fmt.Errorf("%s/%s: want ErrNotFound, got %v", reg, name, err)
						}
					case err != nil:
						errs <- fmt.Errorf("%s/%s: %v", reg, name, err)
					case r.RegistryName != reg || r.RecordName != name || r.Details["reg"] != reg || r.Details["i"] != float64(i):
						errs <- fmt.Errorf("%s/%s: got record %s/%s with details %v", reg, name, r.RegistryName, r.RecordName, r.Details)
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		// Unknown namespace and a closed store.
		if _, err := s.GetRecord(ctx, "did:svc:unknown", "a", "rec-1", directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("unknown namespace: %v", err)
		}
		s.Close()
		done := make(chan error, 1)
		go func() { _, err := s.GetRecord(ctx, ns.NamespaceID, "a", "rec-1", directory.VersionSel{}); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("lookup on a closed store succeeded")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("lookup on a closed store hangs")
		}
	})
}
