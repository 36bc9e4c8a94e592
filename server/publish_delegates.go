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
	if err := namespaceGiven(req.Namespace); err != nil {
		return nil, err
	}
	id, err := s.entries.AddDelegate(ctx, s.callerOf(ctx), req.Namespace, string(req.Body.Email))
	if err != nil {
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
	if err := namespaceGiven(req.Namespace); err != nil {
		return nil, err
	}
	id, err := s.entries.RemoveDelegate(ctx, s.callerOf(ctx), req.Namespace, string(req.Body.Email))
	if err != nil {
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

// Registry delegates (docs/delegates.md): the namespace's owner and delegates manage who else
// may write one registry's records.

func (s *Server) registryDelegatesData(ctx context.Context, namespaceID, registry, message string) (gen.RegistryDelegatesJSONResponse, error) {
	ds, err := s.store.RegistryDelegates(ctx, namespaceID, registry)
	if err != nil {
		return gen.RegistryDelegatesJSONResponse{}, notFound(err, "Registry not found")
	}
	out := gen.RegistryDelegatesJSONResponse{Message: message}
	out.Data.NamespaceId, out.Data.RegistryName = namespaceID, registry
	out.Data.Delegates = make([]gen.RegistryDelegate, len(ds))
	for i, d := range ds {
		out.Data.Delegates[i] = gen.RegistryDelegate{Email: d.Email, AddedAt: ts(d.AddedAt)}
	}
	return out, nil
}

// AddRegistryDelegate lets a member of the namespace add a delegate of one registry.
func (s *Server) AddRegistryDelegate(ctx context.Context, req gen.AddRegistryDelegateRequestObject) (gen.AddRegistryDelegateResponseObject, error) {
	if err := namespaceGiven(req.Namespace); err != nil {
		return nil, err
	}
	id, err := s.entries.AddRegistryDelegate(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName, string(req.Body.Email))
	if err != nil {
		return nil, namespaceNotFound(err)
	}
	data, err := s.registryDelegatesData(ctx, id, req.RegistryName, "Registry delegate added")
	if err != nil {
		return nil, err
	}
	return gen.AddRegistryDelegate200JSONResponse{RegistryDelegatesAfterWriteJSONResponse: gen.RegistryDelegatesAfterWriteJSONResponse{Body: gen.RegistryDelegatesResponse(data)}}, nil
}

// RemoveRegistryDelegate lets a member of the namespace remove a delegate of one registry.
func (s *Server) RemoveRegistryDelegate(ctx context.Context, req gen.RemoveRegistryDelegateRequestObject) (gen.RemoveRegistryDelegateResponseObject, error) {
	if err := namespaceGiven(req.Namespace); err != nil {
		return nil, err
	}
	id, err := s.entries.RemoveRegistryDelegate(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName, string(req.Body.Email))
	if err != nil {
		return nil, notFound(err, "Registry delegate not found")
	}
	data, err := s.registryDelegatesData(ctx, id, req.RegistryName, "Registry delegate removed")
	if err != nil {
		return nil, err
	}
	return gen.RemoveRegistryDelegate200JSONResponse{RegistryDelegatesAfterWriteJSONResponse: gen.RegistryDelegatesAfterWriteJSONResponse{Body: gen.RegistryDelegatesResponse(data)}}, nil
}

// GetRegistryDelegates lists the delegates of one registry, for the namespace's members.
func (s *Server) GetRegistryDelegates(ctx context.Context, req gen.GetRegistryDelegatesRequestObject) (gen.GetRegistryDelegatesResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return nil, err
	}
	data, err := s.registryDelegatesData(ctx, id, req.RegistryName, "Registry delegates retrieved")
	if err != nil {
		return nil, err
	}
	return gen.GetRegistryDelegates200JSONResponse{RegistryDelegatesJSONResponse: gen.RegistryDelegatesJSONResponse(data)}, nil
}
