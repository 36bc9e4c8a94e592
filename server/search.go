package server

import (
	"context"
	"errors"
	"net/http"
	"sort"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
)

// SearchRecords searches the latest records of one namespace.
func (s *Server) SearchRecords(ctx context.Context, req gen.SearchRecordsRequestObject) (gen.SearchRecordsResponseObject, error) {
	p := req.Params
	page, size := pageOf(p.Page, p.PageSize)
	o := store.SearchOptions{RegistryName: strVal(p.RegistryName), RecordName: strVal(p.RecordName), Page: page, Size: size}
	if p.From != nil {
		o.From = *p.From
	}
	if p.To != nil {
		o.To = *p.To
	}
	if p.RecordState != nil {
		o.State = string(*p.RecordState)
	}
	q := info(ctx).Query
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if directory.IsSearchParam(k) {
			continue
		}
		if !recordschema.IsDetailsPath(k) {
			return nil, problemf(http.StatusBadRequest, "Invalid input: search parameter %q is not a details path (letters, digits, _ and -, joined by dots)", k)
		}
		for _, v := range q[k] {
			if len(v) > 256 {
				return nil, problem(http.StatusBadRequest, "Invalid input: search value of "+k+" is longer than 256 characters")
			}
			o.Fields = append(o.Fields, store.FieldFilter{Path: k, Value: v})
		}
	}
	if len(o.Fields) > 16 {
		return nil, problem(http.StatusBadRequest, "Invalid input: at most 16 details conditions")
	}
	nsID, err := s.resolveNamespace(ctx, req.Namespace)
	if err != nil {
		return nil, err
	}
	role, err := s.memberOf(ctx, nsID)
	if err != nil {
		return nil, err
	}
	o.Member = role != ""
	res, err := s.store.Search(ctx, nsID, o)
	var refused *directory.Error
	if errors.As(err, &refused) {
		return nil, err // a refusal of the input keeps its 4xx through the one mapping
	}
	if err != nil {
		s.log.ErrorContext(ctx, "search failed", "namespace", nsID, "error", err)
		return gen.SearchRecords500JSONResponse{SearchFailedJSONResponse: searchFailedBody("Query failed",
			"the search could not be completed")}, nil
	}
	if err := s.withOriginStates(ctx, nsID, res.Records); err != nil {
		return nil, err
	}
	now := s.now()
	out := gen.SearchRecords200JSONResponse{Message: "Records found", Total: res.Total, TotalExact: res.TotalExact,
		Page: int64(page), PageSize: int64(size), Data: make([]gen.SearchResult, len(res.Records))}
	for i, r := range res.Records {
		out.Data[i] = gen.SearchResult{RecordId: r.RecordID, RecordName: r.RecordName, RegistryName: r.RegistryName,
			NamespaceId: r.NamespaceID, Description: r.Description, Details: obj(r.Details), State: gen.RecordState(r.State),
			EffectiveState: gen.RecordEffectiveState(r.EffectiveState(now)),
			Version:        r.Version, VersionCount: r.VersionCount, Genesis: r.Genesis, CreatedAt: ts(r.CreatedAt), UpdatedAt: ts(r.UpdatedAt),
			CreatedBy: r.CreatedBy, Ttl: r.TTL, Meta: obj(r.Meta), ValidTill: tsPtr(r.ValidTill), Latest: true}
	}
	return out, nil
}

// SearchNamespaces finds namespaces by name, verified domain or id (namespace discovery).
func (s *Server) SearchNamespaces(ctx context.Context, req gen.SearchNamespacesRequestObject) (gen.SearchNamespacesResponseObject, error) {
	page, size := pageOf(req.Params.Page, req.Params.PageSize)
	nss, total, err := s.store.SearchNamespaces(ctx, store.NamespaceSearch{Q: strVal(req.Params.Q), Page: page, Size: size})
	if err != nil {
		return nil, err
	}
	out := gen.SearchNamespaces200JSONResponse{Message: "Namespaces found", Total: total, Page: int64(page), PageSize: int64(size),
		Data: make([]gen.NamespaceSummary, len(nss))}
	for i, n := range nss {
		var domain *string
		if n.Domain != "" {
			domain = &n.Domain
		}
		out.Data[i] = gen.NamespaceSummary{NamespaceId: n.NamespaceID, Name: n.Name, Domain: domain, IsVerified: domain != nil,
			Description: n.Description, RegistryCount: n.RegistryCount, Version: n.Version,
			CreatedAt: ts(n.CreatedAt), UpdatedAt: ts(n.UpdatedAt)}
	}
	return out, nil
}
