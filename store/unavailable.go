package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// A database that does not answer: the error every statement, transaction and read of the
// primary fails with while no primary is reachable (primary.go follows the primary itself).

// UnavailableError is a failure of the database itself rather than of the request: no primary
// is reachable (its connection is refused or broke, it is shutting down, or the node reached
// is a standby that refuses writes). Retrying later may succeed.
type UnavailableError struct {
	What string
	Err  error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("store: %s: no primary database is reachable: %v", e.What, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Unavailable reports whether err is an UnavailableError.
func Unavailable(err error) bool {
	var ue *UnavailableError
	return errors.As(err, &ue)
}

// unavailable wraps err as an UnavailableError when it is a failure of the connection, and
// returns it unchanged otherwise.
func unavailable(err error, what string) error {
	var ue *UnavailableError
	if err == nil || errors.As(err, &ue) || !connectionFailure(err) {
		return err
	}
	return &UnavailableError{What: what, Err: err}
}

// connectionFailure: err says the database could not be reached or went away, not that the
// statement was refused. A caller that has gone away (context.Canceled) is not one.
func connectionFailure(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection exception
			pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03", // admin/crash shutdown, cannot connect now
			pgErr.Code == "25006": // read-only transaction: the node reached is a standby
			return true
		}
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "failed to connect") ||
		strings.Contains(msg, "server closed the connection")
}

// markUnavailable registers GORM callbacks, on the primary's handle, that type the
// connection failures of every statement as UnavailableError.
func markUnavailable(db *gorm.DB) error {
	mark := func(db *gorm.DB) {
		if db.Error != nil {
			db.Error = unavailable(db.Error, "query")
		}
	}
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("svc:unavailable", mark),
		cb.Query().After("gorm:query").Register("svc:unavailable", mark),
		cb.Update().After("gorm:update").Register("svc:unavailable", mark),
		cb.Delete().After("gorm:delete").Register("svc:unavailable", mark),
		cb.Raw().After("gorm:raw").Register("svc:unavailable", mark),
		cb.Row().After("gorm:row").Register("svc:unavailable", mark),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}
