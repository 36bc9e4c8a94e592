package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
)

// CreateNamespace creates a namespace owned by the caller.
func (s *Server) CreateNamespace(ctx context.Context, req gen.CreateNamespaceRequestObject) (gen.CreateNamespaceResponseObject, error) {
	u := caller(ctx)
	b := req.Body
	ns, err := s.store.CreateNamespace(ctx, *u, s.didOf(u), store.NamespaceInput{
		Name: b.Name, Description: strVal(b.Description), Meta: mapPtr(b.Meta), TTL: b.Ttl,
	})
	if err != nil {
		return nil, err
	}
	return gen.CreateNamespace201JSONResponse{Body: gen.NamespaceLookupResponse{Message: "Namespace created", Data: s.namespaceOut(ns)}}, nil
}

// UpdateNamespace makes a new version of a namespace.
func (s *Server) UpdateNamespace(ctx context.Context, req gen.UpdateNamespaceRequestObject) (gen.UpdateNamespaceResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return nil, err
	}
	ifMatch, err := parseIfMatch(req.Params.IfMatch)
	if err != nil {
		return nil, err
	}
	b := req.Body
	ns, err := s.store.UpdateNamespace(ctx, id, ifMatch, store.NamespacePatch{Name: b.Name, Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl})
	if err != nil {
		return nil, namespaceNotFound(err)
	}
	return gen.UpdateNamespace200JSONResponse{Body: gen.NamespaceLookupResponse{Message: "Namespace updated", Data: s.namespaceOut(ns)}}, nil
}

// CreateRegistry creates a registry with a custom or built-in schema.
func (s *Server) CreateRegistry(ctx context.Context, req gen.CreateRegistryRequestObject) (gen.CreateRegistryResponseObject, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return nil, err
	}
	b := req.Body
	tag, schema, err := registrySchema(b.Tag, mapPtr(b.Schema))
	if err != nil {
		return nil, err
	}
	reg, err := s.store.CreateRegistry(ctx, id, s.didOf(caller(ctx)), store.RegistryInput{
		RegistryName: b.RegistryName, Description: strVal(b.Description), Tag: tag, Schema: schema,
		Meta: mapPtr(b.Meta), TTL: b.Ttl, QueryAllowed: b.QueryAllowed,
	})
	if err != nil {
		return nil, namespaceNotFound(err)
	}
	return gen.CreateRegistry201JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry created", Data: s.registryOut(reg)}}, nil
}

// registrySchema is a new registry's tag (default custom) and schema: a custom registry gives
// its JSON Schema, a standard tag has a built-in one.
func registrySchema(t *gen.CreateRegistryRequestTag, schema map[string]any) (string, map[string]any, error) {
	tag := recordschema.TagCustom
	if t != nil {
		tag = string(*t)
	}
	switch {
	case tag == recordschema.TagCustom && schema == nil:
		return "", nil, problem(http.StatusBadRequest, "Invalid input: schema is missing (a custom registry needs a JSON Schema for its records' details)")
	case tag != recordschema.TagCustom && schema != nil:
		return "", nil, problemf(http.StatusBadRequest, "Invalid input: schema must not be given for tag %s, which has a built-in schema", tag)
	case tag != recordschema.TagCustom:
		schema = recordschema.Builtin(tag)
	}
	if _, err := recordschema.Compile(schema); err != nil {
		return "", nil, problem(http.StatusBadRequest, "Invalid input: "+err.Error())
	}
	return tag, schema, nil
}

// updateRegistry is the shared path of update, activate and deactivate.
func (s *Server) updateRegistry(ctx context.Context, ref, name string, ifMatchHeader *string, p store.RegistryPatch) (store.Registry, error) {
	id, err := s.authorizeWrite(ctx, ref, false)
	if err != nil {
		return store.Registry{}, err
	}
	ifMatch, err := parseIfMatch(ifMatchHeader)
	if err != nil {
		return store.Registry{}, err
	}
	reg, err := s.store.UpdateRegistry(ctx, id, name, ifMatch, p)
	return reg, notFound(err, "Registry not found")
}

// UpdateRegistry makes a new version of a registry.
func (s *Server) UpdateRegistry(ctx context.Context, req gen.UpdateRegistryRequestObject) (gen.UpdateRegistryResponseObject, error) {
	b := req.Body
	reg, err := s.updateRegistry(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch,
		store.RegistryPatch{Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl, QueryAllowed: b.QueryAllowed})
	if err != nil {
		return nil, err
	}
	return gen.UpdateRegistry200JSONResponse{Body: gen.RegistryLookupResponse{Message: "Registry updated", Data: s.registryOut(reg)}}, nil
}

// checkDetails applies the registry's schema to a record's details (their size limit,
// store.MaxDetails, is checked where they are canonicalized, once, in the store).
func checkDetails(details map[string]any, schema *recordschema.Schema, at string) error {
	if err := schema.Validate(details); err != nil {
		return problem(http.StatusBadRequest, "Invalid input: "+at+err.Error())
	}
	return nil
}

