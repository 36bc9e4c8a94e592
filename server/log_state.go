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
	if s.logState == nil {
		return gen.GetLogState503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody("This instance keeps no state index of the transparency log")}, nil
	}
	a, err := s.logState.Query(ctx, stateindex.IDKey(req.Id))
	switch {
	case errors.Is(err, translog.ErrStateNotReady):
		return gen.GetLogState503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody(
			"The state index is catching up with the transparency log (after a start, or before the log's first state leaf); retry after Retry-After seconds")}, nil
	case errors.Is(err, translog.ErrStateRefused):
		return gen.GetLogState503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody(
			"This instance refuses to answer state queries: a state root committed in the log is not the one its leaves give (an operator must look)")}, nil
	case err != nil:
		return nil, err
	}
	out := gen.LogState{Message: "State proof", Present: a.Present, Count: int64(a.Count), Proof: a.Proof, Checkpoint: a.Checkpoint,
		State: gen.LogStateLeaf{LogIndex: a.State.LogIndex, Leaf: a.State.Leaf}, StateInclusion: *nonNil(a.StateInclusion)}
	out.Key.Kind, out.Key.Parts = a.Key.Kind, a.Key.Parts
	if !a.Present {
		out.Message = "Absence proof: " + req.Id + " has no leaf in the transparency log"
		return gen.GetLogState404JSONResponse(out), nil
	}
	out.Latest = &gen.LogStateLeaf{LogIndex: a.Latest.LogIndex, Leaf: a.Latest.Leaf}
	// A list of one element has no list proof, and a tree of one leaf no audit path: they are
	// empty lists (the contract's arrays are not nullable), never null.
	out.LatestInclusion, out.ListRoot, out.ListProof = nonNil(a.LatestInclusion), &a.ListRoot, nonNil(a.ListProof)
	return gen.GetLogState200JSONResponse(out), nil
}

// stateQueryPrefix is the state query's path with its {id} empty (errors.go answers it 400).
const stateQueryPrefix = "/svc/log/state/"

// nonNil is hashes, an empty list rather than nil (which JSON writes as null).
func nonNil(hashes [][]byte) *[][]byte {
	if hashes == nil {
		hashes = [][]byte{}
	}
	return &hashes
}
