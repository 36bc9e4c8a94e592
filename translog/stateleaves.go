package translog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/translog/stateindex"
)

// The integrator's state index (docs/state-index.md, "The commitment"). With WithStateIndex,
// the integrator keeps the index of the log in memory, rebuilt from leaf 0 when it starts
// (reading the entry bundles, checking every committed state leaf on the way: Follower), and,
// once it has caught up, ends every checkpoint it signs with a state leaf committing the index
// of every leaf before it. A batch is applied to an Overlay over the index's store, committed
// to the store only once the integration's transaction has committed: a failed transaction
// leaves the index as it was. Until the index has caught up, checkpoints carry no state leaf
// (as before the first one).

// catchUpStep is the most leaves the integrator's index reads from the entry bundles before
// each integration while it catches up (outside the integration's transaction).
const catchUpStep = 16 * BatchMax

// catchUpInBatch is the most leaves the index reads inside an integration, from the batch's
// own view of the bundles (the leaves another instance integrated since it last looked).
const catchUpInBatch = 2 * BatchMax

// stateIdx is the integrator's index: its committed store and follower (nil until it has
// resumed from the store, at its first integration), and the overlay of the integration under
// way.
type stateIdx struct {
	store  IndexStore
	f      *stateindex.Follower
	broken error     // a committed state root did not match: no more state leaves
	since  time.Time // when it started to catch up (zero: caught up)
}

// WithStateIndex makes the integrator keep the state index, in memory, and end each
// checkpoint with a state leaf once the index has caught up with the log; it returns g.
func (g *Integrator) WithStateIndex() *Integrator { return g.WithStateIndexIn(NewMemIndex()) }

// WithStateIndexIn is WithStateIndex with the index kept in st (svc serve: on disk, where a
// restart finds it again).
func (g *Integrator) WithStateIndexIn(st IndexStore) *Integrator {
	g.idx = &stateIdx{store: st}
	return g
}

// StateIndexSize returns the size of the integrator's index, whether it has caught up with
// the log as it last saw it, and the number of committed state leaves it checked.
func (g *Integrator) StateIndexSize() (size uint64, checked int) {
	if g.idx == nil || g.idx.f == nil {
		return 0, 0
	}
	return g.idx.f.Size(), g.idx.f.Checked
}

// catchUp applies up to catchUpStep committed leaves to the index, read from the entry bundles
// of the stored log, and commits them to its store; it reports whether the index is still
// behind the stored log. The first call resumes the index from its store.
func (g *Integrator) catchUp(ctx context.Context) (behind bool, err error) {
	x := g.idx
	if x == nil || x.broken != nil {
		return false, nil
	}
	if x.f == nil {
		f, err := resumeIndex(ctx, g.st, x.store)
		if err != nil {
			return false, err
		}
		x.f = f
		if f.Size() > 0 {
			g.log.InfoContext(ctx, "transparency log: the integrator's state index resumed from its store", "leaves", f.Size())
		}
	}
	st, err := g.st.LogState(ctx)
	if err != nil {
		return false, err
	}
	if x.since.IsZero() && x.f.Size() < uint64(st.Size) {
		x.since = time.Now()
	}
	if x.f.Size() < uint64(st.Size) {
		ov, f := overlayFollower(x.store, x.f)
		if err := x.read(st.Size, catchUpStep, func(n int64) ([]byte, error) { return g.st.LogTile(ctx, logstore.EntriesLevel, n) }, f); err != nil {
			return false, g.indexFailed(ctx, err)
		}
		tree, err := treeHashAt(ctx, g.st, f.Size())
		if err != nil {
			return false, err
		}
		if err := commitIndex(x.store, ov, f, tree); err != nil {
			return false, err
		}
		x.f = resumed(x.store, f)
	}
	behind = x.f.Size() < uint64(st.Size)
	if !behind && !x.since.IsZero() {
		g.log.InfoContext(ctx, "transparency log: the integrator's state index has caught up with the log",
			"leaves", x.f.Size(), "state_roots_checked", x.f.Checked, "took", time.Since(x.since).Round(time.Millisecond))
		x.since = time.Time{}
	}
	return behind, nil
}

// resumed is a follower over st that continues f (which was applied to an overlay of st now
// committed).
func resumed(st stateindex.Store, f *stateindex.Follower) *stateindex.Follower {
	r := stateindex.ResumeFollower(st, f.Size(), f.Root(), f.LastState)
	r.Checked = f.Checked
	return r
}

