package translog

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/store"
)

// Errors of the reading side; wrapped errors carry detail.
var (
	// ErrNotLogged: the version is not in the log (yet): unknown, a draft, or still queued.
	ErrNotLogged = errors.New("translog: version not in the log")
	// ErrBadSize: a tree size the log cannot prove against (beyond the log, or from > to).
	ErrBadSize = errors.New("bad tree size")
	// ErrNoCheckpoint: the log has not signed its first checkpoint yet.
	ErrNoCheckpoint = errors.New("translog: no checkpoint yet")
)

// Reader answers the log's public questions from the store: checkpoint, tiles, proofs.
type Reader struct{ st *store.Store }

// NewReader returns a reader of the store's log.
func NewReader(st *store.Store) *Reader { return &Reader{st: st} }

// Checkpoint returns the latest signed checkpoint and its parsed body.
func (r *Reader) Checkpoint(ctx context.Context) (string, Checkpoint, error) {
	s, err := r.st.LogState(ctx)
	if err != nil {
		return "", Checkpoint{}, err
	}
	if s.Checkpoint == "" {
		return "", Checkpoint{}, ErrNoCheckpoint
	}
	text, err := noteText(s.Checkpoint)
	if err != nil {
		return "", Checkpoint{}, err
	}
	c, err := ParseCheckpoint(text)
	return s.Checkpoint, c, err
}

// noteText is the text of a signed note, without checking its signatures (the integrator
// checked them before it stored the note).
func noteText(signed string) (string, error) {
	n, err := note.Open([]byte(signed), note.VerifierList())
	var unknown *note.UnverifiedNoteError
	if errors.As(err, &unknown) {
		return unknown.Note.Text, nil
	}
	if err != nil {
		return "", fmt.Errorf("translog: stored checkpoint: %w", err)
	}
	return n.Text, nil
}

// Tile returns the stored tile (level store.LogEntriesLevel: the entry bundle) cut to width w
// (1..TileWidth); store.ErrNotFound when the log does not hold that many yet.
func (r *Reader) Tile(ctx context.Context, level int, n int64, w int) ([]byte, error) {
	data, err := r.st.LogTile(ctx, level, n)
	if err != nil {
		return nil, err
	}
	if level >= 0 {
		if len(data) < w*tlog.HashSize {
			return nil, fmt.Errorf("tile %d/%d width %d: %w", level, n, w, store.ErrNotFound)
		}
		return data[:w*tlog.HashSize], nil
	}
	// An entry bundle: the first w entries.
	off := 0
	for i := 0; i < w; i++ {
		if off+2 > len(data) {
			return nil, fmt.Errorf("entry bundle %d width %d: %w", n, w, store.ErrNotFound)
		}
		off += 2 + (int(data[off])<<8 | int(data[off+1]))
	}
	if off > len(data) {
		return nil, fmt.Errorf("translog: entry bundle %d is truncated", n)
	}
	return data[:off], nil
}

// hashes reads stored hashes from the stored tiles.
func (r *Reader) hashes(ctx context.Context) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		cache := map[[2]int64][]byte{}
		out := make([]tlog.Hash, len(indexes))
		for i, idx := range indexes {
			h, err := hashFromTiles(idx, func(level int, n int64) ([]byte, error) {
				k := [2]int64{int64(level), n}
				if d, ok := cache[k]; ok {
					return d, nil
				}
				d, err := r.st.LogTile(ctx, level, n)
				if err == nil {
					cache[k] = d
				}
				return d, err
			})
			if err != nil {
				return nil, err
			}
			out[i] = h
		}
		return out, nil
	})
}

// Inclusion is the proof that a version's leaf is in the tree of the checkpoint.
type Inclusion struct {
	Index      int64
	TreeSize   int64
	Leaf       []byte
	Hashes     []tlog.Hash
	Checkpoint string
}

// Inclusion proves the version's leaf in the latest checkpoint.
func (r *Reader) Inclusion(ctx context.Context, version string) (Inclusion, error) {
	idx, err := r.st.LogIndex(ctx, version)
	if errors.Is(err, store.ErrNotFound) {
		return Inclusion{}, fmt.Errorf("%w: %s", ErrNotLogged, version)
	}
	if err != nil {
		return Inclusion{}, err
	}
	signed, c, err := r.Checkpoint(ctx)
	if err != nil {
		return Inclusion{}, err
	}
	if idx >= c.Size {
		// Integrated after the checkpoint was read.
		return Inclusion{}, fmt.Errorf("%w: %s", ErrNotLogged, version)
	}
	leaf, err := r.Leaf(ctx, idx)
	if err != nil {
		return Inclusion{}, err
	}
	p, err := tlog.ProveRecord(c.Size, idx, r.hashes(ctx))
	if err != nil {
		return Inclusion{}, fmt.Errorf("translog: prove leaf %d in %d: %w", idx, c.Size, err)
	}
	return Inclusion{Index: idx, TreeSize: c.Size, Leaf: leaf, Hashes: p, Checkpoint: signed}, nil
}

// Leaf returns the leaf at index idx from its entry bundle.
func (r *Reader) Leaf(ctx context.Context, idx int64) ([]byte, error) {
	data, err := r.st.LogTile(ctx, store.LogEntriesLevel, idx/TileWidth)
	if err != nil {
		return nil, err
	}
	off := 0
	for i := int64(0); ; i++ {
		if off+2 > len(data) {
			return nil, fmt.Errorf("translog: leaf %d missing from its bundle", idx)
		}
		l := int(data[off])<<8 | int(data[off+1])
		if off+2+l > len(data) {
			return nil, fmt.Errorf("translog: entry bundle %d is truncated", idx/TileWidth)
		}
		if i == idx%TileWidth {
			return data[off+2 : off+2+l], nil
		}
		off += 2 + l
	}
}

// Consistency proves that the tree of size from is a prefix of the tree of size to
// (0 <= from <= to <= the latest checkpoint's size).
func (r *Reader) Consistency(ctx context.Context, from, to int64) ([]tlog.Hash, error) {
	_, c, err := r.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	if from < 0 || to < 0 || from > to {
		return nil, fmt.Errorf("%w: from %d is after to %d", ErrBadSize, from, to)
	}
	if to > c.Size {
		return nil, fmt.Errorf("%w: to %d is beyond the log (size %d)", ErrBadSize, to, c.Size)
	}
	if from == 0 || from == to {
		return []tlog.Hash{}, nil
	}
	p, err := tlog.ProveTree(to, from, r.hashes(ctx))
	if err != nil {
		return nil, fmt.Errorf("translog: prove %d in %d: %w", from, to, err)
	}
	return p, nil
}
