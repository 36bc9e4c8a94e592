package directory

import (
	"errors"
	"fmt"
)

// The kinds of refusal. Wrapped errors carry detail; test with errors.Is.
var (
	// ErrNotFound: the entry, version, user, key or other thing asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a uniqueness rule or a state rule refused the write (name taken, domain in use).
	ErrConflict = errors.New("conflict")
	// ErrPrecondition: an optimistic-concurrency check (If-Match) failed; nothing was written.
	ErrPrecondition = errors.New("precondition failed")
	// ErrInvalid: a value was refused as malformed.
	ErrInvalid = errors.New("invalid value")
	// ErrForbidden: the caller may not do this (access.go).
	ErrForbidden = errors.New("forbidden")
)

// Error is an expected refusal with the sentence its client is told: a rule or the state of the
// data refused a write (ErrConflict), an If-Match was stale (ErrPrecondition), or a value was
// refused (ErrInvalid). Kind is that sentinel; Message is the client's sentence, made where it
// is known what happened. Its text (Error) and its chain (errors.Is: the kind and the rule, such
// as ErrNameTaken) are those of the refusal that callers and logs see. A not-found is a
// *NotFoundError instead, which says what was missing.
type Error struct {
	Kind    error
	Message string
	err     error
}

func (e *Error) Error() string { return e.err.Error() }
func (e *Error) Unwrap() error { return e.err }

// With is the refusal with a detail: "<text>: <detail>", told to the client as
// "<Message>: <detail>". It matches e (errors.Is) and e's kind.
func (e *Error) With(format string, args ...any) *Error {
	detail := fmt.Sprintf(format, args...)
	return &Error{Kind: e.Kind, Message: e.Message + ": " + detail, err: fmt.Errorf("%w: %s", e, detail)}
}

// Refused is a refusal of kind whose client sentence is prefix followed by err's text (the
// store's translation of a database refusal).
func Refused(kind error, prefix string, err error) *Error {
	return &Error{Kind: kind, Message: prefix + err.Error(), err: err}
}

// The bases of the refusals: Conflict.With("...") reads "Conflict: ..." to the client and
// "conflict: ..." to errors.Is and logs; Invalid.With likewise reads "Invalid input: ...".
var (
	Conflict  = &Error{Kind: ErrConflict, Message: "Conflict", err: ErrConflict}
	Invalid   = &Error{Kind: ErrInvalid, Message: "Invalid input", err: ErrInvalid}
	Forbidden = &Error{Kind: ErrForbidden, Message: "Forbidden", err: ErrForbidden}
)

// IsConflict reports whether err is (or wraps) ErrConflict.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// Refusals of the publish side; each also matches ErrConflict or ErrPrecondition.
var (
	ErrRegistryInactive = Conflict.With("the registry is inactive; records cannot be added or changed")
	ErrNameTaken        = Conflict.With("the name is taken")
	ErrNotDraft         = Conflict.With("the record is not a draft")
	ErrStaleVersion     = &Error{Kind: ErrPrecondition,
		Message: "Precondition failed: the entry has changed since that version (If-Match); nothing was written",
		err:     fmt.Errorf("%w: the entry has a newer version", ErrPrecondition)}
	// ErrRecordRevoked: the record is revoked, and revocation is final.
	ErrRecordRevoked = Conflict.With("the record is revoked: revocation is final, and a revoked record cannot change")
	// ErrRegistryArchived: the registry is read-only until restored.
	ErrRegistryArchived = Conflict.With("the registry is archived (read-only): restore it before adding or changing anything in it")
	// ErrRegistryRevoked: the registry is revoked, and revocation is final.
	ErrRegistryRevoked = Conflict.With("the registry is revoked: revocation is final, and nothing in it can change")
	// ErrOwner: the owner cannot be removed as a delegate.
	ErrOwner = Conflict.With("the owner cannot be removed")
)