// indexFailed records a committed state root that the rebuilt index refuses: the integrator
// signs no more state leaves (loudly: an error at every integration) and the log goes on.
func (g *Integrator) indexFailed(ctx context.Context, err error) error {
	if errors.Is(err, stateindex.ErrStateRoot) {
		g.idx.broken = err
		g.log.ErrorContext(ctx, "transparency log: a committed state root does not match the index rebuilt from the log's leaves; no more state leaves are signed", "err", err)
	}
	return err
}

// read applies the leaves from f's size up to size (at most max of them) to f, from the entry
// bundles that bundle returns (of the stored log, or of a batch's transaction).
func (x *stateIdx) read(size int64, max int, bundle func(n int64) ([]byte, error), f *stateindex.Follower) error {
	for done := 0; int64(f.Size()) < size && done < max; {
		at := int64(f.Size())
		n := at / leaf.TileWidth
		data, err := bundle(n)
		if err != nil {
			return fmt.Errorf("translog: state index: entry bundle %d: %w", n, err)
		}
		w := min(size-n*leaf.TileWidth, leaf.TileWidth)
		leaves := splitBundle(data)
		if int64(len(leaves)) < w {
			return fmt.Errorf("translog: state index: entry bundle %d holds %d leaves, want %d", n, len(leaves), w)
		}
		for i := at - n*leaf.TileWidth; i < w && done < max; i++ {
			if err := f.Apply(leaves[i]); err != nil {
				return fmt.Errorf("translog: state index: %w", err)
			}
			done++
		}
	}
	return nil
}

// splitBundle returns the leaves of an entry bundle, up to a truncated end (read checks their
// number).
func splitBundle(data []byte) [][]byte {
	var out [][]byte
	for off := 0; off+2 <= len(data); {
		l := int(data[off])<<8 | int(data[off+1])
		if off+2+l > len(data) {
			break
		}
		out = append(out, data[off+2:off+2+l])
		off += 2 + l
	}
	return out
}

// batchState is the index's part of one integration: the overlay the batch was applied to,
// its follower, the state leaf to append (nil: none), and the tree hash of the log it ends at
// (set once the batch's checkpoint is made).
type batchState struct {
	ov    *stateindex.Overlay
	f     *stateindex.Follower
	state []byte
	tree  tlog.Hash
}

// stateForBatch applies the batch's queued leaves to an overlay of the index (after the leaves
// it lacks, when it lacks few) and returns the state leaf that ends the batch's checkpoint.
// It returns nil when the index keeps no state, is behind, or there is nothing to commit (an
// empty queue after a state leaf).
func (g *Integrator) stateForBatch(b *logstore.Batch) (*batchState, error) {
	x := g.idx
	if x == nil || x.broken != nil || x.f == nil {
		return nil, nil
	}
	size := uint64(b.State.Size)
	switch {
	case x.f.Size() > size:
		return nil, fmt.Errorf("translog: the state index holds %d leaves, the log %d: restart the instance to rebuild it", x.f.Size(), size)
	case size-x.f.Size() > catchUpInBatch:
		return nil, nil // catching up
	}
	bs := &batchState{}
	bs.ov, bs.f = overlayFollower(x.store, x.f)
	if err := x.read(b.State.Size, catchUpInBatch, func(n int64) ([]byte, error) { return b.Tile(logstore.EntriesLevel, n) }, bs.f); err != nil {
		return nil, err
	}
	if len(b.Queued) == 0 && bs.f.LastState && size > 0 {
		return bs, nil // the log ends in a state leaf already
	}
	for _, q := range b.Queued {
		if err := bs.f.Apply(q.Leaf); err != nil {
			return nil, fmt.Errorf("translog: state index: %w", err)
		}
	}
	l, err := leaf.NewStateLeaf(bs.f.Root(), int64(bs.f.Size()), g.now())
	if err != nil {
		return nil, err
	}
	text, err := l.Canonical()
	if err != nil {
		return nil, err
	}
	if err := bs.f.Apply(text); err != nil {
		return nil, err
	}
	bs.state = text
	return bs, nil
}

// commit makes the batch's index the integrator's, once its transaction has committed.
func (x *stateIdx) commit(bs *batchState) error {
	if err := commitIndex(x.store, bs.ov, bs.f, bs.tree); err != nil {
		return err
	}
	x.f = resumed(x.store, bs.f)
	return nil
}
