// Package translog is the directory's transparency log: an append-only Merkle tree (RFC 6962,
// SHA-256) over the leaves of every public version, kept as C2SP tlog-tiles in the service's
// database and published as C2SP tlog-checkpoint signed notes (Ed25519). The store queues a
// leaf in the transaction that writes a version; an Integrator here moves queued leaves into
// the tree, one storage transaction per batch, and signs the new checkpoint; a Reader serves
// checkpoints, tiles and proofs; a Witnesser gathers the witnesses' cosignatures. It reaches
// its storage only through the interfaces of storage.go (in the words of translog/logstore) and
// imports no database. The leaf format and the checks a reader makes are translog/leaf's.
// docs/transparency-log.md describes the log for its readers.
package translog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/translog/stateindex"
)

// BatchMax is the most leaves one integration takes from the queue.
const BatchMax = 4096

// Integrator moves queued leaves into the log and signs its checkpoints.
type Integrator struct {
	st     IntegrateStorage
	signer note.Signer
	verif  note.Verifier
	log    *slog.Logger
	now    func() time.Time
	m      *Metrics // nil: none
	// Integrations and leaves since the log's tables were last compacted (Run).
	sinceCompact, leavesSinceCompact int
	// wake, when set (WithWake), makes Run integrate at once, no sooner than minGap after its
	// last integration.
	wake   <-chan struct{}
	minGap time.Duration
	// What the integrator knows of the log's past, to find it rolled back (rollback.go).
	highest atomic.Int64                         // the largest tree it signed or found signed
	outside func(context.Context) (Floor, error) // nil: none (WithOutside)
	found   atomic.Pointer[logstore.Rollback]    // set: it refuses to sign
	marked  atomic.Bool                          // the database holds the marker
	// The state index (stateleaves.go; nil: none), and whether it is behind the log.
	idx    *stateIdx
	behind atomic.Bool
	// stateLeaves counts the state leaves it appended, for the integrated leaves' metric.
	stateLeaves atomic.Int64
}

// WithWake makes Run integrate when wake receives (a write queued leaves: store.Listen), no
// sooner than minGap after its last integration, besides every interval.
func (g *Integrator) WithWake(wake <-chan struct{}, minGap time.Duration) *Integrator {
	g.wake, g.minGap = wake, minGap
	return g
}

// The integrator compacts the log's tables (CompactLog) after this many integrations or
// integrated leaves, whichever comes first: a steady trickle of writes replaces the partial
// tiles four times a second, a bulk load deletes thousands of queue rows per integration.
const (
	compactEvery       = 240
	compactEveryLeaves = 16 * BatchMax
)

// NewIntegrator returns an integrator of the log in st that signs with key; the key's name is
// the log's origin. now is the clock (nil: time.Now).
func NewIntegrator(st IntegrateStorage, key Key, log *slog.Logger, now func() time.Time) *Integrator {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Integrator{st: st, signer: key.Signer, verif: key.Verifier, log: log, now: now}
}

// WithMetrics makes the integrator record its integrations in m, and returns it.
func (g *Integrator) WithMetrics(m *Metrics) *Integrator {
	g.m = m
	return g
}

// Origin is the log's origin line.
func (g *Integrator) Origin() string { return g.signer.Name() }

// IntegrateOnce integrates up to BatchMax queued leaves in one transaction and signs the new
// checkpoint; with an empty queue it only signs the empty tree of a new log. It returns how
// many leaves it integrated. A failure (or a crash) leaves the log as it was.
func (g *Integrator) IntegrateOnce(ctx context.Context) (int, error) {
	start := g.now()
	states := g.stateLeaves.Load()
	n, err := g.integrate(ctx, BatchMax, nil)
	// The metric counts every leaf the integration added: the queued ones and its state leaf.
	g.m.observe(n+int(g.stateLeaves.Load()-states), g.now().Sub(start), err)
	return n, err
}

