package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/store"
)

// reqInfo travels in the request context from the middleware to the handlers.
type reqInfo struct {
	OperationID string
	User        *store.User // nil when anonymous
	Query       url.Values  // the raw query (search reads its free-form parameters here)
	Body        []byte      // the raw body, already checked to be strict JSON
	Value       any         // the body as parsed from Body (nil when there is none)
}

// parsedBody replaces a request body once the middleware has read and parsed it. The generated
// handlers bind ValidatedValue, the value the contract was checked against, into the request
// type instead of decoding the bytes a second time (and with exact member names, where
// encoding/json would also take "Details" for "details").
type parsedBody struct {
	*bytes.Reader
	value any
}

func (parsedBody) Close() error          { return nil }
func (b parsedBody) ValidatedValue() any { return b.value }

// nullMember reports whether the body is an object whose member name is present and null
// (the generated types cannot tell that from absent).
func (ri *reqInfo) nullMember(name string) bool {
	m, ok := ri.Value.(map[string]any)
	if !ok {
		return false
	}
	v, present := m[name]
	return present && v == nil
}

type ctxKey struct{}

func withInfo(ctx context.Context, ri *reqInfo) context.Context {
	return context.WithValue(ctx, ctxKey{}, ri)
}

// info returns the request's reqInfo (never nil).
func info(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(ctxKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

// contract authenticates the caller as the operation's security says, checks that a JSON body
// is strict JSON (no NUL characters, no lone surrogates, no duplicate keys, bounded depth, and
// but for the verification operations no number that would be stored other than sent), and
// validates the request against the contract. Requests to paths outside the contract pass.
func (s *Server) contract(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		op := s.ops[opKey{req.Method, c.Path()}]
		if op == nil {
			return next(c)
		}
		ri := &reqInfo{OperationID: op.id}
		if req.URL.RawQuery != "" { // none: a nil map, which reads as an empty one
			ri.Query = req.URL.Query()
		}
		if op.id == exportOperation {
			// Not supported by test recorders; a real connection takes it.
			_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Now().Add(exportWriteTimeout))
		}
		var body any
		hasBody := false
		header := req.Header.Get(echo.HeaderAuthorization)
		// The audience of the answer, whatever it is (cache.go): a HEAD is a GET here (head.go).
		_, keyed, _ := bearerKey(header)
		method, res := req.Method, c.Response()
		res.Before(func() { cacheRule(res.Header(), op, method, keyed) })
		user, err := s.authenticate(req.Context(), header, op)
		if key, _, ok := bearerKey(header); ok && (user != nil || err != nil) {
			// Only a key that authenticated is rate limited on its own; others count
			// against the client address.
			if user != nil {
				s.limiter.authenticated(hashKey(key))
			} else {
				s.limiter.failed(hashKey(key))
			}
		}
		if err != nil {
			return err
		}
		ri.User = user

		if req.Body != nil && req.Body != http.NoBody {
			data, err := io.ReadAll(http.MaxBytesReader(c.Response(), req.Body, op.bodyLimit))
			if err != nil {
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					return problemf(http.StatusRequestEntityTooLarge, "Request body too large (limit %d MiB)", op.bodyLimit>>20)
				}
				return problemf(http.StatusBadRequest, "Invalid input: could not read the request body")
			}
			if op.multipart {
				if mt, params, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); err != nil || mt != "multipart/form-data" {
					return problemf(http.StatusUnsupportedMediaType, "Unsupported media type: send the file as multipart/form-data (Content-Type was %q)", req.Header.Get(echo.HeaderContentType))
				} else if params["boundary"] == "" {
					return problemf(http.StatusBadRequest, "Invalid input: the multipart/form-data Content-Type has no boundary")
				}
			} else if len(bytes.TrimSpace(data)) > 0 {
				parse := proof.ParseExactJSON
				if op.verification {
					// A lookup response to verify is read as JSON.parse reads it: it is
					// hashed as it came, never stored.
					parse = proof.ParseJSON
				}
				v, err := parse(data, maxJSONDepth)
				if err != nil {
					return problemf(http.StatusBadRequest, "Invalid input: %s", err)
				}
				ri.Body, ri.Value, body, hasBody = data, v, v, true
			} else {
				data = nil
			}
			req.Body = io.NopCloser(bytes.NewReader(data))
			req.ContentLength = int64(len(data))
		}

		if op.multipart && req.ContentLength <= 0 {
			return problemf(http.StatusBadRequest, "Invalid input: the body is missing: send the file in the multipart/form-data field file")
		}
		// The path parameters, unescaped once (in a map only for the full check).
		names := c.ParamNames()
		var room [8]string
		values := room[:0]
		for i, name := range names {
			if entryNameParam[name] && strings.Contains(c.ParamValues()[i], "/") {
				// Echo's last path parameter takes the rest of the path, slashes and all: a name
				// is one segment, its / sent as %2F, so that each name has one address.
				return problemf(http.StatusNotFound, "Not found: the path has more segments than the operation's; a name's / is sent as %%2F")
			}
			v, err := unescapedParam(req, c.ParamValues()[i])
			if err != nil {
				return problemf(http.StatusBadRequest, "Invalid input: path parameter %q is not properly escaped", name)
			}
			if err := proof.CheckText(v); err != nil {
				return problemf(http.StatusBadRequest, "Invalid input: path parameter %s: %v", name, err)
			}
			values = append(values, v)
		}
		// Parameter text reaches the database as it is: NUL and invalid UTF-8 are refused here,
		// as they are in bodies (Postgres would refuse them with an error).
		for name, vs := range ri.Query {
			if err := proof.CheckText(name); err != nil {
				return problemf(http.StatusBadRequest, "Invalid input: a query parameter name: %v", err)
			}
			for _, v := range vs {
				if err := proof.CheckText(v); err != nil {
					return problemf(http.StatusBadRequest, "Invalid input: query parameter %s: %v", name, err)
				}
			}
		}
		// The full check's input is made only when it runs or a body is checked: the quick
		// check of a GET without a body needs none.
		var in *openapi3filter.RequestValidationInput
		if !op.fast.valid(req, names, values) {
			in = validationInput(req, names, values, op)
			err = openapi3filter.ValidateRequest(req.Context(), in)
		}
		if err == nil && op.route.Operation.RequestBody != nil { // validateBody passes an operation without one
			if in == nil {
				in = validationInput(req, names, values, op)
			}
			err = validateBody(in, op, body, hasBody)
		}
		var ae *apiError
		if errors.As(err, &ae) {
			return ae
		}
		if err != nil {
			return problemf(http.StatusBadRequest, "Invalid input: %s", describeValidation(err, op))
		}
		if hasBody {
			// After validation, which replaces the body with a reader of its own.
			req.Body = parsedBody{Reader: bytes.NewReader(ri.Body), value: body}
		}
		c.SetRequest(req.WithContext(withInfo(req.Context(), ri)))
		return next(c)
	}
}

