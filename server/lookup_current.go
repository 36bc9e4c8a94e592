package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// Current lookups (docs/state-index.md, "Current lookups"): a lookup with prove=current also
// carries the state proof of the entry it shows, the state answer of its id at the checkpoint
// the instance's serving index is at, and says whether the version shown is the latest logged
// one. Such an answer is made afresh each time: never read from or kept in the lookup cache
// (which holds answers without the proof, for as long as the entry does not change, while the
// proof changes with every checkpoint), without an ETag (the digest names the version, not the
// proof) and with If-None-Match ignored, and cached by others for a second at most, as the
// checkpoint is.

// currentProof is what a proven lookup adds to its answer.
type currentProof struct {
	state    gen.LogState
	isLatest bool
	latest   gen.LatestLogged
}

// provenLookup answers a lookup with prove=current: read gives the answer, then its entry's
// state proof is added to it.
func (s *Server) provenLookup(ctx context.Context, read func() (found, error)) (lookupAnswer, error) {
	f, err := read()
	if err != nil {
		return nil, err
	}
	if f.leaf == nil {
		return nil, problem(http.StatusBadRequest,
			"Invalid input: prove=current: the version shown is a draft, which is never logged: only a public version can be proven current")
	}
	c, err := s.currentProofOf(ctx, *f.leaf, f.id)
	if err != nil {
		return nil, err
	}
	f.prove(c)
	e, err := render(f.body, f.digest, f.ttl)
	if err != nil {
		return nil, err
	}
	e.etag, e.cc = "", checkpointCacheControl
	return e, nil
}

// currentProofOf proves the version of leaf l (of the entry id) against the present: the
// state answer of id, and whether l is its latest leaf. A public version that the answer's
// checkpoint does not know yet (written, not yet integrated, or integrated after the
// checkpoint the index serves) is a 503 not_integrated: it is proven within seconds.
func (s *Server) currentProofOf(ctx context.Context, l leaf.Leaf, id string) (currentProof, error) {
	a, err := s.stateAnswer(ctx, stateindex.IDKey(id))
	if err != nil {
		return currentProof{}, err
	}
	have, err := l.Canonical()
	if err != nil {
		return currentProof{}, err
	}
	size := a.State.LogIndex + 1
	pending := &apiError{Status: http.StatusServiceUnavailable, Code: gen.ErrorCodeNotIntegrated, RetryAfter: 1, Message: fmt.Sprintf(
		"prove=current: version %s is not yet in the transparency log's checkpoint of size %d that the state index serves (it is waiting to be integrated, or cosigned); retry after Retry-After seconds",
		l.Version, size)}
	if !a.Present {
		return currentProof{}, pending
	}
	latest, err := leaf.Parse([]byte(a.Latest.Leaf))
	if err != nil {
		return currentProof{}, fmt.Errorf("server: the latest leaf of %s: %w", id, err)
	}
	isLatest := string(have) == a.Latest.Leaf
	if !isLatest && l.VersionCount > latest.VersionCount {
		return currentProof{}, pending
	}
	return currentProof{state: logStateOut(a), isLatest: isLatest,
		latest: gen.LatestLogged{Version: latest.Version, VersionCount: latest.VersionCount, LogIndex: a.Latest.LogIndex, TreeSize: size}}, nil
}
