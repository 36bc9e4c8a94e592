package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/stateindex"
)

// GetLogState is the state query by id (docs/state-index.md, "The state query").
func (s *Server) GetLogState(ctx context.Context, req gen.GetLogStateRequestObject) (gen.GetLogStateResponseObject, error) {
	if err := directory.CheckEntryID(req.Id); err != nil {
		return nil, problem(http.StatusBadRequest, "Invalid input: path parameter id: "+err.Error())
	}
	a, err := s.stateAnswer(ctx, stateindex.IDKey(req.Id))
	if err != nil {
		return nil, err
	}
	out := logStateOut(a)
	if !a.Present {
		out.Message = "Absence proof: " + req.Id + " has no leaf in the transparency log"
		return gen.GetLogState404JSONResponse(out), nil
	}
	return gen.GetLogState200JSONResponse(out), nil
}

// stateAnswer is the state answer of key from the instance's serving index; while it cannot
// answer, the error is the 503 every state proof answers (the state query, a lookup with
// prove=current).
func (s *Server) stateAnswer(ctx context.Context, key stateindex.Key) (stateindex.Answer, error) {
	unavailable := func(msg string) error {
		return &apiError{Status: http.StatusServiceUnavailable, Code: gen.ErrorCodeUnavailable, Message: msg, RetryAfter: retryAfterSeconds}
	}
	if s.logState == nil {
		return stateindex.Answer{}, unavailable("This instance keeps no state index of the transparency log")
	}
	a, err := s.logState.Query(ctx, key)
	switch {
	case errors.Is(err, translog.ErrStateNotReady):
		return a, unavailable("The state index is catching up with the transparency log (after a start, or before the log's first state leaf); retry after Retry-After seconds")
	case errors.Is(err, translog.ErrStateRefused):
		return a, unavailable("This instance refuses to answer state queries: a state root committed in the log is not the one its leaves give (an operator must look)")
	}
	return a, err
}

// logStateOut renders a state answer: the body of the state query, and a lookup's
// state_proof. An empty proof (a key of one leaf has no list proof; a tree of one leaf, no
// inclusion proof) is an empty array, never null.
func logStateOut(a stateindex.Answer) gen.LogState {
	a.StateInclusion, a.LatestInclusion, a.ListProof = nonNil(a.StateInclusion), nonNil(a.LatestInclusion), nonNil(a.ListProof)
	out := gen.LogState{Message: "State proof", Present: a.Present, Count: int64(a.Count), Proof: a.Proof, Checkpoint: a.Checkpoint,
		State: gen.LogStateLeaf{LogIndex: a.State.LogIndex, Leaf: a.State.Leaf}, StateInclusion: a.StateInclusion}
	out.Key.Kind, out.Key.Parts = a.Key.Kind, a.Key.Parts
	if a.Present {
		out.Latest = &gen.LogStateLeaf{LogIndex: a.Latest.LogIndex, Leaf: a.Latest.Leaf}
		out.LatestInclusion, out.ListRoot, out.ListProof = &a.LatestInclusion, &a.ListRoot, &a.ListProof
	}
	return out
}

func nonNil(hs [][]byte) [][]byte {
	if hs == nil {
		return [][]byte{}
	}
	return hs
}

// stateQueryPrefix is the state query's path with its {id} empty (errors.go answers it 400).
const stateQueryPrefix = "/svc/log/state/"
