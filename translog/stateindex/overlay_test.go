package stateindex

import (
	"fmt"
	"testing"
)

// TestOverlay: a batch applied through an overlay gives the same roots and proofs as one
// applied to the store itself; until Commit the base holds the index as it was (its root, its
// proofs, its lists untouched by the overlay's appends), and a discarded batch leaves no trace.
func TestOverlay(t *testing.T) {
	keys := func(i int) []Key { return []Key{IDKey(fmt.Sprintf("entry-%d", i%7))} }
	direct := NewBuilder(NewMemStore())
	base := NewMemStore()
	b := NewBuilder(base)
	for i := range 20 {
		if _, err := direct.ApplyKeys(keys(i)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.ApplyKeys(keys(i)); err != nil {
			t.Fatal(err)
		}
	}
	size, root := b.Size(), b.Root()
	_, before, err := b.Prove(IDKey("entry-3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, commit := range []bool{false, true} {
		ov := NewOverlay(base)
		ob := ResumeBuilder(ov, size, root)
		for i := 20; i < 30; i++ {
			if _, err := ob.ApplyKeys(keys(i)); err != nil {
				t.Fatal(err)
			}
		}
		// The base is as it was: same root through a builder over it, same list.
		check := ResumeBuilder(base, size, root)
		p, list, err := check.Prove(IDKey("entry-3"))
		if err != nil || fmt.Sprint(list) != fmt.Sprint(before) {
			t.Fatalf("commit=%v: the base's list of entry-3 is %v (%v), want %v", commit, list, err, before)
		}
		if err := VerifyMembership(root, IDKey("entry-3"), list, p.Encode()); err != nil {
			t.Fatalf("commit=%v: the base's proof no longer verifies: %v", commit, err)
		}
		if !commit {
			ov.Discard()
			continue
		}
		if err := ov.Commit(); err != nil {
			t.Fatal(err)
		}
		for i := 20; i < 30; i++ {
			if _, err := direct.ApplyKeys(keys(i)); err != nil {
				t.Fatal(err)
			}
		}
		if ob.Root() != direct.Root() || ob.Size() != direct.Size() {
			t.Fatalf("through the overlay: root %x size %d; directly: %x %d", ob.Root(), ob.Size(), direct.Root(), direct.Size())
		}
		after := ResumeBuilder(base, ob.Size(), ob.Root())
		p, list, err = after.Prove(IDKey("entry-3"))
		if err != nil || len(list) != len(before)+1 {
			t.Fatalf("after Commit the list of entry-3 is %v, %v", list, err)
		}
		if err := VerifyMembership(ob.Root(), IDKey("entry-3"), list, p.Encode()); err != nil {
			t.Fatalf("after Commit: %v", err)
		}
	}
}
