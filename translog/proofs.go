package translog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/internal/cache"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

// Errors of the reading side; wrapped errors carry detail.
var (
	// ErrNotLogged: the version is not one the log holds or will hold: unknown, or a draft.
	ErrNotLogged = errors.New("translog: version not in the log")
	// ErrNotIntegrated: the version is public but not in the tree asked for: it waits for the
	// integrator, or it entered the log after that tree.
	ErrNotIntegrated = errors.New("translog: version not integrated")
	// ErrBadSize: a tree size the log cannot prove against (beyond the log, or from > to).
	ErrBadSize = errors.New("bad tree size")
	// ErrNoCheckpoint: the log has not signed its first checkpoint yet.
	ErrNoCheckpoint = errors.New("translog: no checkpoint yet")
	// ErrNoTile: the log holds no such tile, or not that many hashes or entries of it yet.
	ErrNoTile = errors.New("translog: tile not in the log")
)

// Reader answers the log's public questions from its storage: checkpoint, tiles, proofs. It keeps
// hash tiles in memory (tiles: a stored hash never changes), and the log state it read last for
// a moment (state), so that a proof costs one read of the database: its entry.
type Reader struct {
	st    ReadStorage
	tiles *cache.Cache[[2]int64, []byte]
	nodes *cache.Cache[int64, tlog.Hash] // stored hashes by index (tlog.StoredHashIndex)
	state *cache.Cache[struct{}, logstore.State]
}

// readerTiles bounds the hash tiles a reader keeps: at most 8 KiB each, 32 MiB in all; the
// level-0 tiles of a million leaves and every tile above them.
const readerTiles = 4096

// readerNodes bounds the stored hashes a reader keeps (about 100 bytes each in memory).
const readerNodes = 1 << 18

// readerStateTTL is how long a reader proves against the log state it read last. A version
// integrated since is proven against a fresh read.
const readerStateTTL = 100 * time.Millisecond

// NewReader returns a reader of the log in st.
func NewReader(st ReadStorage) *Reader {
	return &Reader{st: st,
		tiles: cache.New[[2]int64, []byte](cache.Options{MaxSize: readerTiles}),
		nodes: cache.New[int64, tlog.Hash](cache.Options{MaxSize: readerNodes}),
		state: cache.New[struct{}, logstore.State](cache.Options{MaxSize: 1, TTL: readerStateTTL})}
}

// logState is the log's state as read at most readerStateTTL ago, or newer than minSize.
func (r *Reader) logState(ctx context.Context, minSize int64) (logstore.State, error) {
	if s, ok := r.state.Get(struct{}{}); ok && s.Size > minSize {
		return s, nil
	}
	s, err := r.st.LogState(ctx)
	if err != nil {
		return logstore.State{}, err
	}
	r.state.Set(struct{}{}, s)
	return s, nil
}

// hashTile returns the stored hash tile, at least minLen bytes of it when the log holds that
// many, from memory when it holds them. A tile's first hashes never change (a partial tile only
// grows), so a tile read once serves every later read that needs no more of it.
func (r *Reader) hashTile(ctx context.Context, level int, n int64, minLen int) ([]byte, error) {
	k := [2]int64{int64(level), n}
	if d, ok := r.tiles.Get(k); ok && len(d) >= minLen {
		return d, nil
	}
	d, err := r.st.LogTile(ctx, level, n)
	if err == nil && level >= 0 {
		r.tiles.Set(k, d)
	}
	return d, err
}

// Checkpoint returns the latest signed checkpoint and its parsed body.
func (r *Reader) Checkpoint(ctx context.Context) (string, leaf.Checkpoint, error) {
	return r.checkpoint(ctx, -1)
}

