package store

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// translate maps driver errors onto the package's sentinels so that callers never see a driver
// type. what names the operation for the message.
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, directory.ErrNotFound) || errors.Is(err, directory.ErrConflict) || errors.Is(err, directory.ErrPrecondition) || errors.Is(err, directory.ErrInvalid) {
		return err
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("%s: %w", what, directory.ErrNotFound)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			return directory.Refused(directory.ErrConflict, "Conflict: ", fmt.Errorf("%s: %w (%s)", what, directory.ErrConflict, pgErr.ConstraintName))
		case "23503", "23514": // foreign_key_violation, check_violation
			return directory.Refused(directory.ErrInvalid, "Invalid input: ", fmt.Errorf("%s: %w: %s", what, directory.ErrInvalid, pgErr.Message))
		case "22P05", "22021", "22P02", "22023", "2200N": // untranslatable char (NUL), bad encoding, bad text, bad parameter
			return directory.Refused(directory.ErrInvalid, "Invalid input: ", fmt.Errorf("%s: %w: %s", what, directory.ErrInvalid, pgErr.Message))
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "UNIQUE constraint failed"):
		return directory.Refused(directory.ErrConflict, "Conflict: ", fmt.Errorf("%s: %w (%s)", what, directory.ErrConflict, strings.TrimSpace(msg[strings.Index(msg, "UNIQUE constraint failed")+len("UNIQUE constraint failed:"):])))
	case strings.Contains(msg, "FOREIGN KEY constraint failed"), strings.Contains(msg, "CHECK constraint failed"):
		return directory.Refused(directory.ErrInvalid, "Invalid input: ", fmt.Errorf("%s: %w: %s", what, directory.ErrInvalid, msg))
	}
	return fmt.Errorf("%s: %w", what, err)
}
