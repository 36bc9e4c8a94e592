package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/svc-directory/svc/entries"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

// caller is the authenticated user of the request (nil when anonymous).
func caller(ctx context.Context) *store.User { return info(ctx).User }

// didOf is the did:web identifier of a user's profile.
func (s *Server) didOf(u *store.User) string { return "did:web:" + s.didHost + ":" + u.ProfileID }

// namespaceGiven refuses a blank {namespace} value (400).
func namespaceGiven(ref string) error {
	if strings.TrimSpace(ref) == "" {
		return problem(http.StatusBadRequest, "Invalid input: namespace is missing or empty")
	}
	return nil
}

// resolveNamespace maps a {namespace} value (id or verified domain) to its id: 404 when unknown.
func (s *Server) resolveNamespace(ctx context.Context, ref string) (string, error) {
	if err := namespaceGiven(ref); err != nil {
		return "", err
	}
	id, err := s.store.ResolveNamespace(ctx, ref)
	return id, namespaceNotFound(err)
}

// memberOf reports whether the caller is the namespace's owner or a delegate.
func (s *Server) memberOf(ctx context.Context, namespaceID string) (string, error) {
	u := caller(ctx)
	if u == nil {
		return "", nil
	}
	return s.store.MemberRole(ctx, namespaceID, u.ID)
}

// seesDrafts reports whether the caller sees the namespace's drafts: its owner and delegates
// do; anyone else, anonymous readers and registry delegates included, sees a record from its
// first public version on (drafts are private, docs/lifecycle.md).
func (s *Server) seesDrafts(ctx context.Context, namespaceID string) (bool, error) {
	role, err := s.memberOf(ctx, namespaceID)
	return role != "", err
}

// callerOf is the request's caller as the application layer knows it (anonymous: empty).
func (s *Server) callerOf(ctx context.Context) entries.Caller {
	u := caller(ctx)
	if u == nil {
		return entries.Caller{}
	}
	return entries.Caller{UserID: u.ID, KeyID: u.KeyID, DID: s.didOf(u)}
}

// principalOf is the request's caller as the store's write authorization knows it: the user
// and the key it presented (empty when anonymous).
func principalOf(ctx context.Context) store.Principal {
	u := caller(ctx)
	if u == nil {
		return store.Principal{}
	}
	return u.Principal()
}

// authorizeWrite requires the caller to be the owner or a delegate of the namespace (ownerOnly:
// its owner), for the operations whose writes are their workflows' own (delegates, domains).
// It returns the namespace id, or a refusal (400, 404, 403).
func (s *Server) authorizeWrite(ctx context.Context, ref string, ownerOnly bool) (string, error) {
	if strings.TrimSpace(ref) == "" {
		return "", problem(http.StatusBadRequest, "Invalid input: namespace is missing or empty")
	}
	return s.entries.NamespaceAccess(ctx, s.callerOf(ctx), ref, ownerOnly)
}

// Response bodies of the error responses an operation answers itself (not through answer).
func verificationFailedBody(msg string) gen.VerificationFailedJSONResponse {
	return gen.VerificationFailedJSONResponse{Message: msg, Code: gen.ErrorCodeVerificationFailed}
}
func searchFailedBody(msg, detail string) gen.SearchFailedJSONResponse {
	b := errorBody(http.StatusInternalServerError, msg)
	b.Error = &detail
	return gen.SearchFailedJSONResponse(b)
}
func unavailableBody(msg string) gen.ServiceUnavailableJSONResponse {
	secs := retryAfterSeconds
	return gen.ServiceUnavailableJSONResponse{Body: errorBody(http.StatusServiceUnavailable, msg),
		Headers: gen.ServiceUnavailableResponseHeaders{RetryAfter: &secs}}
}

// parseIfMatch reads an If-Match header: "<version>", W/"<version>", a bare version or *.
func parseIfMatch(h *string) (string, error) {
	if h == nil {
		return "", nil
	}
	v := strings.TrimSpace(*h)
	if v == "*" || v == "" {
		return "", nil
	}
	v = strings.TrimPrefix(v, "W/")
	v = strings.Trim(v, `"`)
	if !versionPattern.MatchString(v) {
		return "", problem(http.StatusBadRequest, fmt.Sprintf("Invalid input: If-Match must be a quoted version like \"0x%s\"", strings.Repeat("0", 32)))
	}
	return v, nil
}

// unlessSeesDrafts is hidden for a caller who does not see the drafts of the namespace, and
// seen for one who does.
func (s *Server) unlessSeesDrafts(ctx context.Context, namespaceID string, hidden, seen error) error {
	switch sees, err := s.seesDrafts(ctx, namespaceID); {
	case err != nil:
		return err
	case !sees:
		return hidden
	}
	return seen
}
