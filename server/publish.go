package server

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
)

// The publish side: each handler binds its request, makes one call of the application layer
// (package entries: authorization, schema validation and the write in one transaction), and
// renders the version it wrote.

// CreateNamespace creates a namespace owned by the caller.
func (s *Server) CreateNamespace(ctx context.Context, req gen.CreateNamespaceRequestObject) (gen.CreateNamespaceResponseObject, error) {
	b := req.Body
	ns, err := s.entries.CreateNamespace(ctx, s.callerOf(ctx), directory.NamespaceInput{
		Name: b.Name, Description: strVal(b.Description), Meta: mapPtr(b.Meta), TTL: b.Ttl,
	})
	if err != nil {
		return nil, err
	}
	return gen.CreateNamespace201JSONResponse{Body: gen.NamespaceLookupResponse{Message: "Namespace created", Data: s.namespaceOut(ns)}}, nil
}

// UpdateNamespace makes a new version of a namespace.
func (s *Server) UpdateNamespace(ctx context.Context, req gen.UpdateNamespaceRequestObject) (gen.UpdateNamespaceResponseObject, error) {
	ifMatch, err := parseIfMatch(req.Params.IfMatch)
	if err != nil {
		return nil, err
	}
	b := req.Body
	ns, err := s.entries.UpdateNamespace(ctx, s.callerOf(ctx), req.Namespace, ifMatch,
		directory.NamespacePatch{Name: b.Name, Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl})
	if err != nil {
		return nil, err
	}
	return gen.UpdateNamespace200JSONResponse{Body: gen.NamespaceLookupResponse{Message: "Namespace updated", Data: s.namespaceOut(ns)}}, nil
}

// CreateRegistry creates a registry with a custom or built-in schema.
func (s *Server) CreateRegistry(ctx context.Context, req gen.CreateRegistryRequestObject) (gen.CreateRegistryResponseObject, error) {
	b := req.Body
	in := directory.RegistryInput{RegistryName: b.RegistryName, Description: strVal(b.Description), Schema: mapPtr(b.Schema),
		Meta: mapPtr(b.Meta), TTL: b.Ttl, QueryAllowed: b.QueryAllowed}
	if b.Tag != nil {
		in.Tag = string(*b.Tag)
	}
	reg, err := s.entries.CreateRegistry(ctx, s.callerOf(ctx), req.Namespace, in)
	if err != nil {
		return nil, err
	}
	return gen.CreateRegistry201JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry created", Data: s.registryOut(reg)}}, nil
}

// updateRegistry is the shared path of update-registry and the registry's changes of state.
func (s *Server) updateRegistry(ctx context.Context, ref, name string, ifMatchHeader *string, p directory.RegistryPatch) (directory.Registry, error) {
	ifMatch, err := parseIfMatch(ifMatchHeader)
	if err != nil {
		return directory.Registry{}, err
	}
	return s.entries.UpdateRegistry(ctx, s.callerOf(ctx), ref, name, ifMatch, p)
}

// UpdateRegistry makes a new version of a registry.
func (s *Server) UpdateRegistry(ctx context.Context, req gen.UpdateRegistryRequestObject) (gen.UpdateRegistryResponseObject, error) {
	b := req.Body
	reg, err := s.updateRegistry(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch,
		directory.RegistryPatch{Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl, QueryAllowed: b.QueryAllowed})
	if err != nil {
		return nil, err
	}
	return gen.UpdateRegistry200JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry updated", Data: s.registryOut(reg)}}, nil
}

// recordInput converts one add-record body.
func recordInput(b gen.AddRecordRequest) directory.RecordInput {
	in := directory.RecordInput{RecordName: b.RecordName, Description: strVal(b.Description), Details: mapPtr(b.Details),
		Meta: mapPtr(b.Meta), TTL: b.Ttl, ValidTill: b.ValidTill}
	if b.State != nil {
		in.State = string(*b.State)
	}
	return in
}

// AddRecord adds one record.
func (s *Server) AddRecord(ctx context.Context, req gen.AddRecordRequestObject) (gen.AddRecordResponseObject, error) {
	// The answer is the version this call wrote, not whatever a concurrent update made after it.
	rec, err := s.entries.AddRecord(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName, recordInput(*req.Body))
	if err != nil {
		return nil, err
	}
	return gen.AddRecord201JSONResponse{Body: gen.RecordLookupResponse{Message: "Record added", Data: s.recordOut(rec)}}, nil
}

// AddRecords adds up to 1000 records, all or none.
func (s *Server) AddRecords(ctx context.Context, req gen.AddRecordsRequestObject) (gen.AddRecordsResponseObject, error) {
	ins := make([]directory.RecordInput, len(req.Body.Records))
	for i, b := range req.Body.Records {
		ins[i] = recordInput(b)
	}
	added, err := s.entries.AddRecords(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName, ins)
	if err != nil {
		return nil, err
	}
	out := gen.AddRecords201JSONResponse{Body: gen.AddRecordsResponse{Message: fmt.Sprintf("%d records added", len(added))}}
	out.Body.Data.Records = make([]gen.AddedRecord, len(added))
	for i, a := range added {
		out.Body.Data.Records[i] = gen.AddedRecord{RecordName: a.RecordName, RecordId: a.RecordID, Digest: a.Digest, Version: a.Version}
	}
	return out, nil
}

// updateRecord is the shared path of update-record and the record's changes of state.
func (s *Server) updateRecord(ctx context.Context, ref, registry, record string, ifMatchHeader *string, p directory.RecordPatch) (directory.Record, error) {
	ifMatch, err := parseIfMatch(ifMatchHeader)
	if err != nil {
		return directory.Record{}, err
	}
	return s.entries.UpdateRecord(ctx, s.callerOf(ctx), ref, registry, record, ifMatch, p)
}

// UpdateRecord makes a new version of a record.
func (s *Server) UpdateRecord(ctx context.Context, req gen.UpdateRecordRequestObject) (gen.UpdateRecordResponseObject, error) {
	b := req.Body
	p := directory.RecordPatch{Details: mapPtr(b.Details), Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl, ValidTill: b.ValidTill}
	if b.ValidTill == nil && info(ctx).nullMember("valid_till") {
		p.ClearValidTo = true
	}
	rec, err := s.updateRecord(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.IfMatch, p)
	if err != nil {
		return nil, err
	}
	return gen.UpdateRecord200JSONResponse{Body: gen.RecordLookupResponse{Message: "Record updated", Data: s.recordOut(rec)}}, nil
}
