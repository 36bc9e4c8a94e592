package server

import (
	"context"

	"github.com/svc-directory/svc/gen"
)

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
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return nil, err
	}
	if err := s.store.AddRegistryDelegate(ctx, id, req.RegistryName, string(req.Body.Email)); err != nil {
		return nil, notFound(err, "Registry not found")
	}
	data, err := s.registryDelegatesData(ctx, id, req.RegistryName, "Registry delegate added")
	if err != nil {
		return nil, err
	}
	return gen.AddRegistryDelegate200JSONResponse{RegistryDelegatesAfterWriteJSONResponse: gen.RegistryDelegatesAfterWriteJSONResponse{Body: gen.RegistryDelegatesResponse(data)}}, nil
}

// RemoveRegistryDelegate lets a member of the namespace remove a delegate of one registry.
func (s *Server) RemoveRegistryDelegate(ctx context.Context, req gen.RemoveRegistryDelegateRequestObject) (gen.RemoveRegistryDelegateResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return nil, err
	}
	if err := s.store.RemoveRegistryDelegate(ctx, id, req.RegistryName, string(req.Body.Email)); err != nil {
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
