package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	api "github.com/svc-directory/svc/gen"
)

// contractRoutes indexes the contract's operations by echo route ("GET /svc/lookup/:namespace").
var contractRoutes = sync.OnceValues(func() (map[string]*routers.Route, error) {
	doc, err := api.GetSpec()
	if err != nil {
		return nil, err
	}
	doc.Servers = openapi3.Servers{}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	out := map[string]*routers.Route{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			out[method+" "+param.ReplaceAllString(path, ":$1")] = &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
		}
	}
	return out, nil
})

// contractChecked wraps the server so that every response a test gets is validated against
// openapi.yaml: the status must be declared for the operation and the body must match its
// schema. Errors outside the contract's operations (unknown paths, wrong methods) must still
// be Error bodies. A mismatch fails the test with the operation, the status and the reason.
type contractChecked struct {
	t testing.TB
	e *echo.Echo
}

// recorder keeps a copy of what the server writes.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (the export sets its own write deadline).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *contractChecked) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	// What validation needs of the request (method, URL, headers), kept before the server reads it.
	orig := req.Clone(context.Background())
	orig.Body = http.NoBody
	rec := &recorder{ResponseWriter: w}
	c.e.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if err := c.check(orig, rec.status, w.Header(), rec.body.Bytes()); err != nil {
		c.t.Errorf("contract violation: %s %s -> %d: %v\nbody: %.400s", orig.Method, orig.URL.RequestURI(), rec.status, err, rec.body.Bytes())
	}
}

// check validates one response; it returns why it breaks the contract, or nil.
func (c *contractChecked) check(req *http.Request, status int, header http.Header, body []byte) error {
	routes, err := contractRoutes()
	if err != nil {
		return err
	}
	ec := c.e.NewContext(req, nil)
	c.e.Router().Find(req.Method, echo.GetPath(req), ec)
	method := req.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	route := routes[method+" "+ec.Path()]
	if route == nil {
		if strings.HasPrefix(req.URL.Path, "/explore") && strings.HasPrefix(header.Get("Content-Type"), "text/html") {
			return nil // the explorer's pages (docs/explorer.md) are for people: HTML, errors too
		}
		if status >= 400 && req.Method != http.MethodHead {
			return checkErrorBody(body)
		}
		return nil // not an operation of the contract (/openapi.yaml, /metrics, /docs)
	}
	params := map[string]string{}
	for i, name := range ec.ParamNames() {
		v := ec.ParamValues()[i]
		if req.URL.RawPath != "" { // echo routed the escaped path (the server's unescapedParam)
			if u, err := url.PathUnescape(v); err == nil {
				v = u
			}
		}
		params[name] = v
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: req.Method == http.MethodHead}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                opts,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("operation %s: %w", route.Operation.OperationID, err)
	}
	return nil
}

// checkErrorBody validates an error answered outside the contract's operations against the
// Error schema.
func checkErrorBody(body []byte) error {
	routes, err := contractRoutes()
	if err != nil {
		return err
	}
	var doc *openapi3.T
	for _, r := range routes {
		doc = r.Spec
		break
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("error body is not JSON: %w", err)
	}
	if err := doc.Components.Schemas["Error"].Value.VisitJSON(v); err != nil {
		return fmt.Errorf("error body does not match the Error schema: %w", err)
	}
	return nil
}
