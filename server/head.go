package server

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// ctxOriginalMethod is the echo context key under which headAsGet keeps a request's own method.
const ctxOriginalMethod = "svc.original_method"

// headAsGet answers HEAD wherever GET is answered (RFC 9110 §9.3.2). Before routing, a HEAD
// request becomes a GET (echo routes by the request's method), so that routing, the contract
// checks and the handler are exactly those of GET. The answer goes to a writer that keeps the
// status and headers and counts the body instead of sending it; afterwards the method is HEAD
// again and the status goes out with GET's headers and a Content-Length of the body GET would
// have sent. Handler errors are answered here (through echo's error handler), so that their
// bodies are counted too. requestMethod gives the logs the method the client sent.
func headAsGet(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method != http.MethodHead {
			return next(c)
		}
		c.Set(ctxOriginalMethod, http.MethodHead)
		r.Method = http.MethodGet
		res := c.Response()
		hw := &headWriter{ResponseWriter: res.Writer}
		res.Writer = hw
		if err := next(c); err != nil {
			c.Error(err)
		}
		r.Method = http.MethodHead
		res.Writer = hw.ResponseWriter
		hw.finish()
		return nil
	}
}

// headWriter holds back the status and drops the body of a HEAD answer, counting its bytes.
type headWriter struct {
	http.ResponseWriter
	status int
	n      int
}

func (w *headWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *headWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}

// Flush is a no-op: nothing is sent before the handler is done.
func (w *headWriter) Flush() {}

func (w *headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *headWriter) finish() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	h := w.ResponseWriter.Header()
	if h.Get("Content-Length") == "" && w.n > 0 {
		h.Set("Content-Length", strconv.Itoa(w.n))
	}
	w.ResponseWriter.WriteHeader(w.status)
}

// requestMethod is the method the client sent (HEAD for a request served as GET).
func requestMethod(c echo.Context) string {
	if m, ok := c.Get(ctxOriginalMethod).(string); ok {
		return m
	}
	return c.Request().Method
}
