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
	if d, err := asDenial(storeDenial(err, msgNamespaceMissing)); err != nil {
		return nil, err
	} else if d != nil {
		return gen.CreateNamespace400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
	}
	return gen.CreateNamespace201JSONResponse{Message: "Namespace created", Data: s.namespaceOut(ns)}, nil
}

// UpdateNamespace makes a new version of a namespace.
func (s *Server) UpdateNamespace(ctx context.Context, req gen.UpdateNamespaceRequestObject) (gen.UpdateNamespaceResponseObject, error) {
	ns, err := s.updateNamespace(ctx, req)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.UpdateNamespace404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.UpdateNamespace403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusPreconditionFailed:
			return gen.UpdateNamespace412JSONResponse{PreconditionFailedJSONResponse: preconditionBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.UpdateNamespace400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.UpdateNamespace200JSONResponse{Message: "Namespace updated", Data: s.namespaceOut(ns)}, nil
}

func (s *Server) updateNamespace(ctx context.Context, req gen.UpdateNamespaceRequestObject) (store.Namespace, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return store.Namespace{}, err
	}
	ifMatch, err := parseIfMatch(req.Params.IfMatch)
	if err != nil {
		return store.Namespace{}, err
	}
	b := req.Body
	ns, err := s.store.UpdateNamespace(ctx, id, ifMatch, store.NamespacePatch{Name: b.Name, Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl})
	return ns, storeDenial(err, msgNamespaceMissing)
}

// CreateRegistry creates a registry with a custom or built-in schema.
func (s *Server) CreateRegistry(ctx context.Context, req gen.CreateRegistryRequestObject) (gen.CreateRegistryResponseObject, error) {
	reg, err := s.createRegistry(ctx, req)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.CreateRegistry404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.CreateRegistry403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.CreateRegistry409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.CreateRegistry400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.CreateRegistry201JSONResponse{Message: "Registry created", Data: s.registryOut(reg)}, nil
}

func (s *Server) createRegistry(ctx context.Context, req gen.CreateRegistryRequestObject) (store.Registry, error) {
	id, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return store.Registry{}, err
	}
	b := req.Body
	tag := recordschema.TagCustom
	if b.Tag != nil {
		tag = string(*b.Tag)
	}
	schema := mapPtr(b.Schema)
	switch {
	case tag == recordschema.TagCustom && schema == nil:
		return store.Registry{}, &denial{http.StatusBadRequest, "Invalid input: schema is missing (a custom registry needs a JSON Schema for its records' details)"}
	case tag != recordschema.TagCustom && schema != nil:
		return store.Registry{}, &denial{http.StatusBadRequest, fmt.Sprintf("Invalid input: schema must not be given for tag %s, which has a built-in schema", tag)}
	case tag != recordschema.TagCustom:
		schema = recordschema.Builtin(tag)
	}
	if _, err := recordschema.Compile(schema); err != nil {
		return store.Registry{}, &denial{http.StatusBadRequest, "Invalid input: " + err.Error()}
	}
	reg, err := s.store.CreateRegistry(ctx, id, s.didOf(caller(ctx)), store.RegistryInput{
		RegistryName: b.RegistryName, Description: strVal(b.Description), Tag: tag, Schema: schema,
		Meta: mapPtr(b.Meta), TTL: b.Ttl, QueryAllowed: b.QueryAllowed,
	})
	return reg, storeDenial(err, msgNamespaceMissing)
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
	return reg, storeDenial(err, "Registry not found")
}

