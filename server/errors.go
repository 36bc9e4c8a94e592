package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/ownership"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/trqp"
)

// Messages the specification fixes.
const (
	msgUnexpected         = "An unexpected error occurred"
	msgAuthFailed         = "Authentication failed"
	msgUnauthorized       = "Unauthorized: Invalid or missing authentication token"
	msgUnavailable        = "database unavailable"
	msgVerificationFailed = "Verification failed"
)

// Outcomes made once and shared (never modified). The first two have a code more specific than
// their status's: it is set here, where the outcome is made, never read back from the message.
var (
	errNamespaceMissing = &apiError{Status: http.StatusNotFound, Code: gen.ErrorCodeNamespaceNotFound, Message: "Namespace not found"}
	errUserNotFound     = &apiError{Status: http.StatusNotFound, Code: gen.ErrorCodeUserNotFound, Message: "User not found"}
	errRegistryMissing  = problem(http.StatusNotFound, "Registry not found")
	errRecordMissing    = problem(http.StatusNotFound, "Record not found")
	// errNoPrimary answers a write, or a read that needs the primary, while no primary database
	// is reachable (store.UnavailableError): a failover may be under way.
	errNoPrimary = &apiError{Status: http.StatusServiceUnavailable, Code: gen.ErrorCodePrimaryUnavailable, RetryAfter: retryAfterSeconds,
		Message: "The primary database is unavailable (a failover may be under way): nothing was written; retry after Retry-After seconds"}
)

// retryAfterSeconds is the Retry-After of every 503: a promotion, or the log's first
// checkpoint, takes seconds.
const retryAfterSeconds = 2

// apiError is an outcome the client is told: its status, its stable code and its message.
// Middleware, binding and handlers return it; refusals of the store and of the verification
// workflow become one in answer. The error handler writes it.
type apiError struct {
	Status  int
	Code    gen.ErrorCode
	Message string
	// RetryAfter, when set, is answered as the Retry-After header (seconds).
	RetryAfter int
}

func (e *apiError) Error() string { return e.Message }

// problem is the apiError of a status and message, with the status's code (errorCode).
func problem(status int, msg string) *apiError {
	return &apiError{Status: status, Code: errorCode(status), Message: msg}
}

func problemf(status int, format string, args ...any) *apiError {
	return problem(status, fmt.Sprintf(format, args...))
}

// refusalStatus is the HTTP status of each kind of refusal of the verification workflow.
var refusalStatus = map[ownership.Kind]int{
	ownership.Invalid:   http.StatusBadRequest,
	ownership.NotFound:  http.StatusNotFound,
	ownership.Forbidden: http.StatusForbidden,
	ownership.Conflict:  http.StatusConflict,
}

// storeStatus is the HTTP status of each kind of the store's refusals (store.Error).
var storeStatus = map[error]int{
	directory.ErrInvalid:      http.StatusBadRequest,
	directory.ErrForbidden:    http.StatusForbidden,
	directory.ErrConflict:     http.StatusConflict,
	directory.ErrPrecondition: http.StatusPreconditionFailed,
}

// notFound names what a not-found of the store missed (msg: the thing the request named); a
// refusal that already says what was missing keeps its message. Other errors pass unchanged.
func notFound(err error, msg string) error {
	if bareNotFound(err) {
		return problem(http.StatusNotFound, msg)
	}
	return err
}

// namespaceNotFound is notFound for a namespace the request named: code namespace_not_found.
func namespaceNotFound(err error) error {
	if bareNotFound(err) {
		return errNamespaceMissing
	}
	return err
}

// bareNotFound reports whether err is a not-found of the store that does not yet say what it missed.
func bareNotFound(err error) bool {
	var ae *apiError
	var r *ownership.Refusal
	var nf *directory.NotFoundError
	return errors.Is(err, directory.ErrNotFound) && !errors.As(err, &ae) && !errors.As(err, &r) && !errors.As(err, &nf)
}

// missing is the answer to a read or write that found nothing, naming what was missing.
func missing(nf *directory.NotFoundError) *apiError {
	switch nf.Missing {
	case directory.MissingNamespace:
		return errNamespaceMissing
	case directory.MissingRegistry:
		return errRegistryMissing
	case directory.MissingRecord:
		if nf.Batch != "" {
			return problem(http.StatusNotFound, "Not found: "+nf.Batch)
		}
		return errRecordMissing
	case directory.MissingUser:
		return &apiError{Status: http.StatusNotFound, Code: gen.ErrorCodeUserNotFound, Message: "User not found: no user has the email " + nf.Name}
	case directory.MissingVersion:
		return problemf(http.StatusNotFound, "Version %s of this %s not found", nf.Name, nf.Kind)
	case directory.MissingYet:
		return problemf(http.StatusNotFound, "%s%s did not exist yet on %s", strings.ToUpper(nf.Kind[:1]), nf.Kind[1:],
			nf.Before.AddDate(0, 0, -1).Format(time.DateOnly))
	}
	return problem(http.StatusNotFound, "Not found")
}

