package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
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
	if body := info(ctx).Body; len(body) > 0 {
		if m, ok := parseObject(body); ok {
			if v, ok := m["verification_method"].(string); ok && method == "" {
				method = v
			}
			if v, ok := m["target_namespace"].(string); ok && target == "" {
				target = v
			}
		}
	}
	return method, target
}

// Refusals of the domain rules, shared by generate-dns-txt, verify-domain and accept.
const (
	msgTargetNotSelfVerified = "The target namespace is not self-verified (it must own a domain verified over DNS or HTTP)"
	msgNotDelegable          = "is neither in the global registry nor a subdomain of the target namespace's verified domain: a namespace may attest only domains the operator allowed or subdomains of its own domain"
)

func msgNotAllowed(domain string) string {
	return "Domain " + domain + " is not in the global registry of verifiable domains; ask the operator to allow it"
}

// GenerateDnsTxt generates (or returns) a namespace's verification value, or sends a
// delegated request to a self-verified namespace.
func (s *Server) GenerateDnsTxt(ctx context.Context, req gen.GenerateDnsTxtRequestObject) (gen.GenerateDnsTxtResponseObject, error) {
	out, err := s.generateDnsTxt(ctx, req)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.GenerateDnsTxt404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.GenerateDnsTxt403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.GenerateDnsTxt400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.GenerateDnsTxt409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.GenerateDnsTxt200JSONResponse(out), nil
}

func (s *Server) generateDnsTxt(ctx context.Context, req gen.GenerateDnsTxtRequestObject) (gen.GenerateTxtResponse, error) {
	var out gen.GenerateTxtResponse
	method, target := domainRequest(ctx, req.Params)
	switch method {
	case "":
		return out, &denial{http.StatusBadRequest, "Invalid input: verification_method is required (self_dns, self_http or request_other_namespace)"}
	case store.MethodSelfDNS, store.MethodSelfHTTP, store.MethodDelegated:
	default:
		return out, &denial{http.StatusBadRequest, fmt.Sprintf("Invalid input: verification_method %q is not one of self_dns, self_http, request_other_namespace", method)}
	}
	domain, err := domainverify.NormalizeDomain(req.Domain)
	if err != nil {
		return out, &denial{http.StatusBadRequest, "Invalid input: " + err.Error()}
	}
	nsID, err := s.authorizeWrite(ctx, req.NamespaceId, false)
	if err != nil {
		return out, err
	}
	ns, err := s.store.GetNamespace(ctx, nsID, store.VersionSel{})
	if err != nil {
		return out, err
	}
	holder, err := s.store.DomainHolder(ctx, domain)
	if err != nil {
		return out, err
	}
	switch {
	case holder != "" && holder != nsID:
		return out, &denial{http.StatusBadRequest, "Domain " + domain + " is already verified by another namespace"}
	case holder == nsID:
		return out, &denial{http.StatusBadRequest, "Domain " + domain + " is already verified for this namespace"}
	case ns.Domain != "":
		return out, &denial{http.StatusBadRequest, fmt.Sprintf("This namespace already has the verified domain %s; remove that verification first", ns.Domain)}
	}
	txt, err := domainverify.NewTXTValue()
	if err != nil {
		return out, err
	}
	if method == store.MethodDelegated {
		return s.requestAttestation(ctx, nsID, domain, target, txt)
	}
	ok, err := s.store.DomainAllowed(ctx, domain)
	if err != nil {
		return out, err
	}
	if !ok {
		return out, &denial{http.StatusBadRequest, msgNotAllowed(domain)}
	}
	ch, created, err := s.store.EnsureChallenge(ctx, nsID, domain, method, txt)
	if err != nil {
		return out, err
	}
	if created {
		out.Message = "TXT record generated: publish it as a TXT record at " + domain + " or serve it at https://" + domain + domainverify.WellKnownPath + ", then call verify-domain"
		out.Txt = &ch.TXT
		return out, nil
	}
	out.Message = "TXT record already generated"
	out.Data = &gen.GenerateTxtData{Txt: ch.TXT}
	return out, nil
}

