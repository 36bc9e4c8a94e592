package translog

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// stateIdx is the integrator's index: its committed store and follower, and the overlay of
// the integration under way.
type stateIdx struct {
	store  *stateindex.MemStore
	f      *stateindex.Follower
	broken error     // a committed state root did not match: no more state leaves
	since  time.Time // when it started to catch up (zero: caught up)
}

// WithStateIndex makes the integrator keep the state index and end each checkpoint with a
// state leaf once the index has caught up with the log; it returns g.
func (g *Integrator) WithStateIndex() *Integrator {
	st := stateindex.NewMemStore()
	g.idx = &stateIdx{store: st, f: stateindex.NewFollower(st)}
	return g
}

// StateIndexSize returns the size of the integrator's index, whether it has caught up with
// the log as it last saw it, and the number of committed state leaves it checked.
func (g *Integrator) StateIndexSize() (size uint64, checked int) {
	if g.idx == nil {
		return 0, 0
	}
	return g.idx.f.Size(), g.idx.f.Checked
}

// catchUp applies up to catchUpStep committed leaves to the index, read from the entry bundles
// of the stored log; it reports whether the index is still behind the stored log.
func (g *Integrator) catchUp(ctx context.Context) (behind bool, err error) {
	x := g.idx
	if x == nil || x.broken != nil {
		return false, nil
	}
	st, err := g.st.LogState(ctx)
	if err != nil {
		return false, err
	}
	if x.since.IsZero() && x.f.Size() < uint64(st.Size) {
		x.since = time.Now()
	}
	if err := x.read(st.Size, catchUpStep, func(n int64) ([]byte, error) { return g.st.LogTile(ctx, logstore.EntriesLevel, n) }, x.f); err != nil {
		return false, g.indexFailed(ctx, err)
	}
	behind = x.f.Size() < uint64(st.Size)
	if !behind && !x.since.IsZero() {
		g.log.InfoContext(ctx, "transparency log: the integrator's state index has caught up with the log",
			"leaves", x.f.Size(), "state_roots_checked", x.f.Checked, "took", time.Since(x.since).Round(time.Millisecond))
		x.since = time.Time{}
	}
	return behind, nil
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
// its follower, and the state leaf to append (nil: none).
type batchState struct {
	ov    *stateindex.Overlay
	f     *stateindex.Follower
	state []byte
}

// stateForBatch applies the batch's queued leaves to an overlay of the index (after the leaves
// it lacks, when it lacks few) and returns the state leaf that ends the batch's checkpoint.
// It returns nil when the index keeps no state, is behind, or there is nothing to commit (an
// empty queue after a state leaf).
func (g *Integrator) stateForBatch(b *logstore.Batch) (*batchState, error) {
	x := g.idx
	if x == nil || x.broken != nil {
		return nil, nil
	}
	size := uint64(b.State.Size)
	switch {
	case x.f.Size() > size:
		return nil, fmt.Errorf("translog: the state index holds %d leaves, the log %d: restart the instance to rebuild it", x.f.Size(), size)
	case size-x.f.Size() > catchUpInBatch:
		return nil, nil // catching up
	}
	bs := &batchState{ov: stateindex.NewOverlay(x.store)}
	bs.f = stateindex.ResumeFollower(bs.ov, x.f.Size(), x.f.Root(), x.f.LastState)
	bs.f.Checked = x.f.Checked
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
	if err := bs.ov.Commit(); err != nil {
		return err
	}
	x.f = stateindex.ResumeFollower(x.store, bs.f.Size(), bs.f.Root(), bs.f.LastState)
	x.f.Checked = bs.f.Checked
	return nil
}
