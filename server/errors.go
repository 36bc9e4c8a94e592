package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/gen"
)

// Messages the specification fixes.
const (
	msgUnexpected         = "An unexpected error occurred"
	msgAuthFailed         = "Authentication failed"
	msgUnauthorized       = "Unauthorized: Invalid or missing authentication token"
	msgUserNotFound       = "User not found"
	msgNamespaceMissing   = "Namespace not found"
	msgUnavailable        = "database unavailable"
	msgVerificationFailed = "Verification failed"
)

// apiError is an expected client-facing outcome raised outside a handler (middleware, binding).
type apiError struct {
	Status  int
	Message string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Message) }

func newAPIError(status int, format string, args ...any) *apiError {
	return &apiError{Status: status, Message: fmt.Sprintf(format, args...)}
}

// errorCode is the one mapping of an error's status (and, for the few specific codes, its
// message) to the stable code of the contract's ErrorCode enum.
func errorCode(status int, msg string) gen.ErrorCode {
	switch status {
	case http.StatusBadRequest:
		if msg == msgVerificationFailed {
			return gen.ErrorCodeVerificationFailed
		}
		return gen.ErrorCodeInvalidInput
	case http.StatusUnauthorized:
		return gen.ErrorCodeUnauthorized
	case http.StatusForbidden:
		return gen.ErrorCodeForbidden
	case http.StatusNotFound:
		switch msg {
		case msgNamespaceMissing:
			return gen.ErrorCodeNamespaceNotFound
		case msgUserNotFound:
			return gen.ErrorCodeUserNotFound
		}
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

// errorBody is the JSON of every error: its message and its code.
func errorBody(status int, msg string) gen.Error {
	return gen.Error{Message: msg, Code: errorCode(status, msg)}
}

// answer is the one mapping of an error to the status and message the client gets: expected
// outcomes keep theirs; anything else is 500 with the fixed message. Handlers answer the
// denials their operation lists with its generated types and return any other denial here, so
// that it keeps its own status.
func answer(err error, r *http.Request) (int, string) {
	var ae *apiError
	var d *denial
	var he *echo.HTTPError
	switch {
	case errors.As(err, &ae):
		return ae.Status, ae.Message
	case errors.As(err, &d):
		return d.status, d.msg
	case errors.As(err, &he):
		switch status := he.Code; {
		case status == http.StatusNotFound:
			return status, "Not found: no operation at " + r.URL.Path
		case status == http.StatusMethodNotAllowed:
			return status, "Method not allowed: " + r.Method + " " + r.URL.Path
		case status == http.StatusRequestEntityTooLarge:
			return status, "Request body too large"
		case status >= 400 && status < 500:
			msg := fmt.Sprint(he.Message)
			if he.Internal != nil {
				msg = fmt.Sprintf("%v: %v", he.Message, he.Internal)
			}
			if status == http.StatusBadRequest {
				msg = "Invalid input: " + msg
			}
			return status, msg
		}
	}
	return http.StatusInternalServerError, msgUnexpected
}

// errorHandler is echo's single error exit: it answers with answer(err) and logs 5xx with the
// request id.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := answer(err, c.Request())
	if status >= 500 {
		s.log.ErrorContext(c.Request().Context(), "request failed",
			slog.String("request_id", requestID(c)),
			slog.String("method", c.Request().Method),
			slog.String("path", c.Request().URL.Path),
			slog.Any("error", err))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = c.JSON(status, errorBody(status, msg))
}

func requestID(c echo.Context) string {
	if id := c.Response().Header().Get(echo.HeaderXRequestID); id != "" {
		return id
	}
	return c.Request().Header.Get(echo.HeaderXRequestID)
}
