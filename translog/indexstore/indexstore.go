// Package indexstore keeps the log's state index (translog/stateindex) on local disk, in a
// Pebble database (an LSM tree: random writes of small nodes cost little, and reads go
// through a block cache of bounded size), so that an instance's memory stays bounded however
// many keys the index holds, and a restart resumes from where the index was instead of
// rebuilding it from leaf 0.
//
// The index is derived data: a deterministic function of the log's leaves, which every
// instance can rebuild. So the store holds no truth of its own; beside the nodes and keys, it
// records what it is the index of (Meta: the number of leaves applied, the index's root, and
// the log's own tree hash at that size), and a caller that finds the log no longer agrees (a
// new log, a rollback) wipes it and starts again (docs/state-index.md, "Storage").
package indexstore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/svc-directory/svc/translog/stateindex"
)

// Meta is what the store is the index of: the first Size leaves of the log whose tree hash at
// Size is TreeHash; Root is the index's root, LastState whether leaf Size-1 is a state leaf,
// Checked the state leaves checked on the way.
type Meta struct {
	Size      uint64          `json:"size"`
	Root      stateindex.Hash `json:"root"`
	LastState bool            `json:"last_state"`
	Checked   int             `json:"checked"`
	TreeHash  [32]byte        `json:"tree_hash"`
}

// format is the version of the store's layout; a store of another is wiped.
const format = 1

// Store is a stateindex.Store on disk that keeps each key's latest leaf text
// (stateindex.LatestKeeper). Its methods are safe for concurrent use; writes come only through
// Commit, which writes an overlay's puts and the new Meta in one atomic, synced batch, so a
// kill at any moment leaves the store at one committed Meta or the one before.
type Store struct {
	db   *pebble.DB
	dir  string
	opts Options
	meta Meta
	has  bool

	// top holds every node of depth at most topDepth, read once at open and written through
	// by Commit: the levels every path crosses are read from memory, and an absent one is an
	// empty subtree without a read of the database.
	mu  sync.RWMutex
	top map[stateindex.NodeID]stateindex.Node
}

// topDepth bounds the nodes kept in memory: at most 2^(topDepth+1) - 1 of them (about 20 MiB
// at 16), however many keys the index holds.
const topDepth = 16

// Options size the store's memory.
type Options struct {
	// CacheBytes is the block cache (default 32 MiB).
	CacheBytes int64
	// Log receives the database's own messages (at debug level; its errors at error level).
	Log *slog.Logger
}

// Open opens (or creates) the store in dir. A store of another format is wiped.
func Open(dir string, opts Options) (*Store, error) {
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = 32 << 20
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Store{dir: dir, opts: opts}
	if err := s.open(); err != nil {
		return nil, err
	}
	var m struct {
		Format int `json:"format"`
		Meta
	}
	raw, ok, err := s.get(metaKey)
	switch {
	case err != nil:
		s.Close()
		return nil, err
	case ok && json.Unmarshal(raw, &m) == nil && m.Format == format:
		s.meta, s.has = m.Meta, true
	case ok: // another format, or unreadable: start again
		if err := s.Wipe(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Store) open() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("indexstore: %w", err)
	}
	cache := pebble.NewCache(s.opts.CacheBytes)
	defer cache.Unref()
	db, err := pebble.Open(s.dir, &pebble.Options{Cache: cache, Logger: slogger{s.opts.Log}})
	if err != nil {
		return fmt.Errorf("state index: cannot open %s (another svc serve may be using it: each instance needs its own SVC_STATE_INDEX_DIR): %w", s.dir, err)
	}
	s.db = db
	return s.loadTop()
}

// loadTop reads the nodes of depth at most topDepth (one range of keys: 'n' and the depth
// come first in a node's key).
func (s *Store) loadTop() error {
	top := map[stateindex.NodeID]stateindex.Node{}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: nodeKey(stateindex.NodeID{}), UpperBound: nodeKey(stateindex.NodeID{Depth: topDepth + 1})})
	if err != nil {
		return fmt.Errorf("indexstore: %w", err)
	}
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		var id stateindex.NodeID
		id.Depth = binary.BigEndian.Uint16(k[1:3])
		copy(id.Prefix[:], k[3:])
		n, _, err := decodeNode(it.Value())
		if err != nil {
			_ = it.Close()
			return err
		}
		top[id] = n
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("indexstore: %w", err)
	}
	s.mu.Lock()
	s.top = top
	s.mu.Unlock()
	return nil
}

