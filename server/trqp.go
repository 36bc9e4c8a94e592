package server

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/trqp"
)

// The Trust Registry Query Protocol v2.0 (docs/trqp.md): the two queries, answered by the trqp
// service; their errors are Problem Details (errors.go, problemOperation).

// TrqpAuthorization answers POST /authorization.
func (s *Server) TrqpAuthorization(ctx context.Context, req gen.TrqpAuthorizationRequestObject) (gen.TrqpAuthorizationResponseObject, error) {
	b := req.Body
	out, err := s.trqpAnswer(ctx, false, b.EntityId, b.AuthorityId, b.Action, b.Resource, (*map[string]string)(b.Context))
	if err != nil {
		return nil, err
	}
	return gen.TrqpAuthorization200JSONResponse{EntityId: b.EntityId, AuthorityId: b.AuthorityId, Action: b.Action, Resource: b.Resource,
		Authorized: out.yes, Message: &out.message, TimeEvaluated: out.evaluated, TimeRequested: out.requested, Context: &out.context}, nil
}

// TrqpRecognition answers POST /recognition.
func (s *Server) TrqpRecognition(ctx context.Context, req gen.TrqpRecognitionRequestObject) (gen.TrqpRecognitionResponseObject, error) {
	b := req.Body
	out, err := s.trqpAnswer(ctx, true, b.EntityId, b.AuthorityId, b.Action, b.Resource, (*map[string]string)(b.Context))
	if err != nil {
		return nil, err
	}
	return gen.TrqpRecognition200JSONResponse{EntityId: b.EntityId, AuthorityId: b.AuthorityId, Action: b.Action, Resource: b.Resource,
		Recognized: out.yes, Message: &out.message, TimeEvaluated: out.evaluated, TimeRequested: out.requested, Context: &out.context}, nil
}

// trqpOut is what both answers render.
type trqpOut struct {
	yes       bool
	message   string
	evaluated time.Time
	requested *time.Time
	context   gen.TrqpAnswerContext
}

// trqpAnswer binds a query, makes the one call, and renders the answer's context: the query's
// context members, then the evidence (docs/trqp.md, Evidence).
func (s *Server) trqpAnswer(ctx context.Context, recognition bool, entity, authority, action, resource string, qctx *map[string]string) (trqpOut, error) {
	q := trqp.Query{Recognition: recognition, EntityID: entity, AuthorityID: authority, Action: action, Resource: resource}
	out := trqpOut{context: gen.TrqpAnswerContext{}}
	if qctx != nil {
		for k, v := range *qctx {
			out.context[k] = v
		}
		if v, ok := (*qctx)["time"]; ok {
			at, err := trqp.ParseTime(v)
			if err != nil {
				return out, err
			}
			q.At, out.requested = &at, &at
		}
	}
	a, err := s.trqp.Answer(ctx, q)
	if err != nil {
		return out, err
	}
	out.yes, out.message, out.evaluated = a.Yes, a.Message, a.Evaluated
	if ev := a.Evidence; ev.Version != "" {
		out.context["svc_entry"] = ev.Entry
		out.context["svc_version"] = ev.Version
		out.context["svc_digest"] = ev.Digest
		out.context["svc_lookup_url"] = evidenceLookupURL(ev)
		out.context["svc_proof_url"] = "/svc/log/inclusion/" + ev.Version
		out.context["svc_state_url"] = evidenceStateURL(ev)
		if ev.Logged {
			out.context["svc_log_index"] = strconv.FormatInt(ev.LogIndex, 10)
		}
	}
	return out, nil
}

// evidenceLookupURL is the lookup of the version that decided (docs/trqp.md, Evidence).
func evidenceLookupURL(ev trqp.Evidence) string {
	u := "/svc/lookup/" + url.PathEscape(ev.NamespaceID) + "/" + url.PathEscape(ev.RegistryName)
	if ev.RecordName != "" {
		u += "/" + url.PathEscape(ev.RecordName)
	}
	return u + "?version_id=" + url.QueryEscape(ev.Version)
}

// evidenceStateURL is the state proof of what decided: the entry by its id, or the absence of
// the record name that is not listed (the state query's name form).
func evidenceStateURL(ev trqp.Evidence) string {
	if n := ev.Absent; n != nil {
		return stateQueryPrefix + url.PathEscape(n.NamespaceID) + "/" + url.PathEscape(n.Registry) + "/" + url.PathEscape(n.Record)
	}
	return stateQueryPrefix + url.PathEscape(ev.ID)
}

// TrqpMetadata answers GET /metadata: the service's identifier and what it is.
func (s *Server) TrqpMetadata(context.Context, gen.TrqpMetadataRequestObject) (gen.TrqpMetadataResponseObject, error) {
	return gen.TrqpMetadata200JSONResponse{Id: "did:web:" + s.didHost, Name: "svc trust directory",
		Description: "A public trust directory: each namespace is a TRQP authority (authority_id: https://{domain}, did:web:{domain} or its namespace_id) " +
			"answering POST /authorization and POST /recognition from the registries that declare them in meta.trqp, with evidence from the transparency log"}, nil
}

// TrqpLookupAuthorizations answers GET /lookups/authorizations: the pairs the authority declares.
func (s *Server) TrqpLookupAuthorizations(ctx context.Context, req gen.TrqpLookupAuthorizationsRequestObject) (gen.TrqpLookupAuthorizationsResponseObject, error) {
	pairs, err := s.trqp.Authorizations(ctx, req.Params.AuthorityId)
	if err != nil {
		return nil, err
	}
	out := make(gen.TrqpLookupAuthorizations200JSONResponse, len(pairs))
	for i, p := range pairs {
		out[i] = gen.TrqpPair{Action: p.Action, Resource: p.Resource}
	}
	return out, nil
}
