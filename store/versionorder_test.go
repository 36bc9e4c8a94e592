package store_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// Version timestamps are taken after the locks that order the writes: while writers add
// records to a registry, another deactivates, activates, updates and finally revokes it, and
// every record version and registry version keep their creation times in their log order
// (both dialects). The clock moves on at every reading, so that a time taken before a lock,
// by a writer that then waited for it, would show.
func TestVersionTimesFollowTheirLocks(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			var tick atomic.Int64
			base := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
			s, _ := storetest.OpenWith(t, d, store.Options{Now: func() time.Time {
				return base.Add(time.Duration(tick.Add(1)) * time.Millisecond)
			}})
			ctx := context.Background()
			ns := acmePeople(t, s)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var added atomic.Int64
			for w := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						_, err := s.AddRecord(ctx, ns.NamespaceID, "people", creator, directory.RecordInput{
							RecordName: "r" + string(rune('a'+w)) + time.Now().Format("150405.000000000"), Details: map[string]any{"i": float64(i)}})
						switch {
						case err == nil:
							added.Add(1)
						case errors.Is(err, directory.ErrRegistryRevoked), directory.IsConflict(err):
						default:
							t.Error(err)
							return
						}
					}
				}()
			}
			desc := "d"
			for i := range 12 {
				time.Sleep(5 * time.Millisecond)
				action := []directory.Action{directory.ActionDeactivate, directory.ActionActivate, ""}[i%3]
				p := directory.RegistryPatch{Action: action}
				if action == "" {
					desc += "x"
					p.Description = &desc
				}
				if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", p); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(5 * time.Millisecond)
			if _, err := s.UpdateRegistry(ctx, ns.NamespaceID, "people", "", directory.RegistryPatch{Action: directory.ActionRevoke}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(5 * time.Millisecond)
			close(stop)
			wg.Wait()
			if added.Load() == 0 {
				t.Fatal("no record was added during the race")
			}
			type v struct {
				seq, at int64
				version string
			}
			read := func(q string) []v {
				rows, err := s.Pool().QueryContext(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				var out []v
				for rows.Next() {
					var x v
					if err := rows.Scan(&x.seq, &x.at, &x.version); err != nil {
						t.Fatal(err)
					}
					out = append(out, x)
				}
				return out
			}
			regs := read(`SELECT log_seq, created_at, version FROM registry_versions WHERE registry_name = 'people' AND log_seq IS NOT NULL`)
			recs := read(`SELECT log_seq, created_at, version FROM record_versions WHERE registry_name = 'people' AND log_seq IS NOT NULL`)
			bad := 0
			for _, g := range regs {
				for _, r := range recs {
					if (r.seq < g.seq && r.at > g.at) || (r.seq > g.seq && r.at < g.at) {
						if bad++; bad <= 5 {
							t.Errorf("record version %s (log position %d) made at %d, registry version %s (position %d) at %d",
								r.version, r.seq, r.at, g.version, g.seq, g.at)
						}
					}
				}
			}
			if bad > 0 {
				t.Fatalf("%d record and registry versions of %d and %d have times against their log order", bad, len(recs), len(regs))
			}
			t.Logf("%d records, %d registry versions in order", len(recs), len(regs))
		})
	}
}
