package translog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/translog/stateindex"
)

// The serving state index (docs/state-index.md, "The serving index"). Every instance follows
// the log: it keeps the index in memory at the size of the latest published checkpoint that
// ends in a state leaf (the cosigned checkpoint when the log has witnesses, the signed one
// otherwise), and answers state queries at exactly that size. The next checkpoint's leaves
// are applied to an Overlay over the index's store, outside any lock (the store is only read
// meanwhile, by the overlay and by the queries); when the overlay reaches a checkpoint that
// ends in a state leaf whose root it reproduces, it is committed under the write lock of an
// RWMutex, which the queries hold for reading while they prove.

// ErrStateNotReady: the serving index has not reached a checkpoint that ends in a state leaf
// yet (it is catching up with the log, or the log has no state leaf yet).
var ErrStateNotReady = errors.New("translog: the state index is catching up with the log")

// ErrStateRefused: a committed state root is not the one the leaves give; the instance serves
// no state answer.
var ErrStateRefused = errors.New("translog: the log's committed state root does not match its leaves")

// StateServer is an instance's serving index.
type StateServer struct {
	r        *Reader
	st       ReadStorage
	cosigned func(context.Context) (logstore.Cosigned, error) // nil: follow the signed checkpoint
	log      *slog.Logger
	idx      IndexStore

	mu    sync.RWMutex
	f     *stateindex.Follower // the committed index (f.Size() = the checkpoint's size); nil until resumed
	ready bool
	note  string // the checkpoint the index is at
	state []byte // its last leaf, the state leaf
	broke error

	// The follower's own (one goroutine: Step).
	pend *stateindex.Overlay
	pf   *stateindex.Follower
}

// NewStateServer returns the serving index, in memory, of the log that r reads from st;
// cosigned, when set, gives the log's cosigned checkpoint, which it follows instead of the
// signed one.
func NewStateServer(r *Reader, st ReadStorage, cosigned func(context.Context) (logstore.Cosigned, error), log *slog.Logger) *StateServer {
	return NewStateServerIn(NewMemIndex(), r, st, cosigned, log)
}

// NewStateServerIn is NewStateServer with the index kept in idx (svc serve: on disk, where a
// restart finds it again).
func NewStateServerIn(idx IndexStore, r *Reader, st ReadStorage, cosigned func(context.Context) (logstore.Cosigned, error), log *slog.Logger) *StateServer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &StateServer{r: r, st: st, cosigned: cosigned, log: log, idx: idx}
}

// Run follows the log every interval until ctx ends.
func (s *StateServer) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := s.Step(ctx); err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "transparency log: the state index could not follow the log", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// published returns the checkpoint to follow: its note and size.
func (s *StateServer) published(ctx context.Context) (string, int64, error) {
	if s.cosigned != nil {
		c, err := s.cosigned(ctx)
		return c.Text, c.Size, err
	}
	signed, c, err := s.r.Checkpoint(ctx)
	if errors.Is(err, ErrNoCheckpoint) {
		return "", 0, nil
	}
	return signed, c.Size, err
}

// Step applies the leaves of the latest published checkpoint, and moves the served index to
// it when it ends in a state leaf. The first step resumes the index from its store.
func (s *StateServer) Step(ctx context.Context) error {
	s.mu.RLock()
	broke, ready := s.broke, s.ready
	s.mu.RUnlock()
	if broke != nil {
		return nil
	}
	note, size, err := s.published(ctx)
	if err != nil || note == "" {
		return err
	}
	if s.f == nil {
		f, err := resumeIndex(ctx, s.st, s.idx)
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.f = f
		s.mu.Unlock()
	}
	bundle := func(n int64) ([]byte, error) { return s.st.LogTile(ctx, logstore.EntriesLevel, n) }
	if ready && uint64(size) > s.f.Size()+catchUpStep {
		// Far behind (the published checkpoint stood still a long while, then jumped): catch
		// up in steps, committed as they go, rather than hold the whole gap in an overlay;
		// state queries wait meanwhile.
		s.mu.Lock()
		s.ready = false
		s.mu.Unlock()
		s.pend, s.pf, ready = nil, nil, false
	}
	if !ready {
		return s.catchUp(ctx, note, size, bundle)
	}
	if s.pend == nil {
		s.pend, s.pf = overlayFollower(s.idx, s.f)
	}
	if uint64(size) < s.pf.Size() {
		return nil // an older checkpoint (another instance's view a moment ago)
	}
	if err := (&stateIdx{}).read(size, int(size), bundle, s.pf); err != nil {
		return s.refuse(err)
	}
	if s.pf.Size() != uint64(size) || !s.pf.LastState {
		return nil
	}
	text, err := s.r.Leaf(ctx, size-1)
	if err != nil {
		return err
	}
	tree, err := checkpointRoot(note)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := commitIndex(s.idx, s.pend, s.pf, tree); err != nil {
		s.pend, s.pf = nil, nil
		return err
	}
	s.f = resumed(s.idx, s.pf)
	s.note, s.state, s.pend, s.pf = note, text, nil, nil
	return nil
}

