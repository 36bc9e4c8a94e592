package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

// versionSel turns version_id / as_on into a store selection (not both: 400).
func versionSel(versionID *string, asOn *openapi_types.Date) (store.VersionSel, error) {
	if versionID != nil && asOn != nil {
		return store.VersionSel{}, problem(http.StatusBadRequest, "Invalid input: version_id and as_on cannot be used together")
	}
	var sel store.VersionSel
	if versionID != nil {
		sel.VersionID = *versionID
	}
	if asOn != nil {
		d := asOn.Time
		sel.Before = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	}
	return sel, nil
}

// lookupMiss explains a lookup that found nothing: the entry is unknown, or it exists but not
// at the selected version or date.
func lookupMiss(err error, entity string, sel store.VersionSel, exists func() error) error {
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if sel.VersionID == "" && sel.Before.IsZero() {
		return problem(http.StatusNotFound, entity+" not found")
	}
	switch e := exists(); {
	case errors.Is(e, store.ErrNotFound):
		return problem(http.StatusNotFound, entity+" not found")
	case e != nil:
		return e
	case sel.VersionID != "":
		return problem(http.StatusNotFound, fmt.Sprintf("Version %s of this %s not found", sel.VersionID, strings.ToLower(entity)))
	default:
		return problem(http.StatusNotFound, fmt.Sprintf("%s did not exist yet on %s", entity, sel.Before.AddDate(0, 0, -1).Format(time.DateOnly)))
	}
}

// etagMatches applies If-None-Match to an entry's digest.
func etagMatches(header *string, digest string) bool {
	if header == nil {
		return false
	}
	for _, t := range strings.Split(*header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == `"`+digest+`"` {
			return true
		}
	}
	return false
}

func cacheHeaders(digest string, ttl int64) (etag, cacheControl *string) {
	e := `"` + digest + `"`
	c := fmt.Sprintf("public, max-age=%d", ttl)
	return &e, &c
}

// LookupNamespace returns a namespace with its proof.
func (s *Server) LookupNamespace(ctx context.Context, req gen.LookupNamespaceRequestObject) (gen.LookupNamespaceResponseObject, error) {
	latest := req.Params.VersionId == nil && req.Params.AsOn == nil
	key := "n\x00" + req.Namespace
	var generation uint64
	if latest && s.cache != nil {
		if e, ok := s.cache.Get(key); ok {
			if etagMatches(req.Params.IfNoneMatch, e.digest) {
				return gen.LookupNamespace304Response{}, nil
			}
			return e, nil
		}
		generation = s.cache.Generation()
	}
	ns, err := s.lookupNamespace(ctx, req)
	if err != nil {
		return nil, err
	}
	if etagMatches(req.Params.IfNoneMatch, ns.Digest) {
		return gen.LookupNamespace304Response{}, nil
	}
	body := gen.NamespaceLookupResponse{Message: "Namespace found", Data: s.namespaceOut(ns)}
	if latest && s.cache != nil {
		e, err := render(body, ns.Digest, ns.TTL)
		if err != nil {
			return nil, err
		}
		s.cache.SetIfUnchanged(generation, key, e)
		return e, nil
	}
	out := gen.LookupNamespace200JSONResponse{Body: body}
	out.Headers.ETag, out.Headers.CacheControl = cacheHeaders(ns.Digest, ns.TTL)
	return out, nil
}

func (s *Server) lookupNamespace(ctx context.Context, req gen.LookupNamespaceRequestObject) (store.Namespace, error) {
	sel, err := versionSel(req.Params.VersionId, req.Params.AsOn)
	if err != nil {
		return store.Namespace{}, err
	}
	ns, err := s.store.GetNamespace(ctx, req.Namespace, sel)
	return ns, lookupMiss(err, "Namespace", sel, func() error {
		_, err := s.store.GetNamespace(ctx, req.Namespace, store.VersionSel{})
		return err
	})
}