// requestAttestation creates a delegated request to a self-verified target namespace.
func (s *Server) requestAttestation(ctx context.Context, nsID, domain, targetRef, txt string) (gen.GenerateTxtResponse, error) {
	var out gen.GenerateTxtResponse
	if strings.TrimSpace(targetRef) == "" {
		return out, &denial{http.StatusBadRequest, "Invalid input: target_namespace is required for request_other_namespace"}
	}
	targetID, err := s.store.ResolveNamespace(ctx, targetRef)
	if errors.Is(err, store.ErrNotFound) {
		return out, &denial{http.StatusNotFound, "Target namespace not found"}
	}
	if err != nil {
		return out, err
	}
	if targetID == nsID {
		return out, &denial{http.StatusBadRequest, "A namespace cannot attest its own domain; use self_dns or self_http"}
	}
	// The store applies the delegation rule (docs/api-guide.md, Delegated verification). Its refusals are 400 like the other
	// unmet conditions of generate-dns-txt (a domain outside the global registry is 400 for the
	// self methods too); 403 stays the answer for a caller who is not a member.
	r, created, err := s.store.CreateRequest(ctx, nsID, targetID, domain, txt, *caller(ctx))
	switch {
	case errors.Is(err, store.ErrTargetNotSelfVerified):
		return out, &denial{http.StatusBadRequest, msgTargetNotSelfVerified}
	case errors.Is(err, store.ErrNotDelegable):
		return out, &denial{http.StatusBadRequest, "Domain " + domain + " " + msgNotDelegable}
	case err != nil:
		// ErrConflict: the pending request was decided again and again while this one was made.
		return out, storeDenial(err, "Target namespace not found")
	}
	out.Message = "Verification request sent to the target namespace"
	if !created {
		out.Message = "A verification request for this domain is already pending"
	}
	out.Data = &gen.GenerateTxtData{RequestId: strPtr(r.RequestID), TargetNamespace: strPtr(r.TargetNamespaceID), Txt: r.TXT}
	return out, nil
}

// VerifyDomain checks the generated value over DNS, then HTTP, and on a match makes the
// namespace the holder of the domain.
func (s *Server) VerifyDomain(ctx context.Context, req gen.VerifyDomainRequestObject) (gen.VerifyDomainResponseObject, error) {
	msg, err := s.verifyDomain(ctx, req.Body)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.VerifyDomain404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.VerifyDomain403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.VerifyDomain400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.VerifyDomain200JSONResponse{MessageJSONResponse: gen.MessageJSONResponse{Message: msg}}, nil
}

func (s *Server) verifyDomain(ctx context.Context, b *gen.VerifyDomainRequest) (string, error) {
	if strings.TrimSpace(b.NamespaceId) == "" {
		return "", &denial{http.StatusBadRequest, "Invalid input: namespace_id is missing or empty"}
	}
	nsID, err := s.authorizeWrite(ctx, b.NamespaceId, false)
	if err != nil {
		return "", err
	}
	chs, err := s.store.Challenges(ctx, nsID)
	if err != nil {
		return "", err
	}
	var ch *store.Challenge
	switch {
	case b.Domain != nil && *b.Domain != "":
		d, err := domainverify.NormalizeDomain(*b.Domain)
		if err != nil {
			return "", &denial{http.StatusBadRequest, "Invalid input: " + err.Error()}
		}
		for i := range chs {
			if chs[i].Domain == d {
				ch = &chs[i]
			}
		}
	case len(chs) > 1:
		return "", &denial{http.StatusBadRequest, "Invalid input: this namespace has verification values for several domains; give domain"}
	case len(chs) == 1:
		ch = &chs[0]
	}
	if ch == nil {
		return "", &denial{http.StatusNotFound, "No TXT record was generated for this namespace and domain; call generate-dns-txt first"}
	}
	// A domain disallowed since its value was generated is not checked (no lookup, no fetch);
	// the store checks again when it records the verification.
	if ok, err := s.store.DomainAllowed(ctx, ch.Domain); err != nil {
		return "", err
	} else if !ok {
		return "", &denial{http.StatusBadRequest, msgNotAllowed(ch.Domain)}
	}
	if s.checker == nil {
		return "", errors.New("domain verification is not configured (no checker)")
	}
	res := s.checker.Check(ctx, ch.Domain, ch.TXT)
	if !res.OK {
		if res.HTTPMismatch {
			return "", &denial{http.StatusBadRequest, "Verification failed: file content mismatch. " + res.Detail}
		}
		return "", &denial{http.StatusBadRequest, "Verification failed: " + res.Detail + " (DNS changes can take 5 to 30 minutes to be seen)"}
	}
	method := store.MethodSelfDNS
	if res.Method == "http" {
		method = store.MethodSelfHTTP
	}
	switch err := s.store.MarkSelfVerified(ctx, nsID, ch.Domain, method, s.reverify.Interval); {
	case errors.Is(err, store.ErrDomainNotAllowed):
		return "", &denial{http.StatusBadRequest, msgNotAllowed(ch.Domain)}
	case errors.Is(err, store.ErrDomainTaken):
		return "", &denial{http.StatusBadRequest, "Domain " + ch.Domain + " is already in use: another namespace verified it"}
	case errors.Is(err, store.ErrNamespaceHasDomain):
		return "", &denial{http.StatusBadRequest, "This namespace already has another verified domain; remove that verification first"}
	case err != nil:
		return "", err
	}
	return fmt.Sprintf("Domain %s verified (%s)", ch.Domain, res.Detail), nil
}

