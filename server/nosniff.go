package server

import "github.com/labstack/echo/v4"

// noSniff says on every answer, before routing (errors, relayed DeDi bytes, JSON, pages), that
// its Content-Type is to be believed: a browser never reads a publisher's relayed file, or a
// JSON answer that echoes a hostile name, as HTML or script.
func noSniff(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header()["X-Content-Type-Options"] = nosniffValue
		return next(c)
	}
}

// nosniffValue is shared by every answer (its one element is never changed in place).
var nosniffValue = []string{"nosniff"}
