package translog

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// stateCheck opens an answer's checkpoint with the log's key and checks it (CheckAnswer).
func stateCheck(t *testing.T, key Key, a stateindex.Answer, k stateindex.Key, have []byte, now time.Time, maxAge time.Duration) stateindex.Verdict {
	t.Helper()
	cp, err := leaf.OpenCheckpoint([]byte(a.Checkpoint), key.VerifierKey)
	if err != nil {
		return stateindex.Verdict{Outcome: stateindex.BadProof, Message: err.Error()}
	}
	return stateindex.CheckAnswer(stateindex.Check{Answer: a, Checkpoint: cp, Key: k, Have: have, Now: now, MaxAge: maxAge})
}

// The serving index answers the state query at the latest checkpoint that ends in a state
// leaf: the latest version of a record is current; its older version, with its own valid
// inclusion proof (the stale answer an instance or a cache could give), is superseded; an
// unknown id and a record with only drafts are absent; and each forged answer is refused.
func TestStateServerAnswers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key := testKey(t)
		r := NewReader(s)
		ss := NewStateServer(r, s, nil, nil)
		ns, _ := seedEntries(t, s, 40)
		drain(t, NewIntegrator(s, key, nil, nil), 100) // a log before state leaves
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := ss.Query(ctx, stateindex.IDKey(ns.NamespaceID)); !errors.Is(err, ErrStateNotReady) {
			t.Fatalf("before any state leaf: %v, want ErrStateNotReady", err)
		}
		g := NewIntegrator(s, key, nil, nil).WithStateIndex()
		added, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{{RecordName: "alice", Details: map[string]any{"n": 1.0}},
			{RecordName: "draft-only", Details: map[string]any{"n": 2.0}, State: directory.StateDraft}})
		if err != nil {
			t.Fatal(err)
		}
		drain(t, g, 100)
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
		alice := stateindex.IDKey(added[0].RecordID)
		old, err := ss.Query(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		if v := stateCheck(t, key, old, alice, []byte(old.Latest.Leaf), now, time.Minute); v.Outcome != stateindex.Current {
			t.Fatalf("alice's only version: %s", v)
		}
		oldInc, err := r.Inclusion(ctx, added[0].Version, 0)
		if err != nil {
			t.Fatal(err)
		}
		// alice is updated; the serving index follows once the next checkpoint is published.
		if _, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", "alice", "", directory.RecordPatch{Details: map[string]any{"n": 3.0}}); err != nil {
			t.Fatal(err)
		}
		drain(t, g, 100)
		if a, _ := ss.Query(ctx, alice); a.Count != 1 {
			t.Fatalf("the index moved before Step: count %d", a.Count)
		}
		if err := ss.Step(ctx); err != nil {
			t.Fatal(err)
		}
		a, err := ss.Query(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		if a.Count != 2 || !a.Present {
			t.Fatalf("alice after an update: count %d", a.Count)
		}
		// The stale answer: the older version, with its valid inclusion proof, is superseded.
		if v := stateCheck(t, key, a, alice, oldInc.Leaf, now, time.Minute); v.Outcome != stateindex.Superseded || v.Latest == nil || v.Latest.VersionCount != 2 {
			t.Fatalf("the older version: %s", v)
		}
		if v := stateCheck(t, key, a, alice, []byte(a.Latest.Leaf), now, time.Minute); v.Outcome != stateindex.Current {
			t.Fatalf("the latest version: %s", v)
		}
		// Absent: an unknown id, and a record with only a draft.
		for _, id := range []string{directory.NewUUID(), added[1].RecordID} {
			k := stateindex.IDKey(id)
			ab, err := ss.Query(ctx, k)
			if err != nil || ab.Present {
				t.Fatalf("%s: present %v, %v", id, ab.Present, err)
			}
			if v := stateCheck(t, key, ab, k, nil, now, time.Minute); v.Outcome != stateindex.Absent {
				t.Fatalf("%s: %s", id, v)
			}
		}
		// Stale: older than the largest age allowed, by the log's clock (no witness).
		if v := stateCheck(t, key, a, alice, []byte(a.Latest.Leaf), now.Add(time.Hour), time.Minute); v.Outcome != stateindex.StaleCheckpoint {
			t.Fatalf("an hour later: %s", v)
		}
		// Forged answers.
		absent, _ := ss.Query(ctx, stateindex.IDKey(directory.NewUUID()))
		forged := map[string]func(a stateindex.Answer) stateindex.Answer{
			"a changed sibling": func(a stateindex.Answer) stateindex.Answer {
				a.Proof = slices.Clone(a.Proof)
				a.Proof[len(a.Proof)-1] ^= 1
				return a
			},
			"a truncated list (count one less)": func(a stateindex.Answer) stateindex.Answer { a.Count--; return a },
			"the older leaf swapped in, with its valid inclusion proof": func(a stateindex.Answer) stateindex.Answer {
				a.Latest = &stateindex.AnswerLeaf{LogIndex: old.Latest.LogIndex, Leaf: old.Latest.Leaf}
				a.LatestInclusion = hashBytes(oldInc.Hashes)
				return a
			},
			"an absence proof for a present key": func(a stateindex.Answer) stateindex.Answer {
				a.Present, a.Count, a.Latest, a.LatestInclusion, a.ListRoot, a.ListProof, a.Proof = false, 0, nil, nil, nil, nil, absent.Proof
				return a
			},
			"the state leaf not the checkpoint's last": func(a stateindex.Answer) stateindex.Answer {
				a.State, a.StateInclusion = old.State, old.StateInclusion
				return a
			},
			"another key's answer": func(a stateindex.Answer) stateindex.Answer { a.Key.Parts = []string{added[1].RecordID}; return a },
		}
		for name, f := range forged {
			if v := stateCheck(t, key, f(a), alice, []byte(a.Latest.Leaf), now, time.Minute); v.Outcome != stateindex.BadProof {
				t.Errorf("%s: %s, want bad_proof", name, v)
			}
		}
	})
}