// memberNamespace resolves a domain operation's namespace and requires a member.
func (s *Server) memberNamespace(ctx context.Context, ref string) (store.Namespace, error) {
	id, err := s.authorizeWrite(ctx, ref, false)
	if err != nil {
		return store.Namespace{}, err
	}
	return s.store.GetNamespace(ctx, id, store.VersionSel{})
}

// CheckVerification tells whether a namespace holds a verified domain.
func (s *Server) CheckVerification(ctx context.Context, req gen.CheckVerificationRequestObject) (gen.CheckVerificationResponseObject, error) {
	ns, err := s.memberNamespace(ctx, req.NamespaceId)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.CheckVerification404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.CheckVerification403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.CheckVerification400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	if ns.Domain == "" {
		return gen.CheckVerification200JSONResponse{Message: "The namespace has no verified domain", Verified: false}, nil
	}
	return gen.CheckVerification200JSONResponse{Message: "The namespace has a verified domain", Verified: true, Domain: strPtr(ns.Domain)}, nil
}

// GetDnsTxt returns the namespace's newest generated value.
func (s *Server) GetDnsTxt(ctx context.Context, req gen.GetDnsTxtRequestObject) (gen.GetDnsTxtResponseObject, error) {
	ns, err := s.memberNamespace(ctx, req.NamespaceId)
	var chs []store.Challenge
	if err == nil {
		if chs, err = s.store.Challenges(ctx, ns.NamespaceID); err == nil && len(chs) == 0 {
			err = &denial{http.StatusNotFound, "No domain or TXT record for this namespace"}
		}
	}
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.GetDnsTxt404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.GetDnsTxt403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.GetDnsTxt400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	c := chs[0]
	return gen.GetDnsTxt200JSONResponse{Message: "TXT record found", NamespaceId: ns.NamespaceID, Domain: c.Domain, Txt: c.TXT,
		IsVerified: ns.Domain == c.Domain}, nil
}

