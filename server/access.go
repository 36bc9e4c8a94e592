package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

// caller is the authenticated user of the request (nil when anonymous).
func caller(ctx context.Context) *store.User { return info(ctx).User }

// didOf is the did:web identifier of a user's profile.
func (s *Server) didOf(u *store.User) string { return "did:web:" + s.didHost + ":" + u.ProfileID }

// denial is an expected refusal found while resolving and authorizing a request.
type denial struct {
	status int
	msg    string
}

func (d *denial) Error() string { return d.msg }

// resolveNamespace maps a {namespace} value (id or verified domain) to its id: 404 when unknown.
func (s *Server) resolveNamespace(ctx context.Context, ref string) (string, error) {
	if strings.TrimSpace(ref) == "" {
		return "", &denial{http.StatusBadRequest, "Invalid input: namespace is missing or empty"}
	}
	id, err := s.store.ResolveNamespace(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return "", &denial{http.StatusNotFound, msgNamespaceMissing}
	}
	return id, err
}

// memberOf reports whether the caller is the namespace's owner or a delegate.
func (s *Server) memberOf(ctx context.Context, namespaceID string) (string, error) {
	u := caller(ctx)
	if u == nil {
		return "", nil
	}
	return s.store.MemberRole(ctx, namespaceID, u.ID)
}

// authorizeWrite resolves the namespace and requires the caller to be its owner or a delegate
// (ownerOnly: its owner). It returns the namespace id, or a *denial (404, 403), or an error.
func (s *Server) authorizeWrite(ctx context.Context, ref string, ownerOnly bool) (string, error) {
	id, err := s.resolveNamespace(ctx, ref)
	if err != nil {
		return "", err
	}
	role, err := s.memberOf(ctx, id)
	if err != nil {
		return "", err
	}
	switch {
	case role == "":
		return "", &denial{http.StatusForbidden, "Forbidden: you are not the owner or a delegate of this namespace"}
	case ownerOnly && role != store.RoleOwner:
		return "", &denial{http.StatusForbidden, "Forbidden: only the owner of the namespace may do this"}
	}
	return id, nil
}

// storeDenial maps the store's expected refusals to a denial; other errors pass unchanged.
func storeDenial(err error, notFound string) error {
	var d *denial
	switch {
	case err == nil || errors.As(err, &d):
		return err
	case errors.Is(err, store.ErrNotFound):
		return &denial{http.StatusNotFound, notFound}
	case errors.Is(err, store.ErrPrecondition):
		return &denial{http.StatusPreconditionFailed, "Precondition failed: the entry has changed since that version (If-Match); nothing was written"}
	case errors.Is(err, store.ErrConflict):
		return &denial{http.StatusConflict, conflictMessage(err)}
	case errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrMalformedKey):
		return &denial{http.StatusBadRequest, "Invalid input: " + strings.TrimPrefix(err.Error(), "invalid value: ")}
	}
	return err
}

// conflictMessage turns "...: conflict: the registry is inactive: detail" into a sentence.
func conflictMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "conflict: "); i >= 0 {
		msg = msg[i+len("conflict: "):]
	}
	return "Conflict: " + msg
}

// asDenial splits an error into a denial (expected) or nil with the error left to return.
func asDenial(err error) (*denial, error) {
	var d *denial
	if errors.As(err, &d) {
		return d, nil
	}
	return nil, err
}

// Response bodies of the shared error responses: each carries the code errorCode gives.
func notFoundBody(msg string) gen.NotFoundJSONResponse {
	return gen.NotFoundJSONResponse(errorBody(http.StatusNotFound, msg))
}
func forbiddenBody(msg string) gen.ForbiddenJSONResponse {
	return gen.ForbiddenJSONResponse(errorBody(http.StatusForbidden, msg))
}
func badRequestBody(msg string) gen.BadRequestJSONResponse {
	return gen.BadRequestJSONResponse(errorBody(http.StatusBadRequest, msg))
}
func conflictBody(msg string) gen.ConflictJSONResponse {
	return gen.ConflictJSONResponse(errorBody(http.StatusConflict, msg))
}
func preconditionBody(msg string) gen.PreconditionFailedJSONResponse {
	return gen.PreconditionFailedJSONResponse(errorBody(http.StatusPreconditionFailed, msg))
}
func verificationFailedBody(msg string) gen.VerificationFailedJSONResponse {
	return gen.VerificationFailedJSONResponse(errorBody(http.StatusBadRequest, msg))
}
func searchFailedBody(msg, detail string) gen.SearchFailedJSONResponse {
	b := errorBody(http.StatusInternalServerError, msg)
	b.Error = &detail
	return gen.SearchFailedJSONResponse(b)
}
func unavailableBody(msg string) gen.ServiceUnavailableJSONResponse {
	return gen.ServiceUnavailableJSONResponse(errorBody(http.StatusServiceUnavailable, msg))
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
		return "", &denial{http.StatusBadRequest, fmt.Sprintf("Invalid input: If-Match must be a quoted version like \"0x%s\"", strings.Repeat("0", 32))}
	}
	return v, nil
}
