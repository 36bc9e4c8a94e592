package server

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/entries"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

// Delete and restore (docs/lifecycle.md, "Delete and restore"; the rules in
// directory/deleted.go): a delete writes a tombstone, a restore a new live version; no version
// is removed. The lists show what the caller may restore.

// reasonOf is the reason of an optional delete body.
func reasonOf(body *gen.DeleteRequest) string {
	if body == nil || body.Reason == nil {
		return ""
	}
	return *body.Reason
}

// DeleteNamespace writes the namespace's tombstone and releases its domain.
func (s *Server) DeleteNamespace(ctx context.Context, req gen.DeleteNamespaceRequestObject) (gen.DeleteNamespaceResponseObject, error) {
	d, err := s.entries.DeleteNamespace(ctx, s.callerOf(ctx), req.Namespace, reasonOf(req.Body))
	if err != nil {
		return nil, err
	}
	return gen.DeleteNamespace200JSONResponse{Body: s.namespaceDeleted("Namespace deleted", d)}, nil
}

// RestoreDeletedNamespace writes a new live version of a deleted namespace.
func (s *Server) RestoreDeletedNamespace(ctx context.Context, req gen.RestoreDeletedNamespaceRequestObject) (gen.RestoreDeletedNamespaceResponseObject, error) {
	d, err := s.entries.RestoreNamespace(ctx, s.callerOf(ctx), req.Body.NamespaceId)
	if err != nil {
		return nil, err
	}
	return gen.RestoreDeletedNamespace200JSONResponse{Body: s.namespaceDeleted("Namespace restored", d)}, nil
}

func (s *Server) namespaceDeleted(msg string, d entries.Deleted) gen.NamespaceDeletedResponse {
	out := gen.NamespaceDeletedResponse{Message: msg}
	out.Data.Namespace, out.Data.Registries, out.Data.Records = s.namespaceOut(d.Namespace), d.Registries, d.Records
	return out
}

// DeleteRegistry writes the registry's tombstone, which hides its records.
func (s *Server) DeleteRegistry(ctx context.Context, req gen.DeleteRegistryRequestObject) (gen.DeleteRegistryResponseObject, error) {
	d, err := s.entries.DeleteRegistry(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName, reasonOf(req.Body))
	if err != nil {
		return nil, err
	}
	return gen.DeleteRegistry200JSONResponse{Body: s.registryDeleted("Registry deleted", d)}, nil
}

// RestoreDeletedRegistry writes a new live version of a deleted registry.
func (s *Server) RestoreDeletedRegistry(ctx context.Context, req gen.RestoreDeletedRegistryRequestObject) (gen.RestoreDeletedRegistryResponseObject, error) {
	if err := namespaceGiven(req.Body.NamespaceId); err != nil {
		return nil, err
	}
	d, err := s.entries.RestoreRegistry(ctx, s.callerOf(ctx), req.Body.NamespaceId, req.Body.RegistryName)
	if err != nil {
		return nil, err
	}
	return gen.RestoreDeletedRegistry200JSONResponse{Body: s.registryDeleted("Registry restored", d)}, nil
}

func (s *Server) registryDeleted(msg string, d entries.Deleted) gen.RegistryDeletedResponse {
	out := gen.RegistryDeletedResponse{Message: msg}
	out.Data.Registry, out.Data.Records = s.registryOut(d.Registry), d.Records
	return out
}

// DeleteRecords writes the tombstones of up to 1000 records, all or none.
func (s *Server) DeleteRecords(ctx context.Context, req gen.DeleteRecordsRequestObject) (gen.DeleteRecordsResponseObject, error) {
	reason := ""
	if req.Body.Reason != nil {
		reason = *req.Body.Reason
	}
	recs, err := s.entries.DeleteRecords(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName, req.Body.Records, reason)
	if err != nil {
		return nil, err
	}
	return gen.DeleteRecords200JSONResponse{Body: s.recordsDeleted("deleted", recs)}, nil
}

