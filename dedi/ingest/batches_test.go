package ingest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestIngestChangesAcrossBatches: a file of more records than one batch (directory.MaxBatch)
// that changes some records, adds new ones between them and drops others is indexed as a
// whole: each changed record gets one new version, each new one is added, each dropped one
// is suspended, and the unchanged keep their versions.
func TestIngestChangesAcrossBatches(t *testing.T) {
	const n = 2500
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "batches.test", c.Now())
		recs := make([]dedi.Record, n)
		for i := range recs {
			recs[i] = rec(fmt.Sprintf("r%04d", i), map[string]any{"id": fmt.Sprintf("r%04d", i), "n": float64(i)})
		}
		f := p.registry("keys", recs...)
		p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(ctx, "batches.test"); err != nil {
			t.Fatal(err)
		}
		svc := newService(s, o, c)
		if rep := mustCrawl(t, svc, "batches.test"); rep.NewVersions != n+1 {
			t.Fatalf("first crawl: %s", describe(rep))
		}
		first, err := s.GetRecord(ctx, "batches.test", "keys", "r0001", directory.VersionSel{})
		if err != nil {
			t.Fatal(err)
		}

		// Every 3rd record (but r0000) changes, every other 7th leaves, a new one follows every 2nd.
		c.Add(time.Minute)
		var next []dedi.Record
		changed, dropped, added := 0, 0, 0
		for i := range recs {
			r := recs[i]
			switch {
			case i%3 == 0 && i > 0:
				r = rec(r.Name, map[string]any{"id": r.Name, "n": float64(-i)})
				changed++
			case i%7 == 0:
				dropped++
				continue
			}
			next = append(next, r)
			if i%2 == 0 {
				name := fmt.Sprintf("s%04d", i)
				next = append(next, rec(name, map[string]any{"id": name}))
				added++
			}
		}
		f.Records = next
		p.publish(t, c.Now())
		rep := mustCrawl(t, svc, "batches.test")
		if want := changed + dropped + added; rep.NewVersions != want {
			t.Fatalf("change crawl: %d versions, want %d (%d changed, %d dropped, %d added): %s", rep.NewVersions, want, changed, dropped, added, describe(rep))
		}
		for _, tc := range []struct {
			name  string
			state string
			n     any
		}{
			{"r0000", directory.StateSuspended, 0.0}, {"r2499", directory.StateLive, -2499.0}, {"r1500", directory.StateLive, -1500.0},
			{"r0007", directory.StateSuspended, 7.0}, {"r2492", directory.StateSuspended, 2492.0},
			{"s0002", directory.StateLive, nil}, {"s2498", directory.StateLive, nil}, {"s1002", directory.StateLive, nil},
		} {
			r, err := s.GetRecord(ctx, "batches.test", "keys", tc.name, directory.VersionSel{})
			if err != nil || r.State != tc.state || r.Details["n"] != tc.n {
				t.Errorf("%s: %s, n %v, %v; want %s, n %v", tc.name, r.State, r.Details["n"], err, tc.state, tc.n)
			}
		}
		if r, err := s.GetRecord(ctx, "batches.test", "keys", "r0001", directory.VersionSel{}); err != nil || r.Version != first.Version {
			t.Errorf("an unchanged record got a new version: %+v, %v", r, err)
		}
		if fileState(t, s, "batches.test", "keys").RecordCount != int64(len(next)) {
			t.Errorf("record count: %d, want %d", fileState(t, s, "batches.test", "keys").RecordCount, len(next))
		}
	})
}
