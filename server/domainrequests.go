package server

import (
	"context"

	"github.com/svc-directory/svc/gen"
)

// AcceptVerificationRequest attests the requester's domain.
func (s *Server) AcceptVerificationRequest(ctx context.Context, req gen.AcceptVerificationRequestRequestObject) (gen.AcceptVerificationRequestResponseObject, error) {
	u := caller(ctx)
	r, err := s.domains.Accept(ctx, req.RequestId, *u, s.didOf(u))
	if err != nil {
		return nil, notFound(err, "Verification request not found")
	}
	out := gen.AcceptVerificationRequest200JSONResponse{Body: gen.AcceptRequestResponse{Message: "Verification request accepted"}}
	out.Body.Data.RequestId, out.Body.Data.RegistryId, out.Body.Data.RecordId = r.RequestID, r.RegistryID, r.RecordID
	return out, nil
}

// RejectVerificationRequest declines a request.
func (s *Server) RejectVerificationRequest(ctx context.Context, req gen.RejectVerificationRequestRequestObject) (gen.RejectVerificationRequestResponseObject, error) {
	_, err := s.domains.Reject(ctx, req.RequestId, *caller(ctx))
	if err != nil {
		return nil, notFound(err, "Verification request not found")
	}
	return gen.RejectVerificationRequest200JSONResponse{MessageAfterWriteJSONResponse: gen.MessageAfterWriteJSONResponse{Body: gen.Message{Message: "Verification request rejected"}}}, nil
}