// LookupRegistry returns a registry with its proof.
func (s *Server) LookupRegistry(ctx context.Context, req gen.LookupRegistryRequestObject) (gen.LookupRegistryResponseObject, error) {
	latest := req.Params.VersionId == nil && req.Params.AsOn == nil
	key := "g\x00" + req.Namespace + "\x00" + req.RegistryName
	var generation uint64
	if latest && s.cache != nil {
		if e, ok := s.cache.Get(key); ok {
			if etagMatches(req.Params.IfNoneMatch, e.digest) {
				return gen.LookupRegistry304Response{}, nil
			}
			return e, nil
		}
		generation = s.cache.Generation()
	}
	reg, err := s.lookupRegistry(ctx, req.Namespace, req.RegistryName, req.Params.VersionId, req.Params.AsOn)
	if err != nil {
		return nil, err
	}
	if etagMatches(req.Params.IfNoneMatch, reg.Digest) {
		return gen.LookupRegistry304Response{}, nil
	}
	body := gen.RegistryLookupResponse{Message: "Registry found", Data: s.registryOut(reg)}
	if latest && s.cache != nil {
		e, err := render(body, reg.Digest, reg.TTL)
		if err != nil {
			return nil, err
		}
		s.cache.SetIfUnchanged(generation, key, e)
		return e, nil
	}
	out := gen.LookupRegistry200JSONResponse{Body: body}
	out.Headers.ETag, out.Headers.CacheControl = cacheHeaders(reg.Digest, reg.TTL)
	return out, nil
}

// lookupRegistry reads a registry, telling an unknown namespace from an unknown registry.
func (s *Server) lookupRegistry(ctx context.Context, nsRef, name string, versionID *string, asOn *openapi_types.Date) (store.Registry, error) {
	sel, err := versionSel(versionID, asOn)
	if err != nil {
		return store.Registry{}, err
	}
	reg, err := s.store.GetRegistry(ctx, nsRef, name, sel)
	if errors.Is(err, store.ErrNotFound) {
		if _, err := s.resolveNamespace(ctx, nsRef); err != nil {
			return store.Registry{}, err
		}
	}
	return reg, lookupMiss(err, "Registry", sel, func() error {
		_, err := s.store.GetRegistry(ctx, nsRef, name, store.VersionSel{})
		return err
	})
}

// LookupRecord returns a record with its proof; an expired record says so in the message.
func (s *Server) LookupRecord(ctx context.Context, req gen.LookupRecordRequestObject) (gen.LookupRecordResponseObject, error) {
	latest := req.Params.VersionId == nil && req.Params.AsOn == nil
	key := "r\x00" + req.Namespace + "\x00" + req.RegistryName + "\x00" + req.RecordName
	var generation uint64
	if latest && s.cache != nil {
		if e, ok := s.cache.Get(key); ok {
			if etagMatches(req.Params.IfNoneMatch, e.digest) {
				return gen.LookupRecord304Response{}, nil
			}
			return e, nil
		}
		generation = s.cache.Generation()
	}
	rec, err := s.lookupRecord(ctx, req.Namespace, req.RegistryName, req.RecordName, req.Params.VersionId, req.Params.AsOn)
	if err != nil {
		return nil, err
	}
	if etagMatches(req.Params.IfNoneMatch, rec.Digest) {
		return gen.LookupRecord304Response{}, nil
	}
	msg := "Record found"
	if rec.ValidTill != nil && rec.ValidTill.Before(s.now()) {
		msg = "Record has been expired"
	}
	body := gen.RecordLookupResponse{Message: msg, Data: s.recordOut(rec)}
	// A record with valid_till changes its message with time: never cached.
	if latest && s.cache != nil && rec.ValidTill == nil {
		e, err := render(body, rec.Digest, rec.TTL)
		if err != nil {
			return nil, err
		}
		s.cache.SetIfUnchanged(generation, key, e)
		return e, nil
	}
	out := gen.LookupRecord200JSONResponse{Body: body}
	out.Headers.ETag, out.Headers.CacheControl = cacheHeaders(rec.Digest, rec.TTL)
	return out, nil
}

func (s *Server) lookupRecord(ctx context.Context, nsRef, registry, record string, versionID *string, asOn *openapi_types.Date) (store.Record, error) {
	sel, err := versionSel(versionID, asOn)
	if err != nil {
		return store.Record{}, err
	}
	rec, err := s.store.GetRecord(ctx, nsRef, registry, record, sel)
	if errors.Is(err, store.ErrNotFound) {
		if _, err := s.lookupRegistry(ctx, nsRef, registry, nil, nil); err != nil {
			return store.Record{}, err
		}
	}
	return rec, lookupMiss(err, "Record", sel, func() error {
		_, err := s.store.GetRecord(ctx, nsRef, registry, record, store.VersionSel{})
		return err
	})
}