// RemoveNamespaceVerification removes a namespace's verification of a domain.
func (s *Server) RemoveNamespaceVerification(ctx context.Context, req gen.RemoveNamespaceVerificationRequestObject) (gen.RemoveNamespaceVerificationResponseObject, error) {
	out, err := s.removeVerification(ctx, req)
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.RemoveNamespaceVerification404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.RemoveNamespaceVerification403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusBadRequest:
			return gen.RemoveNamespaceVerification400JSONResponse{BadRequestJSONResponse: badRequestBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.RemoveNamespaceVerification200JSONResponse(out), nil
}

func (s *Server) removeVerification(ctx context.Context, req gen.RemoveNamespaceVerificationRequestObject) (gen.RemoveVerificationResponse, error) {
	var out gen.RemoveVerificationResponse
	domain, err := domainverify.NormalizeDomain(req.Domain)
	if err != nil {
		return out, &denial{http.StatusBadRequest, "Invalid input: " + err.Error()}
	}
	nsID, err := s.authorizeWrite(ctx, req.Namespace, false)
	if err != nil {
		return out, err
	}
	r, err := s.store.RemoveVerification(ctx, nsID, domain)
	if errors.Is(err, store.ErrNotFound) {
		return out, &denial{http.StatusNotFound, "No verification data for this namespace and domain"}
	}
	if err != nil {
		return out, err
	}
	out.Message = "Namespace verification removed"
	out.Data.Domain = domain
	out.Data.VerificationMethods = make([]gen.VerificationMethod, len(r.Methods))
	for i, m := range r.Methods {
		out.Data.VerificationMethods[i] = gen.VerificationMethod(m)
	}
	out.Data.RemovedTargets, out.Data.RemovedEntries = r.RemovedTargets, r.RemovedEntries
	out.Data.DomainRemovedFromNamespace, out.Data.DomainStillVerified = r.DomainRemoved, r.StillVerified
	return out, nil
}

func notificationOut(n store.Notification) gen.Notification {
	var actor *string
	if n.ActorEmail != "" {
		actor = strPtr(n.ActorEmail)
	}
	return gen.Notification{Id: n.ID, RequestId: n.RequestID, NamespaceId: n.NamespaceID, TargetNamespaceId: n.TargetNamespaceID,
		RecipientEmail: n.RecipientEmail, ActorEmail: actor, Domain: n.Domain, EventType: gen.NotificationEventType(n.EventType),
		Title: n.Title, Message: n.Message, Metadata: obj(n.Metadata), IsRead: n.IsRead, ReadAt: tsPtr(n.ReadAt),
		CreatedAt: ts(n.CreatedAt), UpdatedAt: ts(n.UpdatedAt)}
}

// ListPendingNotifications lists the caller's unread notifications.
func (s *Server) ListPendingNotifications(ctx context.Context, _ gen.ListPendingNotificationsRequestObject) (gen.ListPendingNotificationsResponseObject, error) {
	ns, err := s.store.Notifications(ctx, caller(ctx).Email, true)
	if err != nil {
		return nil, err
	}
	out := gen.ListPendingNotifications200JSONResponse{Message: "Pending notifications", UnreadCount: int64(len(ns)), Data: make([]gen.Notification, len(ns))}
	for i, n := range ns {
		out.Data[i] = notificationOut(n)
	}
	return out, nil
}

// ListNotificationHistory lists all of the caller's notifications.
func (s *Server) ListNotificationHistory(ctx context.Context, _ gen.ListNotificationHistoryRequestObject) (gen.ListNotificationHistoryResponseObject, error) {
	ns, err := s.store.Notifications(ctx, caller(ctx).Email, false)
	if err != nil {
		return nil, err
	}
	out := gen.ListNotificationHistory200JSONResponse{Message: "Notification history", Data: make([]gen.NotificationSummary, len(ns))}
	for i, n := range ns {
		out.Data[i] = gen.NotificationSummary{Id: n.ID, RequestId: n.RequestID, RecipientEmail: n.RecipientEmail, Domain: n.Domain,
			EventType: gen.NotificationSummaryEventType(n.EventType), IsRead: n.IsRead, ReadAt: tsPtr(n.ReadAt)}
	}
	return out, nil
}

// MarkNotificationRead marks one of the caller's notifications read.
func (s *Server) MarkNotificationRead(ctx context.Context, req gen.MarkNotificationReadRequestObject) (gen.MarkNotificationReadResponseObject, error) {
	n, err := s.store.MarkNotificationRead(ctx, req.NotificationId, caller(ctx).Email)
	if errors.Is(err, store.ErrNotFound) {
		return gen.MarkNotificationRead404JSONResponse{NotFoundJSONResponse: notFoundBody("Notification not found")}, nil
	}
	if err != nil {
		return nil, err
	}
	out := gen.MarkNotificationRead200JSONResponse{Message: "Notification marked read"}
	out.Data.Id, out.Data.IsRead, out.Data.ReadAt = n.ID, n.IsRead, tsPtr(n.ReadAt)
	return out, nil
}

// MarkAllNotificationsRead marks all of the caller's notifications read.
func (s *Server) MarkAllNotificationsRead(ctx context.Context, _ gen.MarkAllNotificationsReadRequestObject) (gen.MarkAllNotificationsReadResponseObject, error) {
	n, err := s.store.MarkAllNotificationsRead(ctx, caller(ctx).Email)
	if err != nil {
		return nil, err
	}
	out := gen.MarkAllNotificationsRead200JSONResponse{Message: "Notifications marked read"}
	out.Data.Affected = n
	return out, nil
}

// decideRequest loads a request and requires the caller to be a member of its target.
func (s *Server) decideRequest(ctx context.Context, id string) (store.Request, error) {
	r, err := s.store.GetRequest(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return r, &denial{http.StatusNotFound, "Verification request not found"}
	}
	if err != nil {
		return r, err
	}
	role, err := s.memberOf(ctx, r.TargetNamespaceID)
	if err != nil {
		return r, err
	}
	if role == "" {
		return r, &denial{http.StatusForbidden, "Forbidden: only the owner or a delegate of the target namespace may decide this request"}
	}
	if r.Status != store.RequestPending {
		return r, &denial{http.StatusConflict, "Conflict: the request is " + r.Status + ", no longer pending"}
	}
	return r, nil
}

// AcceptVerificationRequest attests the requester's domain.
func (s *Server) AcceptVerificationRequest(ctx context.Context, req gen.AcceptVerificationRequestRequestObject) (gen.AcceptVerificationRequestResponseObject, error) {
	pending, err := s.decideRequest(ctx, req.RequestId)
	var r store.Request
	if err == nil {
		u := caller(ctx)
		r, err = s.store.AcceptRequest(ctx, req.RequestId, *u, s.didOf(u), s.reverify.Interval)
		switch {
		case errors.Is(err, store.ErrDomainTaken):
			err = &denial{http.StatusConflict, "Conflict: the domain is already verified by another namespace"}
		case errors.Is(err, store.ErrNamespaceHasDomain):
			err = &denial{http.StatusConflict, "Conflict: the requesting namespace already has another verified domain"}
		case errors.Is(err, store.ErrTargetNotSelfVerified):
			err = &denial{http.StatusConflict, "Conflict: this namespace is no longer self-verified, so it cannot attest; verify its own domain again first. Nothing was written"}
		case errors.Is(err, store.ErrNotDelegable):
			err = &denial{http.StatusConflict, "Conflict: domain " + pending.Domain + " " + msgNotDelegable + ". Nothing was written"}
		default:
			err = storeDenial(err, "Verification request not found")
		}
	}
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.AcceptVerificationRequest404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.AcceptVerificationRequest403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.AcceptVerificationRequest409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	out := gen.AcceptVerificationRequest200JSONResponse{Message: "Verification request accepted"}
	out.Data.RequestId, out.Data.RegistryId, out.Data.RecordId = r.RequestID, r.RegistryID, r.RecordID
	return out, nil
}

// RejectVerificationRequest declines a request.
func (s *Server) RejectVerificationRequest(ctx context.Context, req gen.RejectVerificationRequestRequestObject) (gen.RejectVerificationRequestResponseObject, error) {
	_, err := s.decideRequest(ctx, req.RequestId)
	if err == nil {
		_, err = s.store.RejectRequest(ctx, req.RequestId, *caller(ctx))
		err = storeDenial(err, "Verification request not found")
	}
	if d, err := asDenial(err); err != nil {
		return nil, err
	} else if d != nil {
		switch d.status {
		case http.StatusNotFound:
			return gen.RejectVerificationRequest404JSONResponse{NotFoundJSONResponse: notFoundBody(d.msg)}, nil
		case http.StatusForbidden:
			return gen.RejectVerificationRequest403JSONResponse{ForbiddenJSONResponse: forbiddenBody(d.msg)}, nil
		case http.StatusConflict:
			return gen.RejectVerificationRequest409JSONResponse{ConflictJSONResponse: conflictBody(d.msg)}, nil
		default:
			return nil, d
		}
	}
	return gen.RejectVerificationRequest200JSONResponse{MessageJSONResponse: gen.MessageJSONResponse{Message: "Verification request rejected"}}, nil
}