// Wipe removes everything the store holds (its directory) and opens it again, empty.
func (s *Store) Wipe() error {
	if s.db != nil {
		_ = s.db.Close()
		s.db = nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("indexstore: wipe %s: %w", s.dir, err)
	}
	s.meta, s.has = Meta{}, false
	return s.open()
}

// Close closes the database.
func (s *Store) Close() error {
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

// Meta returns what the store is the index of; ok is false for an empty store.
func (s *Store) Meta() (Meta, bool) { return s.meta, s.has }

// DiskBytes is the space the store takes on disk.
func (s *Store) DiskBytes() uint64 { return s.db.Metrics().DiskSpaceUsage() }

// KeepsLatest: the store keeps each key's latest leaf text.
func (s *Store) KeepsLatest() bool { return true }

var metaKey = []byte("m")

func nodeKey(id stateindex.NodeID) []byte {
	n := (int(id.Depth) + 7) / 8
	k := make([]byte, 3+n)
	k[0] = 'n'
	binary.BigEndian.PutUint16(k[1:3], id.Depth)
	copy(k[3:], id.Prefix[:n])
	return k
}

func keyKey(h stateindex.Hash) []byte { return append([]byte{'k'}, h[:]...) }

// get returns a copy of the value at k.
func (s *Store) get(k []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("indexstore: %w", err)
	}
	out := append([]byte(nil), v...)
	return out, true, closer.Close()
}

// Node returns the node at id (stateindex.Store).
func (s *Store) Node(id stateindex.NodeID) (stateindex.Node, bool, error) {
	if id.Depth <= topDepth {
		s.mu.RLock()
		n, ok := s.top[id]
		s.mu.RUnlock()
		return n, ok, nil
	}
	v, ok, err := s.get(nodeKey(id))
	if err != nil || !ok {
		return stateindex.Node{}, false, err
	}
	return decodeNode(v)
}

// Key returns the state of the key whose hash is h (stateindex.Store).
func (s *Store) Key(h stateindex.Hash) (stateindex.KeyState, bool, error) {
	v, ok, err := s.get(keyKey(h))
	if err != nil || !ok {
		return stateindex.KeyState{}, false, err
	}
	return decodeKey(v)
}

// PutNode and PutKey refuse: the store is written only by Commit, with its Meta.
func (s *Store) PutNode(stateindex.NodeID, stateindex.Node) error { return errDirectPut }

func (s *Store) PutKey(stateindex.Hash, stateindex.KeyState) error { return errDirectPut }

var errDirectPut = errors.New("indexstore: written only by Commit (apply through a stateindex.Overlay)")

// Commit writes the overlay's puts and m in one synced batch, then empties the overlay.
func (s *Store) Commit(ov *stateindex.Overlay, m Meta) error {
	b := s.db.NewBatch()
	defer b.Close()
	nodes, keys := ov.Puts()
	for id, n := range nodes {
		if err := b.Set(nodeKey(id), encodeNode(n), nil); err != nil {
			return fmt.Errorf("indexstore: %w", err)
		}
	}
	for h, st := range keys {
		if err := b.Set(keyKey(h), encodeKey(st), nil); err != nil {
			return fmt.Errorf("indexstore: %w", err)
		}
	}
	raw, err := json.Marshal(struct {
		Format int `json:"format"`
		Meta
	}{format, m})
	if err != nil {
		return err
	}
	if err := b.Set(metaKey, raw, nil); err != nil {
		return fmt.Errorf("indexstore: %w", err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("indexstore: commit: %w", err)
	}
	s.mu.Lock()
	for id, n := range nodes {
		if id.Depth <= topDepth {
			s.top[id] = n
		}
	}
	s.mu.Unlock()
	s.meta, s.has = m, true
	ov.Discard()
	return nil
}

// slogger passes the database's messages to a slog.Logger.
type slogger struct{ l *slog.Logger }

func (l slogger) Infof(format string, args ...any) {
	l.l.Debug("state index store: " + fmt.Sprintf(format, args...))
}
func (l slogger) Errorf(format string, args ...any) {
	l.l.Error("state index store: " + fmt.Sprintf(format, args...))
}
func (l slogger) Fatalf(format string, args ...any) {
	msg := "state index store: " + fmt.Sprintf(format, args...)
	l.l.Error(msg)
	panic(msg)
}