// entryNameParam are the path parameters that name a registry or a record (AnyEntryName,
// EntryName): one path segment each.
var entryNameParam = map[string]bool{"registry_name": true, "record_name": true}

// unescapedParam is a path parameter's value as echo routed it, unescaped exactly once. Echo routes
// the request's RawPath when it has one (the path holds an escape that is not the default
// encoding, such as %2F) and its decoded Path otherwise, so a value is escaped in the first
// case and already decoded in the second: unescaping it again would refuse a name holding %
// and read the name 100%41 as 100A. The generated handlers bind it alike (ValueIsUnescaped).
func unescapedParam(req *http.Request, v string) (string, error) {
	if req.URL.RawPath == "" {
		return v, nil
	}
	return url.PathUnescape(v)
}

// validationInput is the full check's input for a request.
func validationInput(req *http.Request, names, values []string, op *operation) *openapi3filter.RequestValidationInput {
	params := make(map[string]string, len(names))
	for i, name := range names {
		params[name] = values[i]
	}
	return &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: params,
		Route:      op.route,
		Options: &openapi3filter.Options{
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			MultiError:         false,
			// The body was parsed once (contract); it is validated from that value (validateBody).
			ExcludeRequestBody: true,
		},
	}
}

// validateBody checks the parsed body against the operation's request body schema, as
// openapi3filter would after decoding it a second time.
func validateBody(in *openapi3filter.RequestValidationInput, op *operation, body any, present bool) error {
	ref := op.route.Operation.RequestBody
	if ref == nil || ref.Value == nil || op.multipart { // a multipart body's parts are read by its handler
		return nil
	}
	rb := ref.Value
	if !present {
		if rb.Required {
			return &openapi3filter.RequestError{Input: in, RequestBody: rb, Err: openapi3filter.ErrInvalidRequired}
		}
		return nil
	}
	ct := in.Request.Header.Get(echo.HeaderContentType)
	mt := rb.Content.Get(ct)
	if mt == nil {
		return problemf(http.StatusUnsupportedMediaType, "Unsupported media type: send the body as application/json (Content-Type was %q)", ct)
	}
	if mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	if err := mt.Schema.Value.VisitJSON(body, openapi3.VisitAsRequest()); err != nil {
		return &openapi3filter.RequestError{Input: in, RequestBody: rb, Reason: "doesn't match schema", Err: err}
	}
	return nil
}

// authenticate applies the authentication rules of docs/api-guide.md. It returns the user (nil when anonymous) or the
// client-facing error.
