package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/ownership"
)

// domainRequest reads generate-dns-txt's verification_method and target_namespace from the
// query, or else from a JSON body (the specification allows both).
func domainRequest(ctx context.Context, p gen.GenerateDnsTxtParams) (method, target string) {
	if p.VerificationMethod != nil {
		method = string(*p.VerificationMethod)
	}
	if p.TargetNamespace != nil {
		target = *p.TargetNamespace
	}
	// The body as the middleware parsed it (once).
	if m, ok := info(ctx).Value.(map[string]any); ok {
		if v, ok := m["verification_method"].(string); ok && method == "" {
			method = v
		}
		if v, ok := m["target_namespace"].(string); ok && target == "" {
			target = v
		}
	}
	return method, target
}

// GenerateDnsTxt generates (or returns) a namespace's verification value, or sends a
// delegated request to a self-verified namespace.
func (s *Server) GenerateDnsTxt(ctx context.Context, req gen.GenerateDnsTxtRequestObject) (gen.GenerateDnsTxtResponseObject, error) {
	method, target := domainRequest(ctx, req.Params)
	domain, err := ownership.CheckInput(method, req.Domain)
	if err != nil {
		return nil, err
	}
	nsID, err := s.authorizeWrite(ctx, req.NamespaceId, false)
	if err != nil {
		return nil, err
	}
	g, err := s.domains.Generate(ctx, ownership.Generate{NamespaceID: nsID, Domain: domain, Method: method, Target: target, By: *caller(ctx)})
	if err != nil {
		return nil, notFound(err, "Target namespace not found")
	}
	var out gen.GenerateDnsTxt200JSONResponse
	switch {
	case g.Request != nil:
		out.Message = "Verification request sent to the target namespace"
		if !g.Created {
			out.Message = "A verification request for this domain is already pending"
		}
		out.Data = &gen.GenerateTxtData{RequestId: strPtr(g.Request.RequestID), TargetNamespace: strPtr(g.Request.TargetNamespaceID), Txt: g.TXT}
	case g.Created:
		out.Message = "TXT record generated: publish it as a TXT record at " + domain + " or serve it at https://" + domain + domainverify.WellKnownPath + ", then call verify-domain"
		out.Txt = strPtr(g.TXT)
	default:
		out.Message = "TXT record already generated"
		out.Data = &gen.GenerateTxtData{Txt: g.TXT}
	}
	return out, nil
}

// VerifyDomain checks the generated value over DNS, then HTTP, and on a match makes the
// namespace the holder of the domain.
func (s *Server) VerifyDomain(ctx context.Context, req gen.VerifyDomainRequestObject) (gen.VerifyDomainResponseObject, error) {
	b := req.Body
	if strings.TrimSpace(b.NamespaceId) == "" {
		return nil, problem(http.StatusBadRequest, "Invalid input: namespace_id is missing or empty")
	}
	nsID, err := s.authorizeWrite(ctx, b.NamespaceId, false)
	if err != nil {
		return nil, err
	}
	v, err := s.domains.Verify(ctx, nsID, strVal(b.Domain), principalOf(ctx))
	if err != nil {
		return nil, namespaceNotFound(err)
	}
	msg := fmt.Sprintf("Domain %s verified (%s)", v.Domain, v.Detail)
	return gen.VerifyDomain200JSONResponse{MessageAfterWriteJSONResponse: gen.MessageAfterWriteJSONResponse{Body: gen.Message{Message: msg}}}, nil
}

// memberNamespace resolves a domain operation's namespace and requires a member.
func (s *Server) memberNamespace(ctx context.Context, ref string) (directory.Namespace, error) {
	id, err := s.authorizeWrite(ctx, ref, false)
	if err != nil {
		return directory.Namespace{}, err
	}
	ns, err := s.store.GetNamespace(ctx, id, directory.VersionSel{})
	return ns, namespaceNotFound(err)
}

// CheckVerification tells whether a namespace holds a verified domain.
func (s *Server) CheckVerification(ctx context.Context, req gen.CheckVerificationRequestObject) (gen.CheckVerificationResponseObject, error) {
	ns, err := s.memberNamespace(ctx, req.NamespaceId)
	if err != nil {
		return nil, err
	}
	if ns.Domain == "" {
		return gen.CheckVerification200JSONResponse{Message: "The namespace has no verified domain", Verified: false}, nil
	}
	return gen.CheckVerification200JSONResponse{Message: "The namespace has a verified domain", Verified: true, Domain: strPtr(ns.Domain)}, nil
}

// GetDnsTxt returns the namespace's newest generated value.
func (s *Server) GetDnsTxt(ctx context.Context, req gen.GetDnsTxtRequestObject) (gen.GetDnsTxtResponseObject, error) {
	ns, err := s.memberNamespace(ctx, req.NamespaceId)
	if err != nil {
		return nil, err
	}
	c, err := s.domains.Challenge(ctx, ns.NamespaceID)
	if err != nil {
		return nil, namespaceNotFound(err)
	}
	return gen.GetDnsTxt200JSONResponse{Message: "TXT record found", NamespaceId: ns.NamespaceID, Domain: c.Domain, Txt: c.TXT,
		IsVerified: ns.Domain == c.Domain}, nil
}

// RemoveNamespaceVerification removes a namespace's verification of a domain.
func (s *Server) RemoveNamespaceVerification(ctx context.Context, req gen.RemoveNamespaceVerificationRequestObject) (gen.RemoveNamespaceVerificationResponseObject, error) {
	domain, err := ownership.NormalizeDomain(req.Domain)
	if err != nil {
		return nil, err
	}
	nsID, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return nil, err
	}
	r, err := s.domains.Remove(ctx, nsID, domain, principalOf(ctx))
	if err != nil {
		return nil, notFound(err, "No verification data for this namespace and domain")
	}
	var out gen.RemoveNamespaceVerification200JSONResponse
	out.Body.Message = "Namespace verification removed"
	out.Body.Data.Domain = domain
	out.Body.Data.VerificationMethods = make([]gen.VerificationMethod, len(r.Methods))
	for i, m := range r.Methods {
		out.Body.Data.VerificationMethods[i] = gen.VerificationMethod(m)
	}
	out.Body.Data.RemovedTargets, out.Body.Data.RemovedEntries = r.RemovedTargets, r.RemovedEntries
	out.Body.Data.DomainRemovedFromNamespace, out.Body.Data.DomainStillVerified = r.DomainRemoved, r.StillVerified
	return out, nil
}
