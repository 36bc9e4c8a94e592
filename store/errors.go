package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

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
			return fmt.Errorf("%s: %w (%s)", what, ErrConflict, pgErr.ConstraintName)
		case "23503", "23514": // foreign_key_violation, check_violation
			return fmt.Errorf("%s: %w: %s", what, ErrInvalid, pgErr.Message)
		case "22P05", "22021", "22P02", "22023", "2200N": // untranslatable char (NUL), bad encoding, bad text, bad parameter
			return fmt.Errorf("%s: %w: %s", what, ErrInvalid, pgErr.Message)
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "UNIQUE constraint failed"):
		return fmt.Errorf("%s: %w (%s)", what, ErrConflict, strings.TrimSpace(msg[strings.Index(msg, "UNIQUE constraint failed")+len("UNIQUE constraint failed:"):]))
	case strings.Contains(msg, "FOREIGN KEY constraint failed"), strings.Contains(msg, "CHECK constraint failed"):
		return fmt.Errorf("%s: %w: %s", what, ErrInvalid, msg)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// IsConflict reports whether err is (or wraps) ErrConflict.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }
