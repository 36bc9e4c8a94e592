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
	_ = c.JSON(status, body{Message: msg})
}

func requestID(c echo.Context) string {
	if id := c.Response().Header().Get(echo.HeaderXRequestID); id != "" {
		return id
	}
	return c.Request().Header.Get(echo.HeaderXRequestID)
}
