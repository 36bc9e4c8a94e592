package server

import (
	"context"
	"net/http"

	"github.com/svc-directory/svc/gen"
)

// AcceptVerificationRequest attests the requester's domain.
func (s *Server) AcceptVerificationRequest(ctx context.Context, req gen.AcceptVerificationRequestRequestObject) (gen.AcceptVerificationRequestResponseObject, error) {
	u := caller(ctx)
	r, err := s.domains.Accept(ctx, req.RequestId, *u, s.didOf(u))
	if d, err := asDenial(verifyDenial(err, "Verification request not found")); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.AcceptVerificationRequest404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.AcceptVerificationRequest403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.AcceptVerificationRequest409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	out := gen.AcceptVerificationRequest200JSONResponse{Message: "Verification request accepted"}
	out.Data.RequestId, out.Data.RegistryId, out.Data.RecordId = r.RequestID, r.RegistryID, r.RecordID
	return out, nil
}

// RejectVerificationRequest declines a request.
func (s *Server) RejectVerificationRequest(ctx context.Context, req gen.RejectVerificationRequestRequestObject) (gen.RejectVerificationRequestResponseObject, error) {
	_, err := s.domains.Reject(ctx, req.RequestId, *caller(ctx))
	if d, err := asDenial(verifyDenial(err, "Verification request not found")); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.RejectVerificationRequest404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.RejectVerificationRequest403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.RejectVerificationRequest409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.RejectVerificationRequest200JSONResponse{MessageJSONResponse: gen.MessageJSONResponse{Message: "Verification request rejected"}}, nil
}
