package translog

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/translog/stateindex"
)

// checkStates rebuilds the index from the leaves and checks every state leaf (Follower); it
// returns the other leaves, the number of state leaves and whether the last leaf is one.
func checkStates(t *testing.T, leaves [][]byte) (others [][]byte, states int, lastState bool) {
	t.Helper()
	f := stateindex.NewFollower(stateindex.NewMemStore())
	for i, text := range leaves {
		if err := f.Apply(text); err != nil {
			t.Fatalf("leaf %d: %v", i, err)
		}
		if leaf.KindOf(text) != leaf.KindState {
			others = append(others, text)
		}
	}
	return others, f.Checked, f.LastState
}

// signedTree is the tree of the log's latest checkpoint, and its leaves.
func signedTree(t *testing.T, v verifier) (tlog.Tree, [][]byte) {
	t.Helper()
	ctx := context.Background()
	signed, _, err := v.r.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := v.open(signed)
	if err != nil {
		t.Fatal(err)
	}
	return tree, v.checkTiles(ctx, tree)
}

// An integrator with the state index ends every checkpoint it signs with a state leaf that
// commits the index of every leaf before it (whatever the batch size), signs nothing more
// when nothing waits, and a failed integration leaves its index as it was: the next
// checkpoints' roots are still those the leaves give.
func TestIntegratorAppendsStateLeaves(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key := testKey(t)
		v := verifier{t: t, key: key.VerifierKey, r: NewReader(s)}
		ns, versions := seedEntries(t, s, 300)
		g := NewIntegrator(s, key, nil, nil).WithStateIndex()
		states := 0
		for {
			n, err := g.integrate(ctx, 37, nil)
			if err != nil {
				t.Fatal(err)
			}
			tree, leaves := signedTree(t, v)
			others, got, last := checkStates(t, leaves)
			if !last {
				t.Fatalf("the checkpoint of %d does not end in a state leaf", tree.N)
			}
			if n == 0 {
				if got != states {
					t.Fatalf("an integration of nothing appended a state leaf (%d, then %d)", states, got)
				}
				if len(others) != len(versions) {
					t.Fatalf("%d versions in the log, %d written", len(others), len(versions))
				}
				break
			}
			if got != states+1 {
				t.Fatalf("after a batch of %d: %d state leaves, want %d", n, got, states+1)
			}
			states = got
		}
		// A failed integration: the batch applied to the index's overlay is dropped.
		if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{{RecordName: "late", Details: map[string]any{"n": 1.0}}}); err != nil {
			t.Fatal(err)
		}
		fail := errors.New("stop")
		if _, err := g.integrate(ctx, 100, func(logstore.Update) error { return fail }); !errors.Is(err, fail) {
			t.Fatalf("integrate: %v", err)
		}
		if size, _ := g.StateIndexSize(); size != uint64(len(versions)+states) {
			t.Fatalf("the index holds %d leaves after a failed integration, the log %d", size, len(versions)+states)
		}
		drain(t, g, 100)
		_, leaves := signedTree(t, v)
		if _, got, last := checkStates(t, leaves); !last || got != states+1 {
			t.Fatalf("after the failed integration and a good one: %d state leaves (last %v), want %d", got, last, states+1)
		}
	})
}

// An existing log without state leaves (made before them): an integrator with the index
// rebuilds it from leaf 0, then starts the state leaves; one started later on that log
// rebuilds the index checking every committed state root, and goes on without a gap.
func TestStateIndexOfAnExistingLog(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key := testKey(t)
		v := verifier{t: t, key: key.VerifierKey, r: NewReader(s)}
		ns, _ := seedEntries(t, s, 100)
		drain(t, NewIntegrator(s, key, nil, nil), 30) // the log as a release before state leaves made it
		tree, leaves := signedTree(t, v)
		if _, n, _ := checkStates(t, leaves); n != 0 || tree.N == 0 {
			t.Fatalf("%d state leaves in the log of %d", n, tree.N)
		}
		add := func(name string) {
			if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{{RecordName: name, Details: map[string]any{"n": 1.0}}}); err != nil {
				t.Fatal(err)
			}
		}
		g := NewIntegrator(s, key, nil, nil).WithStateIndex()
		drain(t, g, 100) // nothing waits: it appends the state leaf of the whole log
		_, leaves = signedTree(t, v)
		if _, n, last := checkStates(t, leaves); n != 1 || !last {
			t.Fatalf("after the index caught up with nothing waiting: %d state leaves (last %v)", n, last)
		}
		add("a")
		drain(t, g, 100)
		// A restarted instance (a new integrator) rebuilds the index and checks both roots.
		g2 := NewIntegrator(s, key, nil, nil).WithStateIndex()
		add("b")
		drain(t, g2, 100)
		if _, checked := g2.StateIndexSize(); checked != 3 {
			t.Errorf("the restarted integrator checked %d state roots, want 3 (2 before, its own)", checked)
		}
		_, leaves = signedTree(t, v)
		if _, n, last := checkStates(t, leaves); n != 3 || !last {
			t.Fatalf("%d state leaves (last %v), want 3", n, last)
		}
	})
}

