package server

import (
	"context"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
)

const msgVersions = "Versions retrieved"

// ListNamespaceVersions lists a namespace's versions, newest first.
func (s *Server) ListNamespaceVersions(ctx context.Context, req gen.ListNamespaceVersionsRequestObject) (gen.ListNamespaceVersionsResponseObject, error) {
	ns, err := s.store.GetNamespace(ctx, req.Namespace, directory.VersionSel{})
	if err != nil {
		return nil, namespaceNotFound(err)
	}
	vs, err := s.store.NamespaceVersions(ctx, ns.NamespaceID)
	if err != nil {
		return nil, err
	}
	out := gen.ListNamespaceVersions200JSONResponse{Message: msgVersions}
	out.Data.CreatedBy, out.Data.CreatedAt, out.Data.UpdatedAt = ns.CreatedBy, ts(ns.CreatedAt), ts(ns.UpdatedAt)
	out.Data.TotalVersions, out.Data.Versions, out.Data.Ttl = int64(len(vs)), vs, ns.TTL
	return out, nil
}

// ListRegistryVersions lists a registry's versions, newest first.
func (s *Server) ListRegistryVersions(ctx context.Context, req gen.ListRegistryVersionsRequestObject) (gen.ListRegistryVersionsResponseObject, error) {
	reg, err := s.lookupRegistry(ctx, req.Namespace, req.RegistryName, nil, nil)
	if err != nil {
		return nil, err
	}
	vs, err := s.store.RegistryVersions(ctx, reg.RegistryID)
	if err != nil {
		return nil, err
	}
	out := gen.ListRegistryVersions200JSONResponse{Message: msgVersions}
	out.Data.RegistryName, out.Data.Schema = reg.RegistryName, obj(reg.Schema)
	out.Data.CreatedBy, out.Data.CreatedAt, out.Data.UpdatedAt = reg.CreatedBy, ts(reg.CreatedAt), ts(reg.UpdatedAt)
	out.Data.TotalVersions, out.Data.Versions, out.Data.Ttl = int64(len(vs)), vs, reg.TTL
	return out, nil
}

// ListRecordVersions lists a record's versions, newest first.
func (s *Server) ListRecordVersions(ctx context.Context, req gen.ListRecordVersionsRequestObject) (gen.ListRecordVersionsResponseObject, error) {
	rec, err := s.lookupRecord(ctx, req.Namespace, req.RegistryName, req.RecordName, nil, nil)
	if err != nil {
		return nil, err
	}
	withDrafts, err := s.seesDrafts(ctx, rec.NamespaceID)
	if err != nil {
		return nil, err
	}
	vs, err := s.store.RecordVersions(ctx, rec.RecordID, withDrafts)
	if err != nil {
		return nil, err
	}
	out := gen.ListRecordVersions200JSONResponse{Message: msgVersions}
	out.Data.RegistryName, out.Data.RecordName, out.Data.Schema = rec.RegistryName, rec.RecordName, obj(rec.Schema)
	out.Data.CreatedBy, out.Data.CreatedAt, out.Data.UpdatedAt = rec.CreatedBy, ts(rec.CreatedAt), ts(rec.UpdatedAt)
	out.Data.TotalVersions, out.Data.Versions, out.Data.Ttl = int64(len(vs)), vs, rec.TTL
	return out, nil
}
