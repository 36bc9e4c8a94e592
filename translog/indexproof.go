package translog

import (
	"context"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// InclusionAt proves the leaf at log index idx in the tree of the latest checkpoint, the leaf
// read from its entry bundle: the proof of a leaf that is not a version's (a key change of a
// DeDi publisher, docs/transparency-log.md), which Inclusion cannot find by version.
func (r *Reader) InclusionAt(ctx context.Context, idx int64) (Inclusion, error) {
	if idx < 0 {
		return Inclusion{}, fmt.Errorf("%w: index %d is negative", ErrBadSize, idx)
	}
	signed, c, err := r.checkpoint(ctx, idx)
	if err != nil {
		return Inclusion{}, err
	}
	if idx >= c.Size {
		return Inclusion{}, fmt.Errorf("%w: log index %d is after the tree of size %d", ErrNotIntegrated, idx, c.Size)
	}
	text, err := r.Leaf(ctx, idx)
	if err != nil {
		return Inclusion{}, err
	}
	p, err := tlog.ProveRecord(c.Size, idx, r.hashes(ctx))
	if err != nil {
		return Inclusion{}, fmt.Errorf("translog: prove leaf %d in %d: %w", idx, c.Size, err)
	}
	return Inclusion{Index: idx, TreeSize: c.Size, Leaf: text, Hashes: p, Checkpoint: signed}, nil
}
