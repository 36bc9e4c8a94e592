package server

import (
	"context"
	"net/http"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/proof"
)

// parseObject parses a raw body (already checked strict by the middleware) as an object.
func parseObject(body []byte) (map[string]any, bool) {
	if len(body) == 0 {
		return nil, false
	}
	v, err := proof.ParseJSON(body, maxJSONDepth)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

func (s *Server) delegatesData(ctx context.Context, namespaceID string) (gen.DelegatesResponse, error) {
	ms, err := s.store.Members(ctx, namespaceID)
	if err != nil {
		return gen.DelegatesResponse{}, err
	}
	out := gen.DelegatesResponse{Message: "Delegates retrieved"}
	out.Data.NamespaceId = namespaceID
	out.Data.Delegates = make([]gen.Delegate, len(ms))
	for i, m := range ms {
		out.Data.Delegates[i] = gen.Delegate{Email: m.Email, Role: gen.DelegateRole(m.Role), AddedAt: ts(m.AddedAt)}
	}
	return out, nil
}

// AddDelegate lets the owner add a delegate by email.
func (s *Server) AddDelegate(ctx context.Context, req gen.AddDelegateRequestObject) (gen.AddDelegateResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, true)
	if err == nil {
		err = storeDenial(s.store.AddDelegate(ctx, id, string(req.Body.Email)), msgNamespaceMissing)
	}
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.AddDelegate404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.AddDelegate403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.AddDelegate409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.AddDelegate400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	data, err := s.delegatesData(ctx, id)
	if err != nil {
		return nil, err
	}
	data.Message = "Delegate added"
	return gen.AddDelegate200JSONResponse{DelegatesJSONResponse: gen.DelegatesJSONResponse(data)}, nil
}

// RemoveDelegate lets the owner remove a delegate.
func (s *Server) RemoveDelegate(ctx context.Context, req gen.RemoveDelegateRequestObject) (gen.RemoveDelegateResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, true)
	if err == nil {
		err = storeDenial(s.store.RemoveDelegate(ctx, id, string(req.Body.Email)), "Delegate not found")
	}
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.RemoveDelegate404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.RemoveDelegate403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.RemoveDelegate409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.RemoveDelegate400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	data, err := s.delegatesData(ctx, id)
	if err != nil {
		return nil, err
	}
	data.Message = "Delegate removed"
	return gen.RemoveDelegate200JSONResponse{DelegatesJSONResponse: gen.DelegatesJSONResponse(data)}, nil
}

// GetDelegates lists the owner and delegates (to the owner and delegates).
func (s *Server) GetDelegates(ctx context.Context, req gen.GetDelegatesRequestObject) (gen.GetDelegatesResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		if d.status == http.StatusNotFound {
			return gen.GetDelegates404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		}
		return gen.GetDelegates403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
	}
	data, err := s.delegatesData(ctx, id)
	if err != nil {
		return nil, err
	}
	return gen.GetDelegates200JSONResponse{DelegatesJSONResponse: gen.DelegatesJSONResponse(data)}, nil
}