// RestoreDeletedRecords writes new live versions of up to 1000 deleted records, all or none.
func (s *Server) RestoreDeletedRecords(ctx context.Context, req gen.RestoreDeletedRecordsRequestObject) (gen.RestoreDeletedRecordsResponseObject, error) {
	refs := make([]entries.RecordRef, len(req.Body.Records))
	for i, r := range req.Body.Records {
		if err := namespaceGiven(r.NamespaceId); err != nil {
			return nil, err
		}
		refs[i] = entries.RecordRef{Namespace: r.NamespaceId, Registry: r.RegistryName, Record: r.RecordName}
	}
	recs, err := s.entries.RestoreRecords(ctx, s.callerOf(ctx), refs)
	if err != nil {
		return nil, err
	}
	return gen.RestoreDeletedRecords200JSONResponse{Body: s.recordsDeleted("restored", recs)}, nil
}

func (s *Server) recordsDeleted(verb string, recs []directory.Record) gen.RecordsDeletedResponse {
	out := gen.RecordsDeletedResponse{Message: fmt.Sprintf("%d records %s", len(recs), verb)}
	out.Data.Count = int64(len(recs))
	out.Data.Records = make([]gen.Record, len(recs))
	for i, r := range recs {
		out.Data.Records[i] = s.recordOut(r)
	}
	return out
}

// deletedOptions is the store's options of a list of deleted entries.
func deletedOptions(page, size *int64, namespaceID *string, registry *string) store.DeletedOptions {
	o := store.DeletedOptions{}
	o.Page, o.Size = pageOf(page, size)
	if namespaceID != nil {
		o.Namespace = *namespaceID
	}
	if registry != nil {
		o.Registry = *registry
	}
	return o
}

func deletedPage(o store.DeletedOptions, total int64) gen.DeletedPage {
	return gen.DeletedPage{Total: total, Page: int64(o.Page), PageSize: int64(o.Size)}
}

// ListDeletedNamespaces lists the deleted namespaces the caller owns.
func (s *Server) ListDeletedNamespaces(ctx context.Context, req gen.ListDeletedNamespacesRequestObject) (gen.ListDeletedNamespacesResponseObject, error) {
	o := deletedOptions(req.Params.Page, req.Params.PageSize, nil, nil)
	list, total, err := s.store.DeletedNamespaces(ctx, s.callerOf(ctx).UserID, o)
	if err != nil {
		return nil, err
	}
	out := gen.ListDeletedNamespaces200JSONResponse{Message: "Deleted namespaces", Pagination: deletedPage(o, total),
		Data: make([]gen.DeletedNamespace, len(list))}
	for i, d := range list {
		out.Data[i] = gen.DeletedNamespace{Namespace: s.namespaceOut(d.Entry), Reason: d.Reason}
	}
	return out, nil
}

// ListDeletedRegistries lists the deleted registries the caller may restore.
func (s *Server) ListDeletedRegistries(ctx context.Context, req gen.ListDeletedRegistriesRequestObject) (gen.ListDeletedRegistriesResponseObject, error) {
	o := deletedOptions(req.Params.Page, req.Params.PageSize, req.Params.NamespaceId, nil)
	list, total, err := s.store.DeletedRegistries(ctx, s.callerOf(ctx).UserID, o)
	if err != nil {
		return nil, err
	}
	out := gen.ListDeletedRegistries200JSONResponse{Message: "Deleted registries", Pagination: deletedPage(o, total),
		Data: make([]gen.DeletedRegistry, len(list))}
	for i, d := range list {
		out.Data[i] = gen.DeletedRegistry{Registry: s.registryOut(d.Entry), Reason: d.Reason}
	}
	return out, nil
}

// ListDeletedRecords lists the deleted records the caller may restore.
func (s *Server) ListDeletedRecords(ctx context.Context, req gen.ListDeletedRecordsRequestObject) (gen.ListDeletedRecordsResponseObject, error) {
	o := deletedOptions(req.Params.Page, req.Params.PageSize, req.Params.NamespaceId, req.Params.RegistryName)
	list, total, err := s.store.DeletedRecords(ctx, s.callerOf(ctx).UserID, o)
	if err != nil {
		return nil, err
	}
	out := gen.ListDeletedRecords200JSONResponse{Message: "Deleted records", Pagination: deletedPage(o, total),
		Data: make([]gen.DeletedRecord, len(list))}
	for i, d := range list {
		out.Data[i] = gen.DeletedRecord{Record: s.recordOut(d.Entry), Reason: d.Reason}
	}
	return out, nil
}
