package server

import "github.com/labstack/echo/v4"

// composed returns the middleware chain mws (the first outermost) as one middleware, built
// once. Echo applies its middleware to the routed handler on every request, making a closure
// per middleware per request; the chain built here ends in a handler that calls the handler
// echo routed the request to (c.Handler(), which is what echo passes as next), so applying it
// makes nothing.
func composed(mws ...echo.MiddlewareFunc) echo.MiddlewareFunc {
	h := func(c echo.Context) error { return c.Handler()(c) }
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return func(echo.HandlerFunc) echo.HandlerFunc { return h }
}
