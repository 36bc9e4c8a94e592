package server

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
)

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
		s.log.LogAttrs(c.Request().Context(), slog.LevelInfo, "request",
			slog.String("method", requestMethod(c)),
			slog.String("route", route),
			slog.Int("status", status),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("request_id", requestID(c)),
		)
		return err
	}
}
