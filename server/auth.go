package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/store"
)

// Authentication of the contract middleware: the bearer API key.

func (s *Server) authenticate(ctx context.Context, header string, op *operation) (*store.User, error) {
	if op.auth == authNone {
		return nil, nil
	}
	key, present, ok := bearerKey(header)
	if !present && op.auth == authOptional {
		return nil, nil
	}
	unauthorized := problemf(http.StatusUnauthorized, msgUnauthorized)
	if op.verification {
		unauthorized = problemf(http.StatusUnauthorized, msgAuthFailed)
	}
	if !present {
		return nil, unauthorized
	}
	if !ok {
		return nil, unauthorized
	}
	u, err := s.store.Authenticate(ctx, key)
	switch {
	case errors.Is(err, store.ErrMalformedKey), errors.Is(err, directory.ErrNotFound):
		return nil, unauthorized
	case err != nil:
		return nil, err
	case u.Disabled && op.verification:
		return nil, errUserNotFound
	case u.Disabled:
		return nil, unauthorized
	}
	return &u, nil
}

// bearerKey reads an Authorization header: present is false when it is absent or blank, ok
// is true for "Bearer <key>" (scheme in any case), with the key trimmed. Authentication and
// the rate limiter read the header through it alike.
func bearerKey(header string) (key string, present, ok bool) {
	h := strings.TrimSpace(header)
	if h == "" {
		return "", false, false
	}
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", true, false
	}
	return strings.TrimSpace(key), true, true
}
