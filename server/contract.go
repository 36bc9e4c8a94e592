package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/store"
)

// Body limits (docs/operator-guide.md, Limits).
const (
	maxBody        = 1 << 20
	maxBulkBody    = 8 << 20
	maxUploadBody  = csvjob.MaxFile + 1<<20 // the file and its multipart framing
	maxJSONDepth   = 64
	verificationTg = "verification"
)

// bulkOperation is the operation id of add-records as the embedded contract carries it, which
// is the name oapi-codegen gives the operation (the contract's `addRecords` is embedded as
// `AddRecords`). It is taken from the generated request type, so that renaming the operation
// changes it too (or stops the build); loadOperations refuses a contract without it.
var bulkOperation = strings.TrimSuffix(reflect.TypeFor[gen.AddRecordsRequestObject]().Name(), "RequestObject")

// exportOperation streams a whole registry, for longer than the server's write timeout (60 s)
// allows a response: its deadline is exportWriteTimeout.
var exportOperation = strings.TrimSuffix(reflect.TypeFor[gen.ExportRecordsAsCsvRequestObject]().Name(), "RequestObject")

const exportWriteTimeout = 30 * time.Minute

// authMode is an operation's security as the contract declares it.
type authMode int

const (
	authNone     authMode = iota // security: []
	authOptional                 // security: [{}, {bearerAuth: []}]
	authRequired                 // security: [{bearerAuth: []}]
)

// operation is what the middleware knows of one contract operation.
type operation struct {
	route        *routers.Route
	id           string
	auth         authMode
	verification bool // the verification endpoints answer "Authentication failed" / "User not found"
	bodyLimit    int64
	// multipart: the body is multipart/form-data (bulk-upload), read by the handler, not JSON.
	multipart bool
}

// restOfPathExt is the contract's extension naming an operation's path parameter that takes
// the rest of the URL path, slashes included (OpenAPI path parameters cannot hold a slash;
// /svc/log/tile/{tile_path} takes C2SP's tile paths, 0/x001/234.p/17). The parameter must end
// the operation's path: echo's router gives a parameter that ends a route all the rest of the
// path (server/logtiles_test.go reads tiles with their slashes), and the contract middleware
// validates the whole of it as that parameter. A client generated from the contract escapes
// the slashes (0%2Fx001%2F234.p%2F17) and is answered alike.
const restOfPathExt = "x-svc-rest-of-path"

// loadOperations indexes the contract by echo route ("GET /svc/lookup/:namespace").
func loadOperations(doc *openapi3.T) (map[string]*operation, error) {
	ops := map[string]*operation{}
	bulk := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := &operation{
				route:     &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op},
				id:        op.OperationID,
				bodyLimit: maxBody,
			}
			if o.id == bulkOperation {
				o.bodyLimit = maxBulkBody
				bulk++
			}
			if rb := op.RequestBody; rb != nil && rb.Value != nil && rb.Value.Content.Get("multipart/form-data") != nil {
				o.multipart, o.bodyLimit = true, maxUploadBody
			}
			for _, t := range op.Tags {
				if t == verificationTg {
					o.verification = true
				}
			}
			sec := doc.Security
			if op.Security != nil {
				sec = *op.Security
			}
			switch {
			case len(sec) == 0:
				o.auth = authNone
			default:
				o.auth = authRequired
				for _, req := range sec {
					if len(req) == 0 {
						o.auth = authOptional
					}
				}
			}
			ops[method+" "+echoPath(path)] = o
			if v, ok := op.Extensions[restOfPathExt]; ok {
				if name, _ := v.(string); !strings.HasSuffix(path, "/{"+name+"}") {
					return nil, fmt.Errorf("server: %s of %s must name the parameter that ends its path", restOfPathExt, o.id)
				}
			}
		}
	}
	if len(ops) == 0 {
		return nil, errors.New("server: the contract has no operations")
	}
	if bulk != 1 {
		return nil, fmt.Errorf("server: the contract has %d operations with the id %q of add-records (want 1)", bulk, bulkOperation)
	}
	return ops, nil
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// echoPath turns /svc/lookup/{namespace} into echo's /svc/lookup/:namespace.
func echoPath(p string) string { return pathParam.ReplaceAllString(p, ":$1") }

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
		op := s.ops[req.Method+" "+c.Path()]
		if op == nil {
			return next(c)
		}
		ri := &reqInfo{OperationID: op.id, Query: req.URL.Query()}
		if op.id == exportOperation {
			// Not supported by test recorders; a real connection takes it.
			_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Now().Add(exportWriteTimeout))
		}
		var body any
		hasBody := false
		header := req.Header.Get(echo.HeaderAuthorization)
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
		params := make(map[string]string, len(c.ParamNames()))
		for i, name := range c.ParamNames() {
			v, err := url.PathUnescape(c.ParamValues()[i])
			if err != nil {
				return problemf(http.StatusBadRequest, "Invalid input: path parameter %q is not properly escaped", name)
			}
			if err := proof.CheckText(v); err != nil {
				return problemf(http.StatusBadRequest, "Invalid input: path parameter %s: %v", name, err)
			}
			params[name] = v
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
		in := &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      op.route,
			Options: &openapi3filter.Options{
				AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
				MultiError:         false,
				// The body was parsed once above; it is validated from that value below.
				ExcludeRequestBody: true,
			},
		}
		err = openapi3filter.ValidateRequest(req.Context(), in)
		if err == nil {
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
func (s *Server) authenticate(ctx context.Context, header string, op *operation) (*store.User, error) {
	if op.auth == authNone {
		return nil, nil
	}
	unauthorized := problemf(http.StatusUnauthorized, msgUnauthorized)
	if op.verification {
		unauthorized = problemf(http.StatusUnauthorized, msgAuthFailed)
	}
	key, present, ok := bearerKey(header)
	if !present {
		if op.auth == authOptional {
			return nil, nil
		}
		return nil, unauthorized
	}
	if !ok {
		return nil, unauthorized
	}
	u, err := s.store.Authenticate(ctx, key)
	switch {
	case errors.Is(err, store.ErrMalformedKey), errors.Is(err, directory.ErrNotFound):
		return nil, unauthorized
	case err != nil:
		return nil, err
	case u.Disabled && op.verification:
		return nil, errUserNotFound
	case u.Disabled:
		return nil, unauthorized
	}
	return &u, nil
}

// bearerKey reads an Authorization header: present is false when it is absent or blank, ok
// is true for "Bearer <key>" (scheme in any case), with the key trimmed. Authentication and
// the rate limiter read the header through it alike.
func bearerKey(header string) (key string, present, ok bool) {
	h := strings.TrimSpace(header)
	if h == "" {
		return "", false, false
	}
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", true, false
	}
	return strings.TrimSpace(key), true, true
}