// integrate is IntegrateOnce with the batch size and a function the update passes through
// before it is written (tests fail there to stop an integration midway).
func (g *Integrator) integrate(ctx context.Context, limit int, last func(logstore.Update) error) (int, error) {
	floor, err := g.floor(ctx)
	if err != nil {
		return 0, err
	}
	if g.idx != nil {
		behind, err := g.catchUp(ctx)
		if err != nil && ctx.Err() == nil {
			g.log.WarnContext(ctx, "transparency log: the state index could not read the log", "err", err)
		}
		g.behind.Store(behind)
	}
	size := int64(-1)
	var bs *batchState
	n, err := g.st.IntegrateLog(ctx, limit, func(b *logstore.Batch) (logstore.Update, error) {
		bs = nil
		if err := g.checkRollback(b.State, floor); err != nil {
			return logstore.Update{}, err
		}
		var err error
		if bs, err = g.stateForBatch(b); err != nil {
			if !errors.Is(err, stateindex.ErrStateRoot) {
				return logstore.Update{}, err
			}
			g.indexFailed(ctx, err)
			bs = nil
		}
		if len(b.Queued) == 0 && b.State.Checkpoint != "" && (bs == nil || bs.state == nil) {
			if bs != nil {
				if bs.tree, err = checkpointRoot(b.State.Checkpoint); err != nil {
					return logstore.Update{}, err
				}
			}
			return logstore.Update{}, nil // nothing to integrate
		}
		appended := 0
		if bs != nil && bs.state != nil {
			withState := *b
			withState.Queued = append(b.Queued[:len(b.Queued):len(b.Queued)], logstore.Queued{Leaf: bs.state})
			b, appended = &withState, 1
		}
		size = b.State.Size + int64(len(b.Queued))
		up, err := g.extend(b)
		if err != nil {
			return logstore.Update{}, err
		}
		up.Appended = appended
		if bs != nil {
			if bs.tree, err = checkpointRoot(up.Checkpoint); err != nil {
				return logstore.Update{}, err
			}
		}
		if last != nil {
			if err := last(up); err != nil {
				return logstore.Update{}, err
			}
		}
		return up, nil
	})
	if err == nil && size >= 0 {
		g.saw(size) // signed and committed
	}
	if err == nil && bs != nil {
		if bs.state != nil {
			g.stateLeaves.Add(1)
		}
		if cerr := g.idx.commit(bs); cerr != nil {
			return n, cerr
		}
	}
	if errors.Is(err, ErrRolledBack) {
		g.mark(ctx)
	}
	return n, err
}

// checkpointRoot is the root hash of a signed checkpoint.
func checkpointRoot(signed string) (tlog.Hash, error) {
	text, err := noteText(signed)
	if err != nil {
		return tlog.Hash{}, err
	}
	c, err := leaf.ParseCheckpoint(text)
	return c.Hash, err
}

// extend computes the tiles and the signed checkpoint of the batch's tree.
func (g *Integrator) extend(b *logstore.Batch) (logstore.Update, error) {
	old := b.State
	if old.Origin != "" && old.Origin != g.Origin() {
		return logstore.Update{}, fmt.Errorf("translog: the log in this database has origin %q, not %q: a log keeps its origin and key", old.Origin, g.Origin())
	}
	if old.Checkpoint != "" {
		n, err := note.Open([]byte(old.Checkpoint), note.VerifierList(g.verif))
		if err != nil {
			return logstore.Update{}, fmt.Errorf("translog: the latest checkpoint is not signed by this log's key %s: %w", g.verif.Name(), err)
		}
		c, err := leaf.ParseCheckpoint(n.Text)
		if err != nil || c.Size != old.Size {
			return logstore.Update{}, fmt.Errorf("translog: the latest checkpoint does not match the log state (size %d)", old.Size)
		}
	}
	r := &batchReader{tiles: b.Tile, fresh: map[int64]tlog.Hash{}, cache: map[[2]int64][]byte{}}
	n := old.Size
	for _, q := range b.Queued {
		hs, err := tlog.StoredHashes(n, q.Leaf, r)
		if err != nil {
			return logstore.Update{}, fmt.Errorf("translog: hashes of leaf %d: %w", n, err)
		}
		base := tlog.StoredHashIndex(0, n)
		for i, h := range hs {
			r.fresh[base+int64(i)] = h
		}
		n++
	}
	var up logstore.Update
	for _, t := range tlog.NewTiles(leaf.TileHeight, old.Size, n) {
		data, err := tlog.ReadTileData(t, r)
		if err != nil {
			return logstore.Update{}, fmt.Errorf("translog: tile %s: %w", t.Path(), err)
		}
		up.Tiles = append(up.Tiles, logstore.Tile{Level: t.L, N: t.N, Data: data})
	}
	bundles, err := extendBundles(b, old.Size)
	if err != nil {
		return logstore.Update{}, err
	}
	up.Tiles = append(up.Tiles, bundles...)
	root, err := tlog.TreeHash(n, r)
	if err != nil {
		return logstore.Update{}, fmt.Errorf("translog: root of %d: %w", n, err)
	}
	signed, err := note.Sign(&note.Note{Text: leaf.Checkpoint{Origin: g.Origin(), Size: n, Hash: root}.Format()}, g.signer)
	if err != nil {
		return logstore.Update{}, fmt.Errorf("translog: sign checkpoint: %w", err)
	}
	up.Origin, up.Checkpoint = g.Origin(), string(signed)
	return up, nil
}