// UpdateRegistry makes a new version of a registry.
func (s *Server) UpdateRegistry(ctx context.Context, req gen.UpdateRegistryRequestObject) (gen.UpdateRegistryResponseObject, error) {
	b := req.Body
	reg, err := s.updateRegistry(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch,
		store.RegistryPatch{Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl, QueryAllowed: b.QueryAllowed})
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.UpdateRegistry404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.UpdateRegistry403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusPreconditionFailed:
			return gen.UpdateRegistry412JSONResponse{PreconditionFailedJSONResponse: preconditionBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.UpdateRegistry400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.UpdateRegistry200JSONResponse{Message: "Registry updated", Data: s.registryOut(reg)}, nil
}

// DeactivateRegistry makes a new version with state inactive.
func (s *Server) DeactivateRegistry(ctx context.Context, req gen.DeactivateRegistryRequestObject) (gen.DeactivateRegistryResponseObject, error) {
	state := store.StateInactive
	reg, err := s.updateRegistry(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch, store.RegistryPatch{State: &state})
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.DeactivateRegistry404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusPreconditionFailed:
			return gen.DeactivateRegistry412JSONResponse{PreconditionFailedJSONResponse: preconditionBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.DeactivateRegistry400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.DeactivateRegistry403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.DeactivateRegistry200JSONResponse{Message: "Registry deactivated", Data: s.registryOut(reg)}, nil
}

// ActivateRegistry makes a new version with state live.
func (s *Server) ActivateRegistry(ctx context.Context, req gen.ActivateRegistryRequestObject) (gen.ActivateRegistryResponseObject, error) {
	state := store.StateLive
	reg, err := s.updateRegistry(ctx, req.Namespace, req.RegistryName, req.Params.IfMatch, store.RegistryPatch{State: &state})
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.ActivateRegistry404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusPreconditionFailed:
			return gen.ActivateRegistry412JSONResponse{PreconditionFailedJSONResponse: preconditionBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.ActivateRegistry400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.ActivateRegistry403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.ActivateRegistry200JSONResponse{Message: "Registry activated", Data: s.registryOut(reg)}, nil
}

// checkDetails applies the registry's schema to a record's details (their size limit,
// store.MaxDetails, is checked where they are canonicalized, once, in the store).
func checkDetails(details map[string]any, schema *recordschema.Schema, at string) error {
	if err := schema.Validate(details); err != nil {
		return &denial{http.StatusBadRequest, "Invalid input: " + at + err.Error()}
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

// writableRegistry authorizes a record write and returns the registry with its compiled schema.
func (s *Server) writableRegistry(ctx context.Context, ref, name string) (string, *recordschema.Schema, error) {
	id, err := s.authorizeWrite(ctx, ref, false)
	if err != nil {
		return "", nil, err
	}
	reg, err := s.store.GetRegistry(ctx, id, name, store.VersionSel{})
	if err != nil {
		return "", nil, storeDenial(err, "Registry not found")
	}
	if reg.State != store.StateLive {
		return "", nil, &denial{http.StatusConflict, "Conflict: the registry is inactive; records cannot be added or changed"}
	}
	schema, err := s.schemas.Get(reg.RegistryID, reg.Schema)
	if err != nil {
		return "", nil, fmt.Errorf("registry %s has a schema that does not compile: %w", reg.RegistryID, err)
	}
	return id, schema, nil
}

// AddRecord adds one record.
func (s *Server) AddRecord(ctx context.Context, req gen.AddRecordRequestObject) (gen.AddRecordResponseObject, error) {
	rec, err := s.addRecord(ctx, req)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.AddRecord404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.AddRecord403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.AddRecord409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.AddRecord400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.AddRecord201JSONResponse{Message: "Record added", Data: s.recordOut(rec)}, nil
}

func (s *Server) addRecord(ctx context.Context, req gen.AddRecordRequestObject) (store.Record, error) {
	id, schema, err := s.writableRegistry(ctx, req.Namespace, req.RegistryName)
	if err != nil {
		return store.Record{}, err
	}
	in, err := recordInput(*req.Body, schema, "")
	if err != nil {
		return store.Record{}, err
	}
	// The answer is the version this call wrote, not whatever a concurrent update made after it.
	rec, err := s.store.AddRecord(ctx, id, req.RegistryName, s.didOf(caller(ctx)), in)
	return rec, storeDenial(err, "Registry not found")
}

// AddRecords adds up to 1000 records, all or none.
func (s *Server) AddRecords(ctx context.Context, req gen.AddRecordsRequestObject) (gen.AddRecordsResponseObject, error) {
	added, err := s.addRecords(ctx, req)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.AddRecords404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.AddRecords403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.AddRecords409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.AddRecords400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	out := gen.AddRecords201JSONResponse{Message: fmt.Sprintf("%d records added", len(added))}
	out.Data.Records = make([]gen.AddedRecord, len(added))
	for i, a := range added {
		out.Data.Records[i] = gen.AddedRecord{RecordName: a.RecordName, RecordId: a.RecordID, Digest: a.Digest, Version: a.Version}
	}
	return out, nil
}

func (s *Server) addRecords(ctx context.Context, req gen.AddRecordsRequestObject) ([]store.AddedRecord, error) {
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
	return added, storeDenial(err, "Registry not found")
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
	return rec, storeDenial(err, "Record not found")
}

// UpdateRecord makes a new version of a record.
func (s *Server) UpdateRecord(ctx context.Context, req gen.UpdateRecordRequestObject) (gen.UpdateRecordResponseObject, error) {
	b := req.Body
	p := store.RecordPatch{Details: mapPtr(b.Details), Description: b.Description, Meta: mapPtr(b.Meta), TTL: b.Ttl, ValidTill: b.ValidTill}
	if b.ValidTill == nil && info(ctx).nullMember("valid_till") {
		p.ClearValidTo = true
	}
	rec, err := s.updateRecord(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.IfMatch, p)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.UpdateRecord404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.UpdateRecord403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.UpdateRecord409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		case http.StatusPreconditionFailed:
			return gen.UpdateRecord412JSONResponse{PreconditionFailedJSONResponse: preconditionBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.UpdateRecord400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.UpdateRecord200JSONResponse{Message: "Record updated", Data: s.recordOut(rec)}, nil
}

// PublishRecord moves a draft record to live.
func (s *Server) PublishRecord(ctx context.Context, req gen.PublishRecordRequestObject) (gen.PublishRecordResponseObject, error) {
	live := store.StateLive
	rec, err := s.updateRecord(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.IfMatch, store.RecordPatch{State: &live})
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.PublishRecord404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.PublishRecord403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusPreconditionFailed:
			return gen.PublishRecord412JSONResponse{PreconditionFailedJSONResponse: preconditionBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.PublishRecord400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.PublishRecord409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.PublishRecord200JSONResponse{Message: "Record published", Data: s.recordOut(rec)}, nil
}
