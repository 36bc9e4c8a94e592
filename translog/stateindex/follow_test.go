package stateindex

import (
	"errors"
	"testing"

	"github.com/svc-directory/svc/translog/leaf"
)

// TestFollower: over the vectors' log, every state leaf is checked and accepted; a state leaf
// with another root, or at another size, is refused with ErrStateRoot and changes nothing.
func TestFollower(t *testing.T) {
	leaves := vectorLeaves(t)
	f := NewFollower(NewMemStore())
	for _, text := range leaves {
		if err := f.Apply([]byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	if f.Checked != 2 || !f.LastState || f.Size() != uint64(len(leaves)) {
		t.Fatalf("checked %d state leaves, last state %v, size %d", f.Checked, f.LastState, f.Size())
	}
	root := f.Root()
	// (The last leaf is a state leaf, which names no key: the root before the version leaf
	// before it is an older root.)
	for _, c := range []struct {
		name string
		l    leaf.StateLeaf
	}{
		{"another root", leaf.StateLeaf{Root: Hash{1}, Size: int64(f.Size()), Time: 1}},
		{"an older root", leaf.StateLeaf{Root: [32]byte(mustRootAt(t, leaves, len(leaves)-2)), Size: int64(f.Size()), Time: 1}},
		{"a size too small", leaf.StateLeaf{Root: root, Size: int64(f.Size()) - 1, Time: 1}},
	} {
		name, l := c.name, c.l
		text, err := l.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Apply(text); !errors.Is(err, ErrStateRoot) || f.Size() != uint64(len(leaves)) || f.Root() != root || f.Checked != 2 {
			t.Errorf("%s: %v (size %d)", name, err, f.Size())
		}
	}
}

func mustRootAt(t *testing.T, leaves []string, n int) Hash {
	b := NewBuilder(NewMemStore())
	for _, text := range leaves[:n] {
		if _, err := b.Apply([]byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	return b.Root()
}