// errorCode is the one mapping of a status to the general code of the contract's ErrorCode enum.
// The few outcomes with a more specific code (errNamespaceMissing, errUserNotFound, a failed
// verification) set it where they are made.
func errorCode(status int) gen.ErrorCode {
	switch status {
	case http.StatusBadRequest:
		return gen.ErrorCodeInvalidInput
	case http.StatusUnauthorized:
		return gen.ErrorCodeUnauthorized
	case http.StatusForbidden:
		return gen.ErrorCodeForbidden
	case http.StatusNotFound:
		return gen.ErrorCodeNotFound
	case http.StatusMethodNotAllowed:
		return gen.ErrorCodeMethodNotAllowed
	case http.StatusConflict:
		return gen.ErrorCodeConflict
	case http.StatusPreconditionFailed:
		return gen.ErrorCodePreconditionFailed
	case http.StatusRequestEntityTooLarge:
		return gen.ErrorCodePayloadTooLarge
	case http.StatusUnsupportedMediaType:
		return gen.ErrorCodeUnsupportedMediaType
	case http.StatusTooManyRequests:
		return gen.ErrorCodeRateLimited
	case http.StatusServiceUnavailable:
		return gen.ErrorCodeUnavailable
	}
	if status >= 400 && status < 500 {
		return gen.ErrorCodeInvalidInput
	}
	return gen.ErrorCodeInternal
}

// errorBody is the JSON of an error: its message and its status's code.
func errorBody(status int, msg string) gen.Error {
	return gen.Error{Message: msg, Code: errorCode(status)}
}

// answer is the one mapping of an error to what the client gets: an apiError as it is; a
// refusal of the verification workflow or of the store with its message and the status of its
// kind; echo's own errors (routing, binding) with a message; anything else is 500 with the
// fixed message.
func answer(err error, r *http.Request) *apiError {
	var ae *apiError
	var rf *ownership.Refusal
	var se *directory.Error
	var nf *directory.NotFoundError
	var he *echo.HTTPError
	var ue *trqp.UnknownError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &ue):
		return problem(http.StatusNotFound, ue.Message)
	case store.Unavailable(err):
		return errNoPrimary
	case errors.As(err, &nf):
		return missing(nf)
	case errors.As(err, &rf) && refusalStatus[rf.Kind] != 0:
		return problem(refusalStatus[rf.Kind], rf.Message)
	case errors.As(err, &se) && storeStatus[se.Kind] != 0:
		return problem(storeStatus[se.Kind], se.Message)
	case errors.As(err, &he):
		switch status := he.Code; {
		case status == http.StatusNotFound && r.URL.Path == stateQueryPrefix:
			// The state query with its {id} empty: the id is missing (its 404 is an absence
			// proof, never "no such operation").
			return problem(http.StatusBadRequest, "Invalid input: id is missing or empty: give a namespace_id, registry_id or record_id")
		case status == http.StatusNotFound:
			return problem(status, "Not found: no operation at "+r.URL.Path)
		case status == http.StatusMethodNotAllowed:
			return problem(status, "Method not allowed: "+r.Method+" "+r.URL.Path)
		case status == http.StatusRequestEntityTooLarge:
			return problem(status, "Request body too large")
		case status >= 400 && status < 500:
			msg := fmt.Sprint(he.Message)
			if he.Internal != nil {
				msg = fmt.Sprintf("%v: %v", he.Message, he.Internal)
			}
			if status == http.StatusBadRequest {
				msg = "Invalid input: " + msg
			}
			return problem(status, msg)
		}
	}
	return problem(http.StatusInternalServerError, msgUnexpected)
}

// errorHandler is echo's single error exit: it answers with answer(err) and logs 5xx with the
// request id.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	a := answer(err, c.Request())
	if a.Status >= 500 {
		s.log.ErrorContext(c.Request().Context(), "request failed",
			slog.String("request_id", requestID(c)),
			slog.String("method", c.Request().Method),
			slog.String("path", c.Request().URL.Path),
			slog.Any("error", err))
	}
	if a.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(a.RetryAfter))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(a.Status)
		return
	}
	if op := s.ops[opKey{c.Request().Method, c.Path()}]; op != nil && op.problem {
		// The TRQP operations answer RFC 7807 Problem Details (their binding's error form).
		p := gen.Problem{Type: "about:blank", Title: http.StatusText(a.Status), Status: a.Status, Detail: a.Message}
		if a.Code != "" {
			code := a.Code
			p.Code = &code
		}
		body, err := json.Marshal(p)
		if err == nil {
			_ = c.Blob(a.Status, problemJSON, body)
			return
		}
	}
	_ = c.JSON(a.Status, gen.Error{Message: a.Message, Code: a.Code})
}

// problemJSON is the media type of RFC 7807 Problem Details.
const problemJSON = "application/problem+json"

func requestID(c echo.Context) string {
	if id := c.Response().Header().Get(echo.HeaderXRequestID); id != "" {
		return id
	}
	return c.Request().Header.Get(echo.HeaderXRequestID)
}