// A log whose committed state root the leaves do not give: the rebuilt index refuses it
// loudly, and the integrator signs no state leaf on top of it (the log goes on).
func TestStateIndexRefusesAWrongRoot(t *testing.T) {
	s := storetest.Open(t, storetest.Dialects[0])
	ctx := context.Background()
	key := testKey(t)
	ns, _ := seedEntries(t, s, 5)
	// An integrator that appends a state leaf of a wrong root (as a buggy or forged writer).
	bad := NewIntegrator(s, key, nil, nil)
	if _, err := s.IntegrateLog(ctx, 100, func(b *logstore.Batch) (logstore.Update, error) {
		wrong, err := leaf.StateLeaf{Root: [32]byte{9}, Size: b.State.Size + int64(len(b.Queued)), Time: 1}.Canonical()
		if err != nil {
			return logstore.Update{}, err
		}
		withState := *b
		withState.Queued = append(b.Queued[:len(b.Queued):len(b.Queued)], logstore.Queued{Leaf: wrong})
		up, err := bad.extend(&withState)
		up.Appended = 1
		return up, err
	}); err != nil {
		t.Fatal(err)
	}
	g := NewIntegrator(s, key, nil, nil).WithStateIndex()
	if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{{RecordName: "x", Details: map[string]any{"n": 1.0}}}); err != nil {
		t.Fatal(err)
	}
	drain(t, g, 100)
	if g.idx.broken == nil || !errors.Is(g.idx.broken, stateindex.ErrStateRoot) {
		t.Fatalf("the wrong root was not refused: %v", g.idx.broken)
	}
	v := verifier{t: t, key: key.VerifierKey, r: NewReader(s)}
	_, leaves := signedTree(t, v)
	if k := leaf.KindOf(leaves[len(leaves)-1]); k == leaf.KindState {
		t.Fatalf("the integrator signed a state leaf over a log whose committed root is wrong")
	}
}

// Two instances integrate one log, each with its own index, taking turns as they do on one
// Postgres: each reads the leaves the other appended (its batch's view of the bundles) and
// every checkpoint still ends in a state leaf whose root the leaves give.
func TestTwoIntegratorsShareTheStateLeaves(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key := testKey(t)
		v := verifier{t: t, key: key.VerifierKey, r: NewReader(s)}
		ns, _ := seedEntries(t, s, 20)
		g1 := NewIntegrator(s, key, nil, nil).WithStateIndex()
		g2 := NewIntegrator(s, key, nil, nil).WithStateIndex()
		for i := range 6 {
			g := []*Integrator{g1, g2}[i%2]
			if _, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{{RecordName: "t" + string(rune('a'+i)), Details: map[string]any{"n": 1.0}}}); err != nil {
				t.Fatal(err)
			}
			drain(t, g, 7)
			_, leaves := signedTree(t, v)
			if _, _, last := checkStates(t, leaves); !last {
				t.Fatalf("turn %d: the checkpoint does not end in a state leaf", i)
			}
		}
		_, leaves := signedTree(t, v)
		_, states, _ := checkStates(t, leaves)
		if _, c1 := g1.StateIndexSize(); c1 == 0 || states < 6 {
			t.Fatalf("%d state leaves; the first integrator checked %d", states, c1)
		}
	})
}