// extendBundles appends the batch's leaves to the entry bundles (each entry a big-endian
// 16-bit length and the leaf).
func extendBundles(b *logstore.Batch, start int64) ([]logstore.Tile, error) {
	var out []logstore.Tile
	var cur []byte
	for i, q := range b.Queued {
		idx := start + int64(i)
		if len(q.Leaf) > 0xffff {
			return nil, fmt.Errorf("translog: leaf %d is longer than 65535 bytes", idx)
		}
		if i == 0 || idx%leaf.TileWidth == 0 {
			if cur != nil {
				out = append(out, logstore.Tile{Level: logstore.EntriesLevel, N: (idx - 1) / leaf.TileWidth, Data: cur})
			}
			cur = nil
			if idx%leaf.TileWidth != 0 {
				prev, err := b.Tile(logstore.EntriesLevel, idx/leaf.TileWidth)
				if err != nil {
					return nil, err
				}
				cur = append(cur, prev...)
			}
		}
		cur = append(cur, byte(len(q.Leaf)>>8), byte(len(q.Leaf)))
		cur = append(cur, q.Leaf...)
	}
	if cur != nil {
		out = append(out, logstore.Tile{Level: logstore.EntriesLevel, N: (start + int64(len(b.Queued)) - 1) / leaf.TileWidth, Data: cur})
	}
	return out, nil
}

// batchReader reads stored hashes: those of this batch from fresh, older ones from the
// stored tiles.
type batchReader struct {
	tiles func(level int, n int64) ([]byte, error)
	fresh map[int64]tlog.Hash
	cache map[[2]int64][]byte
}

func (r *batchReader) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		if h, ok := r.fresh[idx]; ok {
			out[i] = h
			continue
		}
		h, err := hashFromTiles(idx, func(level int, n int64, _ int) ([]byte, error) {
			k := [2]int64{int64(level), n}
			if d, ok := r.cache[k]; ok {
				return d, nil
			}
			d, err := r.tiles(level, n)
			if err == nil {
				r.cache[k] = d
			}
			return d, err
		})
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

// hashFromTiles returns stored hash idx from the tile that holds it.
func hashFromTiles(idx int64, tile func(level int, n int64, minLen int) ([]byte, error)) (tlog.Hash, error) {
	t := tlog.TileForIndex(leaf.TileHeight, idx)
	data, err := tile(t.L, t.N, t.W*tlog.HashSize)
	if err != nil {
		return tlog.Hash{}, err
	}
	if len(data) < t.W*tlog.HashSize {
		return tlog.Hash{}, fmt.Errorf("translog: stored hash %d missing (tile %d/%d holds %d bytes)", idx, t.L, t.N, len(data))
	}
	return tlog.HashFromTile(t, data, idx)
}

// Run integrates every interval (and at once again while a full batch was taken) until ctx
// ends. Failures are logged and retried at the next tick.
func (g *Integrator) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		start, began := g.now(), time.Now()
		n, err := g.IntegrateOnce(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			g.log.ErrorContext(ctx, "transparency log integration failed", "err", err)
		case n > 0:
			g.log.DebugContext(ctx, "transparency log integrated", "leaves", n, "duration", g.now().Sub(start))
		}
		if n > 0 {
			g.sinceCompact++
			g.leavesSinceCompact += n
		}
		if g.sinceCompact >= compactEvery || g.leavesSinceCompact >= compactEveryLeaves {
			if err := g.st.CompactLog(ctx); err != nil && ctx.Err() == nil {
				g.log.WarnContext(ctx, "transparency log compaction failed", "err", err)
			}
			g.sinceCompact, g.leavesSinceCompact = 0, 0
		}
		if n == BatchMax || g.behind.Load() && err == nil {
			continue // more waits, or the state index catches up
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-g.wake:
			if !sleep(ctx, g.minGap-time.Since(began)) {
				return
			}
		}
	}
}

// sleep waits d (nothing when d ≤ 0); false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
