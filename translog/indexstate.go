package translog

import (
	"context"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/indexstore"
	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/translog/stateindex"
)

// Where a state index lives (docs/state-index.md, "Storage"): on disk (indexstore.Store, what
// svc serve uses: memory bounded, and a restart resumes from it), or in memory (NewMemIndex:
// tests, and a monitor that rebuilds at every run). Both record what they are the index of
// (indexstore.Meta), and are written only by Commit, an overlay's puts with the new Meta at
// once.

// IndexStore is the storage of a state index.
type IndexStore interface {
	stateindex.Store
	// Meta returns what the store holds the index of; ok is false for an empty store.
	Meta() (m indexstore.Meta, ok bool)
	// Commit writes the overlay's puts and m at once, and empties the overlay.
	Commit(ov *stateindex.Overlay, m indexstore.Meta) error
	// Wipe empties the store.
	Wipe() error
}

// memIndex is an IndexStore in memory.
type memIndex struct {
	*stateindex.MemStore
	meta indexstore.Meta
	has  bool
}

// NewMemIndex returns an empty IndexStore in memory.
func NewMemIndex() IndexStore { return &memIndex{MemStore: stateindex.NewMemStore()} }

func (m *memIndex) Meta() (indexstore.Meta, bool) { return m.meta, m.has }

func (m *memIndex) Commit(ov *stateindex.Overlay, meta indexstore.Meta) error {
	if err := ov.Commit(); err != nil {
		return err
	}
	m.meta, m.has = meta, true
	return nil
}

func (m *memIndex) Wipe() error {
	m.MemStore, m.meta, m.has = stateindex.NewMemStore(), indexstore.Meta{}, false
	return nil
}

// tileReader is what resuming an index reads of the log: its state and its stored tiles.
type tileReader interface {
	LogState(ctx context.Context) (logstore.State, error)
	LogTile(ctx context.Context, level int, n int64) ([]byte, error)
}

// resumeIndex returns a follower over st: at the size st holds when the log still has that
// many leaves with the same tree hash there (the same log), else from leaf 0 over the wiped
// store (a new log: svc log restart; a log rolled back by a failover; a store made for another
// database).
func resumeIndex(ctx context.Context, log tileReader, st IndexStore) (*stateindex.Follower, error) {
	m, ok := st.Meta()
	if ok && m.Size > 0 {
		s, err := log.LogState(ctx)
		if err != nil {
			return nil, err
		}
		if m.Size <= uint64(s.Size) {
			h, err := treeHashAt(ctx, log, m.Size)
			if err != nil {
				return nil, err
			}
			if h == tlog.Hash(m.TreeHash) {
				f := stateindex.ResumeFollower(st, m.Size, m.Root, m.LastState)
				f.Checked = m.Checked
				return f, nil
			}
		}
	}
	if ok {
		if err := st.Wipe(); err != nil {
			return nil, err
		}
	}
	return stateindex.NewFollower(st), nil
}

// commitIndex commits ov, which f was applied to, to st as the index of f's leaves, whose tree
// hash is tree.
func commitIndex(st IndexStore, ov *stateindex.Overlay, f *stateindex.Follower, tree tlog.Hash) error {
	return st.Commit(ov, indexstore.Meta{Size: f.Size(), Root: f.Root(), LastState: f.LastState, Checked: f.Checked, TreeHash: tree})
}

// treeHashAt is the log's tree hash at size, from its stored tiles.
func treeHashAt(ctx context.Context, log tileReader, size uint64) (tlog.Hash, error) {
	h, err := tlog.TreeHash(int64(size), tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			h, err := hashFromTiles(x, func(level int, n int64, _ int) ([]byte, error) { return log.LogTile(ctx, level, n) })
			if err != nil {
				return nil, err
			}
			out[i] = h
		}
		return out, nil
	}))
	if err != nil {
		return tlog.Hash{}, fmt.Errorf("translog: state index: the log's tree hash at %d: %w", size, err)
	}
	return h, nil
}

// overlayFollower returns an overlay over st and a follower over it that continues f.
func overlayFollower(st stateindex.Store, f *stateindex.Follower) (*stateindex.Overlay, *stateindex.Follower) {
	ov := stateindex.NewOverlay(st)
	of := stateindex.ResumeFollower(ov, f.Size(), f.Root(), f.LastState)
	of.Checked = f.Checked
	return ov, of
}