// checkpoint is Checkpoint, from a state read at most readerStateTTL ago when it is larger than
// minSize (-1: always fresh).
func (r *Reader) checkpoint(ctx context.Context, minSize int64) (string, leaf.Checkpoint, error) {
	var s logstore.State
	var err error
	if minSize < 0 {
		s, err = r.st.LogState(ctx)
	} else {
		s, err = r.logState(ctx, minSize)
	}
	if err != nil {
		return "", leaf.Checkpoint{}, err
	}
	if s.Checkpoint == "" {
		return "", leaf.Checkpoint{}, ErrNoCheckpoint
	}
	text, err := noteText(s.Checkpoint)
	if err != nil {
		return "", leaf.Checkpoint{}, err
	}
	c, err := leaf.ParseCheckpoint(text)
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

// Tile returns the stored tile (level logstore.EntriesLevel: the entry bundle) cut to width w
// (1..leaf.TileWidth); ErrNoTile when the log does not hold that many yet.
func (r *Reader) Tile(ctx context.Context, level int, n int64, w int) ([]byte, error) {
	data, err := r.hashTile(ctx, level, n, w*tlog.HashSize)
	if errors.Is(err, logstore.ErrNotFound) {
		return nil, fmt.Errorf("%w: %v", ErrNoTile, err)
	}
	if err != nil {
		return nil, err
	}
	if level >= 0 {
		if len(data) < w*tlog.HashSize {
			return nil, fmt.Errorf("tile %d/%d width %d: %w", level, n, w, ErrNoTile)
		}
		return data[:w*tlog.HashSize], nil
	}
	// An entry bundle: the first w entries.
	off := 0
	for i := 0; i < w; i++ {
		if off+2 > len(data) {
			return nil, fmt.Errorf("entry bundle %d width %d: %w", n, w, ErrNoTile)
		}
		off += 2 + (int(data[off])<<8 | int(data[off+1]))
	}
	if off > len(data) {
		return nil, fmt.Errorf("translog: entry bundle %d is truncated", n)
	}
	return data[:off], nil
}

// hashes reads stored hashes: from memory, or from the stored tiles (a hash inside a tile is
// computed from the tile's bottom row, up to 255 SHA-256 for the top of a full tile, and then
// kept: a stored hash never changes).
func (r *Reader) hashes(ctx context.Context) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		cache := map[[2]int64][]byte{}
		out := make([]tlog.Hash, len(indexes))
		for i, idx := range indexes {
			if h, ok := r.nodes.Get(idx); ok {
				out[i] = h
				continue
			}
			h, err := hashFromTiles(idx, func(level int, n int64, minLen int) ([]byte, error) {
				k := [2]int64{int64(level), n}
				if d, ok := cache[k]; ok && len(d) >= minLen {
					return d, nil
				}
				d, err := r.hashTile(ctx, level, n, minLen)
				if err == nil {
					cache[k] = d
				}
				return d, err
			})
			if err != nil {
				return nil, err
			}
			r.nodes.Set(idx, h)
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

// Inclusion proves the version's leaf in the tree of size (0: the latest checkpoint's). The
// proof comes with the latest signed checkpoint; for an earlier size, a consistency proof
// from size to the checkpoint's links the two.
func (r *Reader) Inclusion(ctx context.Context, version string, size int64) (Inclusion, error) {
	if size < 0 {
		return Inclusion{}, fmt.Errorf("%w: size %d is negative", ErrBadSize, size)
	}
	idx, entry, err := r.st.LogEntry(ctx, version)
	if errors.Is(err, logstore.ErrNotFound) {
		pending, perr := r.st.LogPending(ctx, version)
		switch {
		case perr != nil:
			return Inclusion{}, perr
		case pending:
			return Inclusion{}, fmt.Errorf("%w: %s is waiting for the integrator", ErrNotIntegrated, version)
		}
		return Inclusion{}, fmt.Errorf("%w: %s", ErrNotLogged, version)
	}
	if err != nil {
		return Inclusion{}, err
	}
	// A checkpoint read a moment ago serves when it holds the leaf (and the size asked for).
	signed, c, err := r.checkpoint(ctx, max(idx, size-1))
	if err != nil {
		return Inclusion{}, err
	}
	if size > c.Size {
		return Inclusion{}, fmt.Errorf("%w: size %d is beyond the log (size %d)", ErrBadSize, size, c.Size)
	}
	if size == 0 {
		size = c.Size
	}
	if idx >= size {
		// Integrated after that tree (or after the checkpoint was read).
		return Inclusion{}, fmt.Errorf("%w: %s is at log index %d, after the tree of size %d", ErrNotIntegrated, version, idx, size)
	}
	hashes := r.hashes(ctx)
	// The leaf as the version's row gives it, when the tree holds exactly that leaf; otherwise
	// (the row no longer matches what was logged) the leaf the log holds, from its bundle, so
	// that the proof shows what was logged.
	text, err := entry.Canonical()
	if err != nil {
		return Inclusion{}, err
	}
	stored, err := hashes.ReadHashes([]int64{tlog.StoredHashIndex(0, idx)})
	if err != nil {
		return Inclusion{}, fmt.Errorf("translog: leaf hash %d: %w", idx, err)
	}
	if stored[0] != leaf.Hash(text) {
		if text, err = r.Leaf(ctx, idx); err != nil {
			return Inclusion{}, err
		}
	}
	p, err := tlog.ProveRecord(size, idx, hashes)
	if err != nil {
		return Inclusion{}, fmt.Errorf("translog: prove leaf %d in %d: %w", idx, size, err)
	}
	return Inclusion{Index: idx, TreeSize: size, Leaf: text, Hashes: p, Checkpoint: signed}, nil
}

// Leaf returns the leaf at index idx from its entry bundle.
func (r *Reader) Leaf(ctx context.Context, idx int64) ([]byte, error) {
	data, err := r.st.LogTile(ctx, logstore.EntriesLevel, idx/leaf.TileWidth)
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
			return nil, fmt.Errorf("translog: entry bundle %d is truncated", idx/leaf.TileWidth)
		}
		if i == idx%leaf.TileWidth {
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