// recordInput converts and validates one add-record body against the registry's schema.
func recordInput(b gen.AddRecordRequest, schema *recordschema.Schema, at string) (store.RecordInput, error) {
	details := mapPtr(b.Details)
	if err := checkDetails(details, schema, at); err != nil {
		return store.RecordInput{}, err
	}
	in := store.RecordInput{RecordName: b.RecordName, Description: strVal(b.Description), Details: details,
		Meta: mapPtr(b.Meta), TTL: b.Ttl, ValidTill: b.ValidTill}
	if b.State != nil {
		in.State = string(*b.State)
	}
	return in, nil
}

// recordsRegistry authorizes a record write (a member of the namespace, or a delegate of the
// registry) and returns the registry, which must be live.
func (s *Server) recordsRegistry(ctx context.Context, ref, name string) (store.Registry, error) {
	id, err := s.authorizeRecordWrite(ctx, ref, name)
	if err != nil {
		return store.Registry{}, err
	}
	reg, err := s.store.GetRegistry(ctx, id, name, store.VersionSel{})
	if err != nil {
		return store.Registry{}, notFound(err, "Registry not found")
	}
	if err := store.RegistryWritable(reg.State); err != nil {
		return store.Registry{}, err
	}
	return reg, nil
}

// writableRegistry is recordsRegistry's namespace id, with the registry's compiled schema.
func (s *Server) writableRegistry(ctx context.Context, ref, name string) (string, *recordschema.Schema, error) {
	reg, err := s.recordsRegistry(ctx, ref, name)
	if err != nil {
		return "", nil, err
	}
	schema, err := s.schemas.Get(reg.RegistryID, reg.Schema)
	if err != nil {
		return "", nil, fmt.Errorf("registry %s has a schema that does not compile: %w", reg.RegistryID, err)
	}
	return reg.NamespaceID, schema, nil
}

// AddRecord adds one record.
func (s *Server) AddRecord(ctx context.Context, req gen.AddRecordRequestObject) (gen.AddRecordResponseObject, error) {
	id, schema, err := s.writableRegistry(ctx, req.Namespace, req.RegistryName)
	if err != nil {
		return nil, err
	}
	in, err := recordInput(*req.Body, schema, "")
	if err != nil {
		return nil, err
	}
	// The answer is the version this call wrote, not whatever a concurrent update made after it.
	rec, err := s.store.AddRecord(ctx, id, req.RegistryName, s.didOf(caller(ctx)), in)
	if err != nil {
		return nil, notFound(err, "Registry not found")
	}
	return gen.AddRecord201JSONResponse{Body: gen.RecordLookupResponse{Message: "Record added", Data: s.recordOut(rec)}}, nil
}

// AddRecords adds up to 1000 records, all or none.
func (s *Server) AddRecords(ctx context.Context, req gen.AddRecordsRequestObject) (gen.AddRecordsResponseObject, error) {
	id, schema, err := s.writableRegistry(ctx, req.Namespace, req.RegistryName)
	if err != nil {
		return nil, err
	}
	ins := make([]store.RecordInput, len(req.Body.Records))
	for i, b := range req.Body.Records {
		if ins[i], err = recordInput(b, schema, fmt.Sprintf("records[%d] (%s): ", i, b.RecordName)); err != nil {
			return nil, err
		}
	}
	added, err := s.store.AddRecords(ctx, id, req.RegistryName, s.didOf(caller(ctx)), ins)
	if err != nil {
		return nil, notFound(err, "Registry not found")
	}
	out := gen.AddRecords201JSONResponse{Body: gen.AddRecordsResponse{Message: fmt.Sprintf("%d records added", len(added))}}
	out.Body.Data.Records = make([]gen.AddedRecord, len(added))
	for i, a := range added {
		out.Body.Data.Records[i] = gen.AddedRecord{RecordName: a.RecordName, RecordId: a.RecordID, Digest: a.Digest, Version: a.Version}
	}
	return out, nil
}

// updateRecord is the shared path of update-record and publish-record.
func (s *Server) updateRecord(ctx context.Context, ref, registry, record string, ifMatchHeader *string, p store.RecordPatch) (store.Record, error) {
	id, schema, err := s.writableRegistry(ctx, ref, registry)
	if err != nil {
		return store.Record{}, err
	}
	ifMatch, err := parseIfMatch(ifMatchHeader)
	if err != nil {
		return store.Record{}, err
	}
	if p.Details != nil {
		if err := checkDetails(p.Details, schema, ""); err != nil {
			return store.Record{}, err
		}
	}
	rec, err := s.store.UpdateRecord(ctx, id, registry, record, ifMatch, p)
	return rec, notFound(err, "Record not found")
}

// UpdateRecord makes a new version of a record.
func (s *Server) UpdateRecord(ctx context.Context, req gen.UpdateRecordRequestObject) (gen.UpdateRecordResponseObject, error) {
	b := req.Body
	p := store.RecordPatch{Details: mapPtr(b.Details), Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl, ValidTill: b.ValidTill}
	if b.ValidTill == nil && info(ctx).nullMember("valid_till") {
		p.ClearValidTo = true
	}
	rec, err := s.updateRecord(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.IfMatch, p)
	if err != nil {
		return nil, err
	}
	return gen.UpdateRecord200JSONResponse{Body: gen.RecordLookupResponse{Message: "Record updated", Data: s.recordOut(rec)}}, nil
}
