package server

import (
	"context"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
)

// The changes of state of registries and records (docs/lifecycle.md): each is a new version
// made by the store's lifecycle table (store/lifecycle.go), which also refuses the illegal
// ones with a 409.

// registryAction changes a registry's state.
func (s *Server) registryAction(ctx context.Context, ns, registry string, ifMatch *string, a directory.Action) (gen.Registry, error) {
	reg, err := s.updateRegistry(ctx, ns, registry, ifMatch, directory.RegistryPatch{Action: a})
	if err != nil {
		return gen.Registry{}, err
	}
	return s.registryOut(reg), nil
}

// recordAction changes a record's state.
func (s *Server) recordAction(ctx context.Context, ns, registry, record string, ifMatch *string, a directory.Action) (gen.Record, error) {
	rec, err := s.updateRecord(ctx, ns, registry, record, ifMatch, directory.RecordPatch{Action: a})
	if err != nil {
		return gen.Record{}, err
	}
	return s.recordOut(rec), nil
}

// DeactivateRegistry: live to inactive.
func (s *Server) DeactivateRegistry(ctx context.Context, req gen.DeactivateRegistryRequestObject) (gen.DeactivateRegistryResponseObject, error) {
	reg, err := s.registryAction(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch, directory.ActionDeactivate)
	if err != nil {
		return nil, err
	}
	return gen.DeactivateRegistry200JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry deactivated", Data: reg}}, nil
}

// ActivateRegistry: inactive to live.
func (s *Server) ActivateRegistry(ctx context.Context, req gen.ActivateRegistryRequestObject) (gen.ActivateRegistryResponseObject, error) {
	reg, err := s.registryAction(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch, directory.ActionActivate)
	if err != nil {
		return nil, err
	}
	return gen.ActivateRegistry200JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry activated", Data: reg}}, nil
}

// ArchiveRegistry: live or inactive to archived (read-only).
func (s *Server) ArchiveRegistry(ctx context.Context, req gen.ArchiveRegistryRequestObject) (gen.ArchiveRegistryResponseObject, error) {
	reg, err := s.registryAction(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch, directory.ActionArchive)
	if err != nil {
		return nil, err
	}
	return gen.ArchiveRegistry200JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry archived", Data: reg}}, nil
}

// RestoreRegistry: archived to live.
func (s *Server) RestoreRegistry(ctx context.Context, req gen.RestoreRegistryRequestObject) (gen.RestoreRegistryResponseObject, error) {
	reg, err := s.registryAction(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch, directory.ActionRestore)
	if err != nil {
		return nil, err
	}
	return gen.RestoreRegistry200JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry restored", Data: reg}}, nil
}

// RevokeRegistry: any state to revoked, for good.
func (s *Server) RevokeRegistry(ctx context.Context, req gen.RevokeRegistryRequestObject) (gen.RevokeRegistryResponseObject, error) {
	reg, err := s.registryAction(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch, directory.ActionRevoke)
	if err != nil {
		return nil, err
	}
	return gen.RevokeRegistry200JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry revoked", Data: reg}}, nil
}

// PublishRecord: draft to live.
func (s *Server) PublishRecord(ctx context.Context, req gen.PublishRecordRequestObject) (gen.PublishRecordResponseObject, error) {
	rec, err := s.recordAction(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.IfMatch, directory.ActionPublish)
	if err != nil {
		return nil, err
	}
	return gen.PublishRecord200JSONResponse{Body: gen.RecordLookupResponse{Message: "Record published", Data: rec}}, nil
}

// SuspendRecord: live to suspended.
func (s *Server) SuspendRecord(ctx context.Context, req gen.SuspendRecordRequestObject) (gen.SuspendRecordResponseObject, error) {
	rec, err := s.recordAction(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.IfMatch, directory.ActionSuspend)
	if err != nil {
		return nil, err
	}
	return gen.SuspendRecord200JSONResponse{Body: gen.RecordLookupResponse{Message: "Record suspended", Data: rec}}, nil
}

// ReinstateRecord: suspended to live.
func (s *Server) ReinstateRecord(ctx context.Context, req gen.ReinstateRecordRequestObject) (gen.ReinstateRecordResponseObject, error) {
	rec, err := s.recordAction(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.IfMatch, directory.ActionReinstate)
	if err != nil {
		return nil, err
	}
	return gen.ReinstateRecord200JSONResponse{Body: gen.RecordLookupResponse{Message: "Record reinstated", Data: rec}}, nil
}

// RevokeRecord: live or suspended to revoked, for good.
func (s *Server) RevokeRecord(ctx context.Context, req gen.RevokeRecordRequestObject) (gen.RevokeRecordResponseObject, error) {
	rec, err := s.recordAction(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.IfMatch, directory.ActionRevoke)
	if err != nil {
		return nil, err
	}
	return gen.RevokeRecord200JSONResponse{Body: gen.RecordLookupResponse{Message: "Record revoked", Data: rec}}, nil
}
