package translog

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// Queries run while the serving index follows the log (run with -race): every answer is
// proven at a checkpoint that ends in its state leaf and verifies, whichever checkpoint the
// index was at.
func TestStateServerQueriesWhileFollowing(t *testing.T) {
	s := storetest.Open(t, storetest.Dialects[0])
	ctx := context.Background()
	key := testKey(t)
	ss := NewStateServer(NewReader(s), s, nil, nil)
	ns, _ := seedEntries(t, s, 10)
	g := NewIntegrator(s, key, nil, nil).WithStateIndex()
	drain(t, g, 100)
	if err := ss.Step(ctx); err != nil {
		t.Fatal(err)
	}
	added, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{{RecordName: "hot", Details: map[string]any{"n": 0.0}}})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, g, 100)
	if err := ss.Step(ctx); err != nil {
		t.Fatal(err)
	}
	k := stateindex.IDKey(added[0].RecordID)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var answers atomic.Int64
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				a, err := ss.Query(ctx, k)
				if err != nil {
					t.Error(err)
					return
				}
				cp, err := leaf.OpenCheckpoint([]byte(a.Checkpoint), key.VerifierKey)
				if err != nil {
					t.Error(err)
					return
				}
				if v := stateindex.CheckAnswer(stateindex.Check{Answer: a, Checkpoint: cp, Key: k}); v.Outcome != stateindex.Current {
					t.Errorf("an answer while following: %s", v)
					return
				}
				answers.Add(1)
			}
		}()
	}
	for i := range 15 {
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "hot", "", directory.RecordPatch{Details: map[string]any{"n": float64(i + 1)}}); err != nil {
			t.Fatal(err)
		}
		drain(t, g, 100)
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if a, _ := ss.Query(ctx, k); a.Count != 16 || answers.Load() == 0 {
		t.Fatalf("count %d after 15 updates; %d answers checked", a.Count, answers.Load())
	}
}
