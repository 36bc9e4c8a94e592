package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
)

// Messages the specification fixes.
const (
	msgUnexpected       = "An unexpected error occurred"
	msgAuthFailed       = "Authentication failed"
	msgUnauthorized     = "Unauthorized: Invalid or missing authentication token"
	msgUserNotFound     = "User not found"
	msgNamespaceMissing = "Namespace not found"
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

// body is the JSON of every error.
type body struct {
	Message string `json:"message"`
}

// errorHandler is echo's single error exit: expected outcomes keep their status and message;
// anything else is logged with the request id and answered 500 with the fixed message.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := http.StatusInternalServerError, msgUnexpected
	var ae *apiError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &ae):
		status, msg = ae.Status, ae.Message
	case errors.As(err, &he):
		status = he.Code
		switch {
		case status == http.StatusNotFound:
			msg = "Not found: no operation at " + c.Request().URL.Path
		case status == http.StatusMethodNotAllowed:
			msg = "Method not allowed: " + c.Request().Method + " " + c.Request().URL.Path
		case status == http.StatusRequestEntityTooLarge:
			msg = "Request body too large"
		case status >= 400 && status < 500:
			msg = fmt.Sprint(he.Message)
			if he.Internal != nil {
				msg = fmt.Sprintf("%v: %v", he.Message, he.Internal)
			}
			if status == http.StatusBadRequest {
				msg = "Invalid input: " + msg
			}
		default:
			status, msg = http.StatusInternalServerError, msgUnexpected
		}
	}
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
	_ = c.JSON(status, body{Message: msg})
}

func requestID(c echo.Context) string {
	if id := c.Response().Header().Get(echo.HeaderXRequestID); id != "" {
		return id
	}
	return c.Request().Header.Get(echo.HeaderXRequestID)
}
