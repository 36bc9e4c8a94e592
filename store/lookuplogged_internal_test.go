package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
)

// GetLatestRecordLogged reads what GetRecord reads, with the index LogIndex gives: for
// integrated versions (many at once, grouped on Postgres), a queued one (not logged), a draft
// (no record to an anonymous reader, not logged), one integrated before migration 0013
// (log_entries), and the misses GetRecord explains (the level that was missing, a deleted record).
func TestGetLatestRecordLogged(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openForTest(t, d)
			ns := newPeople(t, s, "Acme")
			addNamed(t, s, ctx, ns.NamespaceID, "a", 20, "")
			drafts := addNamed(t, s, ctx, ns.NamespaceID, "d", 1, directory.StateDraft)
			order := integrateAll(t, s, 6)
			queued := addNamed(t, s, ctx, ns.NamespaceID, "q", 1, "")[0]
			check := func(name string, wantLogged bool) error {
				want, err := s.GetRecord(ctx, ns.NamespaceID, "people", name, directory.VersionSel{})
				if err != nil {
					return err
				}
				got, idx, logged, err := s.GetLatestRecordLogged(ctx, ns.NamespaceID, "people", name)
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want) || logged != wantLogged {
					return fmt.Errorf("%s: %+v logged %v (%v), want %+v logged %v", name, got, logged, err, want, wantLogged)
				}
				if !logged {
					return nil
				}
				if wantIdx, err := s.LogIndex(ctx, got.Version); err != nil || idx != wantIdx {
					return fmt.Errorf("%s: index %d, LogIndex %d (%v)", name, idx, wantIdx, err)
				}
				return nil
			}
			var readers errgroup.Group
			for g := range 8 {
				readers.Go(func() error {
					for i := range 20 {
						if err := check(fmt.Sprintf("a-%d", (i+g)%20), true); err != nil {
							return err
						}
					}
					return nil
				})
			}
			if err := readers.Wait(); err != nil {
				t.Fatal(err)
			}
			if len(order) != 22 {
				t.Fatalf("%d integrated", len(order))
			}
			for _, c := range []struct {
				name   string
				logged bool
			}{{queued.RecordName, false}, {drafts[0].RecordName, false}} {
				if err := check(c.name, c.logged); err != nil {
					t.Fatal(err)
				}
			}
			// Integrated before migration 0013: no position, a log_entries row.
			if err := s.db.Exec(`DELETE FROM log_queue WHERE version = ?`, queued.Version).Error; err != nil {
				t.Fatal(err)
			}
			if err := s.db.Exec(`UPDATE record_versions SET log_seq = NULL WHERE version = ?`, queued.Version).Error; err != nil {
				t.Fatal(err)
			}
			if err := s.db.Exec(`INSERT INTO log_entries (idx, version) VALUES (?, ?)`, 99, queued.Version).Error; err != nil {
				t.Fatal(err)
			}
			if _, idx, logged, err := s.GetLatestRecordLogged(ctx, ns.NamespaceID, "people", queued.RecordName); err != nil || !logged || idx != 99 {
				t.Fatalf("a version integrated before 0013: %d %v %v", idx, logged, err)
			}
			// Misses say which level was missing, as GetRecord's do.
			for _, c := range []struct {
				ns, reg, rec string
				missing      directory.Missing
			}{
				{ns.NamespaceID, "people", "nobody", directory.MissingRecord},
				{ns.NamespaceID, "nothing", "a-1", directory.MissingRegistry},
				{"did:svc:5HueCGU8rMjxEXxiPuD5BD", "people", "a-1", directory.MissingNamespace},
			} {
				_, _, _, err := s.GetLatestRecordLogged(ctx, c.ns, c.reg, c.rec)
				var nf *directory.NotFoundError
				if !errors.As(err, &nf) || nf.Missing != c.missing {
					t.Fatalf("%s/%s/%s: %v, want the %s missing", c.ns, c.reg, c.rec, err, c.missing)
				}
			}
			// A deleted record's head (as delete-record leaves it) is missing to a latest read.
			if err := s.db.Exec(`UPDATE records SET state = ? WHERE record_name = ?`, directory.StateDeleted, "a-3").Error; err != nil {
				t.Fatal(err)
			}
			_, _, _, err := s.GetLatestRecordLogged(ctx, ns.NamespaceID, "people", "a-3")
			_, wantErr := s.GetRecord(ctx, ns.NamespaceID, "people", "a-3", directory.VersionSel{})
			if err == nil || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("a deleted record: %v, GetRecord %v", err, wantErr)
			}
		})
	}
}
