package server

import (
	"context"

	"github.com/svc-directory/svc/gen"
)

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
	if err != nil {
		return nil, err
	}
	if err := s.store.AddDelegate(ctx, id, string(req.Body.Email)); err != nil {
		return nil, namespaceNotFound(err)
	}
	data, err := s.delegatesData(ctx, id)
	if err != nil {
		return nil, err
	}
	data.Message = "Delegate added"
	return gen.AddDelegate200JSONResponse{DelegatesAfterWriteJSONResponse: gen.DelegatesAfterWriteJSONResponse{Body: data}}, nil
}

// RemoveDelegate lets the owner remove a delegate.
func (s *Server) RemoveDelegate(ctx context.Context, req gen.RemoveDelegateRequestObject) (gen.RemoveDelegateResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, true)
	if err != nil {
		return nil, err
	}
	if err := s.store.RemoveDelegate(ctx, id, string(req.Body.Email)); err != nil {
		return nil, notFound(err, "Delegate not found")
	}
	data, err := s.delegatesData(ctx, id)
	if err != nil {
		return nil, err
	}
	data.Message = "Delegate removed"
	return gen.RemoveDelegate200JSONResponse{DelegatesAfterWriteJSONResponse: gen.DelegatesAfterWriteJSONResponse{Body: data}}, nil
}

// GetDelegates lists the owner and delegates (to the owner and delegates).
func (s *Server) GetDelegates(ctx context.Context, req gen.GetDelegatesRequestObject) (gen.GetDelegatesResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return nil, err
	}
	data, err := s.delegatesData(ctx, id)
	if err != nil {
		return nil, err
	}
	return gen.GetDelegates200JSONResponse{DelegatesJSONResponse: gen.DelegatesJSONResponse(data)}, nil
}