// catchUp applies the leaves up to the published checkpoint of size (note) while nothing is
// served, committing every catchUpStep of them, and starts serving once the index is at that
// checkpoint and it ends in a state leaf.
func (s *StateServer) catchUp(ctx context.Context, note string, size int64, bundle func(n int64) ([]byte, error)) error {
	start := time.Now()
	for s.f.Size() < uint64(size) {
		ov, f := overlayFollower(s.idx, s.f)
		if err := (&stateIdx{}).read(size, catchUpStep, bundle, f); err != nil {
			return s.refuse(err)
		}
		tree, err := treeHashAt(ctx, s.st, f.Size())
		if err != nil {
			return err
		}
		if err := commitIndex(s.idx, ov, f, tree); err != nil {
			return err
		}
		s.mu.Lock()
		s.f = resumed(s.idx, f)
		s.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if s.f.Size() != uint64(size) || !s.f.LastState {
		return nil // the index is ahead of this checkpoint (it follows another), or it has no state leaf yet
	}
	text, err := s.r.Leaf(ctx, size-1)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.ready, s.note, s.state = true, note, text
	s.mu.Unlock()
	s.log.InfoContext(ctx, "transparency log: the state index serves state queries", "checkpoint_size", size,
		"state_roots_checked", s.f.Checked, "last_step", time.Since(start).Round(time.Millisecond))
	return nil
}

func (s *StateServer) refuse(err error) error {
	if errors.Is(err, stateindex.ErrStateRoot) {
		s.mu.Lock()
		s.broke = err
		s.mu.Unlock()
	}
	return err
}

// Status returns the size of the checkpoint served (0: none yet) and the number of state
// roots checked.
func (s *StateServer) Status() (size uint64, checked int, ready bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.f == nil {
		return 0, 0, false
	}
	return s.f.Size(), s.f.Checked, s.ready
}

// Query answers the state query of key at the served checkpoint: its latest leaf with the
// compact membership proof, or its absence proof (Answer.Present false).
func (s *StateServer) Query(ctx context.Context, key stateindex.Key) (stateindex.Answer, error) {
	s.mu.RLock()
	if s.broke != nil {
		s.mu.RUnlock()
		return stateindex.Answer{}, fmt.Errorf("%w: %v", ErrStateRefused, s.broke)
	}
	if !s.ready {
		s.mu.RUnlock()
		return stateindex.Answer{}, ErrStateNotReady
	}
	p, ks, err := s.f.ProveKey(key)
	size, note, state := int64(s.f.Size()), s.note, s.state
	s.mu.RUnlock()
	if err != nil {
		return stateindex.Answer{}, err
	}
	list := ks.List
	a := stateindex.Answer{Key: stateindex.AnswerKey{Kind: key.Kind.String(), Parts: key.Parts}, Proof: p.Encode(), Checkpoint: note}
	hashes := s.r.hashes(ctx)
	prove := func(idx int64, text []byte) (stateindex.AnswerLeaf, [][]byte, error) {
		if text == nil { // not kept by the index's store: read from the log
			if text, err = s.r.Leaf(ctx, idx); err != nil {
				return stateindex.AnswerLeaf{}, nil, err
			}
		}
		rp, err := tlog.ProveRecord(size, idx, hashes)
		if err != nil {
			return stateindex.AnswerLeaf{}, nil, fmt.Errorf("translog: prove leaf %d in %d: %w", idx, size, err)
		}
		return stateindex.AnswerLeaf{LogIndex: idx, Leaf: string(text)}, hashBytes(rp), nil
	}
	if a.State, a.StateInclusion, err = prove(size-1, state); err != nil {
		return stateindex.Answer{}, err
	}
	if len(list) == 0 {
		return a, nil
	}
	latest, lp, err := prove(int64(list[len(list)-1]), ks.Latest)
	if err != nil {
		return stateindex.Answer{}, err
	}
	listProof, err := stateindex.ProveLatest(list)
	if err != nil {
		return stateindex.Answer{}, err
	}
	root := stateindex.ListRoot(list)
	a.Present, a.Count, a.Latest, a.LatestInclusion, a.ListRoot = true, uint64(len(list)), &latest, lp, root[:]
	for _, h := range listProof {
		a.ListProof = append(a.ListProof, h[:])
	}
	return a, nil
}

func hashBytes(hs []tlog.Hash) [][]byte {
	out := make([][]byte, len(hs))
	for i := range hs {
		out[i] = hs[i][:]
	}
	return out
}
