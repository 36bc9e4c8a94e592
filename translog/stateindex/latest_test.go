package stateindex

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestVerifyLatest(t *testing.T) {
	// Key id-i has i+1 leaves, for lists of 1 to 40 elements.
	b := NewBuilder(NewMemStore())
	for round := range 40 {
		for i := round; i < 40; i++ {
			if _, err := b.ApplyKeys([]Key{IDKey(fmt.Sprint("id-", i))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	root := b.Root()
	refused := func(name string, err error) {
		t.Helper()
		if !errors.Is(err, ErrProof) {
			t.Errorf("%s: %v, want ErrProof", name, err)
		}
	}
	for i := range 40 {
		k := IDKey(fmt.Sprint("id-", i))
		p, list, err := b.Prove(k)
		if err != nil || len(list) != i+1 {
			t.Fatal(list, err)
		}
		lp, err := ProveLatest(list)
		if err != nil {
			t.Fatal(err)
		}
		n, lr, last, enc := uint64(len(list)), ListRoot(list), list[len(list)-1], p.Encode()
		if err := VerifyLatest(root, k, n, lr, last, lp, enc); err != nil {
			t.Errorf("%v, list of %d: %v", k, n, err)
		}
		if n == 1 {
			continue
		}
		refused("the latest swapped for the one before it", VerifyLatest(root, k, n, lr, list[len(list)-2], lp, enc))
		refused("a count one short", VerifyLatest(root, k, n-1, lr, last, lp, enc))
		refused("the root of the list one short", VerifyLatest(root, k, n-1, ListRoot(list[:n-1]), list[n-2], lp, enc))
		forged := slices.Clone(lp)
		forged[0][0] ^= 1
		refused("a changed list proof", VerifyLatest(root, k, n, lr, last, forged, enc))
		refused("a list proof cut short", VerifyLatest(root, k, n, lr, last, lp[:len(lp)-1], enc))
		refused("another key's proof", VerifyLatest(root, IDKey("id-x"), n, lr, last, lp, enc))
	}
}
