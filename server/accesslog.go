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

// accessLog writes one line per request at level info: method, route template (never the raw
// path, which may hold ids), status, duration and request id. It runs after the request id
// middleware; a handler's error is answered by the error handler after the chain, so its status
// is derived here the same way.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		status := c.Response().Status
		if err != nil && !c.Response().Committed {
			status = answer(err, c.Request()).Status
		}
		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		now := time.Now()
		a := jsonlog.Access{Time: now, Method: requestMethod(c), Route: route, Status: status,
			DurationMS: float64(now.Sub(start).Microseconds()) / 1000, RequestID: requestID(c)}
		if s.access != nil {
			s.access.WriteAccess(a)
		} else {
			s.log.LogAttrs(c.Request().Context(), slog.LevelInfo, "request", a.Attrs()...)
		}
		return err
	}
}
