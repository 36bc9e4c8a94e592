package stateindex

import (
	"errors"
	"fmt"

	"github.com/svc-directory/svc/translog/leaf"
)

// ErrStateRoot marks a state leaf whose root is not the index the leaves before it give (or
// whose size is not its own log index): the log committed a root that anyone rebuilding the
// index refuses. Its message names the leaf.
var ErrStateRoot = errors.New("state leaf does not match the rebuilt index")

// Follower rebuilds the index of a log leaf by leaf, as the integrator, a serving instance and
// a monitor do, and checks each state leaf it meets (leaf.KindState): its size must be its own
// log index and its root the index's root over the leaves before it.
type Follower struct {
	*Builder
	// Checked counts the state leaves checked; LastState reports whether the last leaf applied
	// is a state leaf (so a checkpoint of Size leaves ends in one).
	Checked   int
	LastState bool
}

// NewFollower returns a follower of a log from leaf 0 over an empty store.
func NewFollower(store Store) *Follower { return &Follower{Builder: NewBuilder(store)} }

// ResumeFollower returns a follower over a store that holds the index of the first size
// leaves, of root root; lastState tells whether leaf size-1 is a state leaf.
func ResumeFollower(store Store, size uint64, root Hash, lastState bool) *Follower {
	return &Follower{Builder: ResumeBuilder(store, size, root), LastState: lastState}
}

// Apply adds the leaf of log index Size. A state leaf is checked first: one that does not
// match is refused with ErrStateRoot, and nothing changes.
func (f *Follower) Apply(text []byte) error {
	state := leaf.KindOf(text) == leaf.KindState
	if state {
		st, err := leaf.ParseState(text)
		if err != nil {
			return fmt.Errorf("leaf %d: %w", f.Size(), err)
		}
		if uint64(st.Size) != f.Size() || Hash(st.Root) != f.Root() {
			return fmt.Errorf("%w: leaf %d commits the index of %d leaves with root %x; the leaves before it give %x",
				ErrStateRoot, f.Size(), st.Size, st.Root, f.Root())
		}
	}
	if _, err := f.Builder.Apply(text); err != nil {
		return err
	}
	if state {
		f.Checked++
	}
	f.LastState = state
	return nil
}
