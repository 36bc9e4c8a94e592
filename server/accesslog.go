package server

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/internal/jsonlog"
)

// accessWriter is a log handler that writes the access line itself (jsonlog.Handler: the line
// slog's JSON handler would write, encoded by hand); under any other handler the line is
// logged through the logger.
type accessWriter interface{ WriteAccess(jsonlog.Access) }

// observe times every request once, for its access line and its metrics (when on). It runs
// after the request id middleware; a handler's error is answered by the error handler after the
// chain (unless the answer had begun: then the status sent stands), so the status is derived
// here the same way, once for both.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		now := time.Now()
		elapsed := now.Sub(start)
		route := c.Path() // the route template, never the raw path (which may hold ids)
		if route == "" {
			route = "unmatched"
		}
		status := c.Response().Status
		if err != nil && !c.Response().Committed {
			status = answer(err, c.Request()).Status
		}
		if s.metrics != nil {
			s.metrics.record(c, route, status, elapsed)
		}
		s.logAccess(c, route, status, now, elapsed)
		return err
	}
}

// logAccess writes the request's line at level info: method, route template, status, duration
// and request id.
func (s *Server) logAccess(c echo.Context, route string, status int, now time.Time, elapsed time.Duration) {
	a := jsonlog.Access{Time: now, Method: requestMethod(c), Route: route, Status: status,
		DurationMS: float64(elapsed.Microseconds()) / 1000, RequestID: requestID(c)}
	if s.access != nil {
		s.access.WriteAccess(a)
		return
	}
	s.log.LogAttrs(c.Request().Context(), slog.LevelInfo, "request", a.Attrs()...)
}
