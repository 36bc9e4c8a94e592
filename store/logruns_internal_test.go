package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/testdb"
	"github.com/svc-directory/svc/translog/logstore"
)

// integrateAll integrates the queue limit leaves at a time and returns the versions in the
// order they got their indices (from size on).
func integrateAll(t *testing.T, s *Store, limit int) []string {
	t.Helper()
	var order []string
	for {
		n, err := s.IntegrateLog(context.Background(), limit, func(b *logstore.Batch) (logstore.Update, error) {
			for _, q := range b.Queued {
				order = append(order, q.Version)
			}
			return logstore.Update{Origin: "example.test/log", Checkpoint: "checkpoint"}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return order
		}
	}
}

func addNamed(t *testing.T, s *Store, ctx context.Context, nsID, prefix string, n int, state string) []directory.AddedRecord {
	t.Helper()
	in := make([]directory.RecordInput, n)
	for i := range in {
		in[i] = directory.RecordInput{RecordName: fmt.Sprintf("%s-%d", prefix, i), Details: map[string]any{"i": float64(i)}, State: state}
	}
	added, err := s.AddRecords(ctx, nsID, "people", "did:web:example.com", in)
	if err != nil {
		t.Fatal(err)
	}
	return added
}

// newPeople creates a namespace of that name with a registry "people".
func newPeople(t *testing.T, s *Store, name string) directory.Namespace {
	t.Helper()
	ctx := context.Background()
	u, err := s.EnsureUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := s.CreateNamespace(ctx, u, "did:web:example.com", directory.NamespaceInput{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateRegistry(ctx, ns.NamespaceID, "did:web:example.com", directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom}); err != nil {
		t.Fatal(err)
	}
	return ns
}

func logRunCount(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	if err := s.db.Model(&logRunRow{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// checkIndices asserts that every version of order has the index of its place in it.
func checkIndices(t *testing.T, s *Store, order []string) {
	t.Helper()
	for want, v := range order {
		got, err := s.LogIndex(context.Background(), v)
		if err != nil || got != int64(want) {
			t.Fatalf("version %s: index %d, %v; it was integrated at %d", v, got, err, want)
		}
	}
}

// checkIndicesAtOnce reads the indices of order, and a version that has none, from many
// goroutines at once (on Postgres they are read in groups): each read gets its own answer.
func checkIndicesAtOnce(t *testing.T, s *Store, order []string, none string) {
	t.Helper()
	var readers errgroup.Group
	for g := range 16 {
		readers.Go(func() error {
			for k := range 3 * len(order) {
				want := (k*7 + g) % (len(order) + 1)
				if want == len(order) {
					if _, err := s.LogIndex(context.Background(), none); !errors.Is(err, directory.ErrNotFound) {
						return fmt.Errorf("version without an index: %v", err)
					}
					continue
				}
				if got, err := s.LogIndex(context.Background(), order[want]); err != nil || got != int64(want) {
					return fmt.Errorf("version %s: %d, %v; want %d", order[want], got, err, want)
				}
			}
			return nil
		})
	}
	if err := readers.Wait(); err != nil {
		t.Error(err)
	}
}

// A version's log index comes from its row's queue position and the run of positions that
// holds it: every integrated version reads the index it was given, a queued one, a draft and
// an unknown one read directory.ErrNotFound, one writer's positions stay one run however many
// integrations there are, and a version integrated before migration 0013 reads its index from
// log_entries.
func TestLogIndexFollowsTheRuns(t *testing.T) {
	for _, d := range []string{testdb.SQLite, testdb.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s := openForTest(t, d)
			ns := newPeople(t, s, "Acme")
			addNamed(t, s, ctx, ns.NamespaceID, "a", 30, "")
			drafts := addNamed(t, s, ctx, ns.NamespaceID, "d", 3, directory.StateDraft)
			addNamed(t, s, ctx, ns.NamespaceID, "b", 30, "")
			order := integrateAll(t, s, 7)
			if len(order) != 62 {
				t.Fatalf("%d versions integrated, want 62 (namespace, registry, 60 live records)", len(order))
			}
			checkIndices(t, s, order)
			checkIndicesAtOnce(t, s, order, drafts[0].Version)
			if n := logRunCount(t, s); n != 1 {
				t.Fatalf("one writer's versions, integrated 7 at a time, take %d runs; want 1", n)
			}
			for _, v := range []string{drafts[0].Version, directory.NewVersion()} {
				if _, err := s.LogIndex(ctx, v); !errors.Is(err, directory.ErrNotFound) {
					t.Fatalf("a draft or unknown version: %v, want ErrNotFound", err)
				}
			}
			queued := addNamed(t, s, ctx, ns.NamespaceID, "q", 1, "")[0]
			if _, err := s.LogIndex(ctx, queued.Version); !errors.Is(err, directory.ErrNotFound) {
				t.Fatalf("a queued version: %v, want ErrNotFound", err)
			}

			// A version as migration 0013 finds one that was integrated before it: no
			// position, a log_entries row.
			if err := s.db.Exec(`DELETE FROM log_queue WHERE version = ?`, queued.Version).Error; err != nil {
				t.Fatal(err)
			}
			if err := s.db.Exec(`UPDATE record_versions SET log_seq = NULL WHERE version = ?`, queued.Version).Error; err != nil {
				t.Fatal(err)
			}
			if err := s.db.Exec(`INSERT INTO log_entries (idx, version) VALUES (?, ?)`, 62, queued.Version).Error; err != nil {
				t.Fatal(err)
			}
			idx, leaf, err := s.LogEntry(ctx, queued.Version)
			if err != nil || idx != 62 || leaf.RecordID != queued.RecordID || leaf.Digest != queued.Digest {
				t.Fatalf("a version integrated before 0013: %d %+v %v", idx, leaf, err)
			}
		})
	}
}

// On Postgres, writers take queue positions in one order and may commit in another: an
// integration takes what has committed, in position order, and the later commit of earlier
// positions starts a run of its own. Every version still reads the index it was given.
func TestLogIndexWhenCommitsOvertake(t *testing.T) {
	ctx := context.Background()
	s := openForTest(t, DialectPostgres)
	ns := newPeople(t, s, "Acme")
	// The fast writer writes to another namespace: a write locks its namespace's row.
	other := newPeople(t, s, "Other")
	order := integrateAll(t, s, 100)
	took, release := make(chan struct{}), make(chan struct{})
	slow := make(chan error, 1)
	go func() {
		slow <- s.InTx(ctx, func(tx *Tx) error {
			in := []directory.RecordInput{{RecordName: "slow-0", Details: map[string]any{}}, {RecordName: "slow-1", Details: map[string]any{}}}
			if _, err := tx.AddRecords(ns.NamespaceID, "people", Principal{}, "did:web:example.com", in); err != nil {
				return err
			}
			close(took) // its positions are taken; it commits when released
			<-release
			return nil
		})
	}()
	<-took
	addNamed(t, s, ctx, other.NamespaceID, "fast", 5, "")
	order = append(order, integrateAll(t, s, 100)...)
	if len(order) != 9 {
		t.Fatalf("before the slow commit: %d integrated, want 9", len(order))
	}
	close(release)
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	addNamed(t, s, ctx, ns.NamespaceID, "after", 5, "")
	order = append(order, integrateAll(t, s, 100)...)
	if len(order) != 16 {
		t.Fatalf("%d integrated, want 16", len(order))
	}
	checkIndices(t, s, order)
	if n := logRunCount(t, s); n < 3 {
		t.Fatalf("%d runs; the overtaken positions should have made at least 3", n)
	}
}
