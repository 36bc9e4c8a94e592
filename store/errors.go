package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// Error is an outcome the store expects, with the sentence its client is told: a rule or the
// state of the data refused a write (ErrConflict), an If-Match was stale (ErrPrecondition), or a
// value was refused (ErrInvalid). Kind is that sentinel; Message is the client's sentence, made
// here where the store knows what happened. Its text (Error) and its chain (errors.Is: the kind
// and the rule, such as ErrNameTaken) are those of the refusal the store's callers and logs see.
// A not-found carries no sentence: the caller names what its request named (ErrNotFound).
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

// The bases of the refusals: conflict.With("...") reads "Conflict: ..." to the client and
// "conflict: ..." to errors.Is and logs; invalid.With likewise reads "Invalid input: ...".
var (
	conflict = &Error{Kind: ErrConflict, Message: "Conflict", err: ErrConflict}
	invalid  = &Error{Kind: ErrInvalid, Message: "Invalid input", err: ErrInvalid}
)

// refused is a refusal of the database (translate): err's text, told to the client after prefix.
func refused(kind error, prefix string, err error) *Error {
	return &Error{Kind: kind, Message: prefix + err.Error(), err: err}
}

// translate maps driver errors onto the package's sentinels so that callers never see a driver
// type. what names the operation for the message.
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) || errors.Is(err, ErrPrecondition) || errors.Is(err, ErrInvalid) {
		return err
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			return refused(ErrConflict, "Conflict: ", fmt.Errorf("%s: %w (%s)", what, ErrConflict, pgErr.ConstraintName))
		case "23503", "23514": // foreign_key_violation, check_violation
			return refused(ErrInvalid, "Invalid input: ", fmt.Errorf("%s: %w: %s", what, ErrInvalid, pgErr.Message))
		case "22P05", "22021", "22P02", "22023", "2200N": // untranslatable char (NUL), bad encoding, bad text, bad parameter
			return refused(ErrInvalid, "Invalid input: ", fmt.Errorf("%s: %w: %s", what, ErrInvalid, pgErr.Message))
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "UNIQUE constraint failed"):
		return refused(ErrConflict, "Conflict: ", fmt.Errorf("%s: %w (%s)", what, ErrConflict, strings.TrimSpace(msg[strings.Index(msg, "UNIQUE constraint failed")+len("UNIQUE constraint failed:"):])))
	case strings.Contains(msg, "FOREIGN KEY constraint failed"), strings.Contains(msg, "CHECK constraint failed"):
		return refused(ErrInvalid, "Invalid input: ", fmt.Errorf("%s: %w: %s", what, ErrInvalid, msg))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// IsConflict reports whether err is (or wraps) ErrConflict.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }
