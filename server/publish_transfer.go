package server

import (
	"context"

	"github.com/svc-directory/svc/gen"
)

// TransferOwnership hands the namespace to another existing user (owner only).
func (s *Server) TransferOwnership(ctx context.Context, req gen.TransferOwnershipRequestObject) (gen.TransferOwnershipResponseObject, error) {
	keep := req.Body.KeepAsDelegate == nil || *req.Body.KeepAsDelegate
	ns, err := s.entries.TransferOwnership(ctx, s.callerOf(ctx), req.Namespace, string(req.Body.Email), keep)
	if err != nil {
		return nil, err
	}
	return gen.TransferOwnership200JSONResponse{Body: gen.NamespaceLookupResponse{Message: "Ownership transferred", Data: s.namespaceOut(ns)}}, nil
}
