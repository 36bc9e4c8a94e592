package translog

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/indexstore"
	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/translog/stateindex"
)

// bundleCounter counts the entry bundles read through it: a resumed index reads none of the
// leaves it holds.
type bundleCounter struct {
	*store.Store
	bundles atomic.Int64
}

func (c *bundleCounter) LogTile(ctx context.Context, level int, n int64) ([]byte, error) {
	if level == logstore.EntriesLevel {
		c.bundles.Add(1)
	}
	return c.Store.LogTile(ctx, level, n)
}

func openIndex(t *testing.T, dir string) *indexstore.Store {
	t.Helper()
	x, err := indexstore.Open(dir, indexstore.Options{CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// An integrator and a serving index on disk, started again over the same directories, resume
// where they were: they read none of the log's entry bundles they had indexed but the one of
// the checkpoint's state leaf (a rebuild from leaf 0 reads them all, three here), go on checking the roots the log commits, and their answers verify.
// Over the directories of another database's log (a new log, as after svc log restart, or a
// rolled-back one), they find the log's tree differs, wipe the store and rebuild.
func TestStateIndexResumesFromDisk(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key := testKey(t)
		dir := t.TempDir()
		counted := &bundleCounter{Store: s}
		ns, _ := seedEntries(t, s, 600) // three entry bundles and more
		gi := openIndex(t, filepath.Join(dir, "integrator"))
		drain(t, NewIntegrator(counted, key, nil, nil).WithStateIndexIn(gi), 100)
		si := openIndex(t, filepath.Join(dir, "serving"))
		ss := NewStateServerIn(si, NewReader(counted), counted, nil, nil)
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
		size, checked, ready := ss.Status()
		if !ready || checked == 0 {
			t.Fatalf("the serving index: size %d, %d roots checked, ready %v", size, checked, ready)
		}
		gi.Close()
		si.Close()

		// The restart: new integrator and serving index over the same directories.
		counted.bundles.Store(0)
		gi = openIndex(t, filepath.Join(dir, "integrator"))
		g := NewIntegrator(counted, key, nil, nil).WithStateIndexIn(gi)
		if _, err := g.IntegrateOnce(ctx); err != nil {
			t.Fatal(err)
		}
		si = openIndex(t, filepath.Join(dir, "serving"))
		ss = NewStateServerIn(si, NewReader(counted), counted, nil, nil)
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
		if n := counted.bundles.Load(); n > 1 { // the serving index reads its checkpoint's state leaf
			t.Fatalf("the restarted indexes read %d entry bundles of leaves they held", n)
		}
		if got, _, ready := ss.Status(); !ready || got != size {
			t.Fatalf("the restarted serving index: size %d (was %d), ready %v", got, size, ready)
		}
		added, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{{RecordName: "after", Details: map[string]any{"n": 1.0}}})
		if err != nil {
			t.Fatal(err)
		}
		drain(t, g, 100)
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
		k := stateindex.IDKey(added[0].RecordID)
		a, err := ss.Query(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if v := stateCheck(t, key, a, k, []byte(a.Latest.Leaf), time.Now(), time.Minute); v.Outcome != stateindex.Current {
			t.Fatalf("a record added after the restart: %s", v)
		}
		if _, c, _ := ss.Status(); c != checked+1 {
			t.Fatalf("the serving index checked %d roots after the restart, want %d", c, checked+1)
		}
		gi.Close()
		si.Close()

		// Another database's log (shorter, and another tree) over the same directories.
		other := storetest.Open(t, s.Dialect())
		seedEntries(t, other, 5)
		drain(t, NewIntegrator(other, key, nil, nil), 100)
		gi = openIndex(t, filepath.Join(dir, "integrator"))
		g = NewIntegrator(other, key, nil, nil).WithStateIndexIn(gi)
		drain(t, g, 100)
		st, err := other.LogState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := gi.Meta(); m.Size != uint64(st.Size) || st.Size != 8 { // 7 versions and a state leaf
			t.Fatalf("over another log of %d leaves the index holds %d", st.Size, m.Size)
		}
		si = openIndex(t, filepath.Join(dir, "serving"))
		ss = NewStateServerIn(si, NewReader(other), other, nil, nil)
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _, ready := ss.Status(); !ready || got >= size {
			t.Fatalf("the serving index over another log: size %d, ready %v", got, ready)
		}
	})
}