// describeValidation turns a kin-openapi error into the "<what>" of "Invalid input: <what>",
// naming the parameter or the body field and never echoing the value.
func describeValidation(err error, op *operation) string {
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return "request does not match the contract"
	}
	var se *openapi3.SchemaError
	hasSchemaErr := errors.As(re.Err, &se)
	switch {
	case re.Parameter != nil:
		what := fmt.Sprintf("%s parameter %s", re.Parameter.In, re.Parameter.Name)
		if hasSchemaErr {
			return what + ": " + se.Reason
		}
		if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) {
			return what + " is required"
		}
		var pe *openapi3filter.ParseError
		if errors.As(re.Err, &pe) {
			return what + ": " + pe.Reason
		}
		return what + " is invalid"
	case re.RequestBody != nil:
		if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) || strings.Contains(re.Reason, "required but missing") {
			// An absent body of an operation whose body has one required field reads as that field missing
			// ("Invalid input: namespace_lookup_response is missing").
			if only := soleRequiredProperty(op); only != "" {
				return only + " is missing"
			}
			return "request body is missing"
		}
		if hasSchemaErr {
			ptr := se.JSONPointer()
			if m := missingProperty.FindStringSubmatch(se.Reason); m != nil {
				return fieldPath(ptr, m[1]) + " is missing"
			}
			if m := unsupportedProperty.FindStringSubmatch(se.Reason); m != nil {
				return fieldPath(ptr, m[1]) + " is not a known field"
			}
			if len(ptr) == 0 {
				return "request body: " + se.Reason
			}
			return strings.Join(ptr, ".") + ": " + se.Reason
		}
		if re.Reason != "" {
			return "request body: " + re.Reason
		}
		return "request body is invalid"
	}
	if re.Reason != "" {
		return re.Reason
	}
	return "request does not match the contract"
}

var (
	missingProperty     = regexp.MustCompile(`^property "([^"]+)" is missing$`)
	unsupportedProperty = regexp.MustCompile(`^property "([^"]+)" is unsupported$`)
)

// fieldPath joins a body path with the property an error names (kin-openapi puts the property
// at the end of the pointer for some errors and not for others).
func fieldPath(ptr []string, prop string) string {
	if len(ptr) == 0 || ptr[len(ptr)-1] != prop {
		ptr = append(ptr, prop)
	}
	return strings.Join(ptr, ".")
}

func soleRequiredProperty(op *operation) string {
	rb := op.route.Operation.RequestBody
	if rb == nil || rb.Value == nil {
		return ""
	}
	mt := rb.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return ""
	}
	req := append([]string(nil), mt.Schema.Value.Required...)
	sort.Strings(req)
	if len(req) == 1 {
		return req[0]
	}
	return ""
}
