package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
)

func day(d *openapi_types.Date) time.Time {
	if d == nil {
		return time.Time{}
	}
	return d.Time
}

// endOfDay is the as_on cut: the first instant after the UTC day.
func endOfDay(d *openapi_types.Date) time.Time {
	if d == nil {
		return time.Time{}
	}
	t := d.Time
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
}

func pages(total int64, size int) int64 {
	if total == 0 {
		return 0
	}
	return (total + int64(size) - 1) / int64(size)
}

func registryEntry(r directory.Registry) gen.RegistryListEntry {
	return gen.RegistryListEntry{RegistryId: r.RegistryID, RegistryName: r.RegistryName, Description: r.Description, Digest: r.Digest,
		Tag: gen.RegistryListEntryTag(r.Tag), Schema: obj(r.Schema), Genesis: r.Genesis, CreatedAt: ts(r.CreatedAt),
		UpdatedAt: ts(r.UpdatedAt), CreatedBy: r.CreatedBy, State: gen.RegistryState(r.State), Meta: obj(r.Meta),
		RecordCount: r.RecordCount, VersionCount: r.VersionCount, Version: r.Version, QueryAllowed: r.QueryAllowed, Ttl: r.TTL}
}

func recordEntry(r directory.Record, now time.Time) gen.RecordListEntry {
	return gen.RecordListEntry{RecordId: r.RecordID, RecordName: r.RecordName, Description: r.Description, Digest: r.Digest,
		Details: obj(r.Details), Genesis: r.Genesis, CreatedAt: ts(r.CreatedAt), UpdatedAt: ts(r.UpdatedAt), CreatedBy: r.CreatedBy,
		State: gen.RecordState(r.State), EffectiveState: gen.RecordEffectiveState(r.EffectiveState(now)), VersionCount: r.VersionCount, Version: r.Version, Ttl: r.TTL, Meta: obj(r.Meta)}
}

// QueryRegistries pages the registries of a namespace.
func (s *Server) QueryRegistries(ctx context.Context, req gen.QueryRegistriesRequestObject) (gen.QueryRegistriesResponseObject, error) {
	ns, err := s.store.GetNamespace(ctx, req.Namespace, directory.VersionSel{})
	if err != nil {
		return nil, namespaceNotFound(err)
	}
	p := req.Params
	page, size := pageOf(p.Page, p.PageSize)
	o := store.ListOptions{From: day(p.From), To: day(p.To), Name: strVal(p.Name), Page: page, Size: size, AsOf: endOfDay(p.AsOn)}
	if p.Sort != nil {
		o.Sort = string(*p.Sort)
	}
	if p.Status != nil {
		o.State = string(*p.Status)
		if o.State == "active" {
			o.State = directory.StateLive
		}
	}
	regs, total, err := s.store.ListRegistries(ctx, ns.NamespaceID, o)
	if err != nil {
		return nil, err
	}
	out := gen.QueryRegistries200JSONResponse{Message: "Registries found"}
	d := &out.Data
	d.NamespaceId, d.NamespaceName, d.CreatedBy = ns.NamespaceID, ns.Name, ns.CreatedBy
	if ns.Domain != "" {
		d.Domain = strPtr(ns.Domain)
	}
	d.CreatedAt, d.UpdatedAt = ts(ns.CreatedAt), ts(ns.UpdatedAt)
	d.TotalRegistries, d.TotalPages, d.PageNumber, d.PageSize = total, pages(total, size), int64(page), int64(size)
	d.Registries = make([]gen.RegistryListEntry, len(regs))
	for i, r := range regs {
		d.Registries[i] = registryEntry(r)
	}
	return out, nil
}

// queryableRegistry reads a registry whose records the caller may list: anyone's when it
// allows queries, else its namespace's owner and delegates only (403).
func (s *Server) queryableRegistry(ctx context.Context, ns, name string) (directory.Registry, error) {
	reg, err := s.lookupRegistry(ctx, ns, name, nil, nil)
	if err != nil || reg.QueryAllowed {
		return reg, err
	}
	role, err := s.memberOf(ctx, reg.NamespaceID)
	if err != nil {
		return directory.Registry{}, err
	}
	if role == "" {
		return directory.Registry{}, problem(http.StatusForbidden, "Forbidden: querying this registry is not allowed")
	}
	return reg, nil
}

// QueryRecords pages the records of a registry (403 for non-members when querying is off).
func (s *Server) QueryRecords(ctx context.Context, req gen.QueryRecordsRequestObject) (gen.QueryRecordsResponseObject, error) {
	reg, err := s.queryableRegistry(ctx, req.Namespace, req.RegistryName)
	if err != nil {
		return nil, err
	}
	p := req.Params
	page, size := pageOf(p.Page, p.PageSize)
	o := store.ListOptions{From: day(p.From), To: day(p.To), Name: strVal(p.Name), Page: page, Size: size, AsOf: endOfDay(p.AsOn)}
	if p.Sort != nil {
		o.Sort = string(*p.Sort)
	}
	if p.State != nil {
		o.State = string(*p.State)
	}
	if o.WithDrafts, err = s.seesDrafts(ctx, reg.NamespaceID); err != nil {
		return nil, err
	}
	recs, total, err := s.store.ListRecords(ctx, reg.RegistryID, o)
	if err == nil {
		err = s.withOriginStates(ctx, reg.NamespaceID, recs)
	}
	if err != nil {
		return nil, err
	}
	out := gen.QueryRecords200JSONResponse{Message: "Records found"}
	d := &out.Data
	d.NamespaceId, d.NamespaceName, d.RegistryName, d.RegistryId = reg.NamespaceID, reg.NamespaceName, reg.RegistryName, reg.RegistryID
	d.Schema, d.Meta, d.CreatedBy = obj(reg.Schema), obj(reg.Meta), reg.CreatedBy
	d.CreatedAt, d.UpdatedAt = ts(reg.CreatedAt), ts(reg.UpdatedAt)
	d.TotalRecords, d.TotalPages, d.PageNumber, d.PageSize = total, pages(total, size), int64(page), int64(size)
	d.Records = make([]gen.RecordListEntry, len(recs))
	for i, r := range recs {
		d.Records[i] = recordEntry(r, s.now())
	}
	return out, nil
}

// GetRegistriesByTag lists verified registries with a standard tag.
func (s *Server) GetRegistriesByTag(ctx context.Context, req gen.GetRegistriesByTagRequestObject) (gen.GetRegistriesByTagResponseObject, error) {
	if !recordschema.IsStandardTag(req.Tag) {
		return nil, problemf(http.StatusBadRequest, "Invalid input: tag %q is not a standard tag (one of %s; custom registries are not listed)",
			req.Tag, strings.Join(recordschema.StandardTags, ", "))
	}
	state := directory.StateLive
	if st := req.Params.Status; st != nil && *st != "active" {
		state = string(*st)
	}
	regs, err := s.store.RegistriesByTag(ctx, req.Tag, state)
	if err != nil {
		return nil, err
	}
	out := gen.GetRegistriesByTag200JSONResponse{Message: "Registries found"}
	out.Data.Tag, out.Data.TotalRegistries = req.Tag, int64(len(regs))
	out.Data.Registries = make([]gen.RegistryListEntry, len(regs))
	for i, r := range regs {
		e := registryEntry(r)
		e.NamespaceId = strPtr(r.NamespaceID)
		out.Data.Registries[i] = e
	}
	return out, nil
}
