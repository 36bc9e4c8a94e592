package server

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/gen"
)

// The operations of the contract, as the middleware knows them: their paths, methods, how they
// authenticate, and what their requests may carry.

// Body limits (docs/operator-guide.md, Limits).
const (
	maxBody        = 1 << 20
	maxBulkBody    = 8 << 20
	maxUploadBody  = csvjob.MaxFile + 1<<20 // the file and its multipart framing
	maxJSONDepth   = 64
	verificationTg = "verification"
	// trqpTag: the TRQP operations, which answer errors as Problem Details and take bodies of up
	// to maxTRQPBody (a 1 MiB string is refused by the contract's maxLength, 400, not 413).
	trqpTag     = "trqp"
	maxTRQPBody = 2 << 20
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
	// problem: errors are answered as RFC 7807 Problem Details (the trqp tag).
	problem bool
	// fast is the quick check of its parameters (validatefast.go); nil: the full check only.
	fast *fastParams
}

// restOfPathExt is the contract's extension naming an operation's path parameter that takes
// the rest of the URL path, slashes included (OpenAPI path parameters cannot hold a slash;
// /svc/log/tile/{tile_path} takes C2SP's tile paths, 0/x001/234.p/17). The parameter must end
// the operation's path: echo's router gives a parameter that ends a route all the rest of the
// path (server/logtiles_test.go reads tiles with their slashes), and the contract middleware
// validates the whole of it as that parameter. A client generated from the contract escapes
// the slashes (0%2Fx001%2F234.p%2F17) and is answered alike.
const restOfPathExt = "x-svc-rest-of-path"

// loadOperations indexes the contract by method and echo route (GET /svc/lookup/:namespace).
func loadOperations(doc *openapi3.T) (map[opKey]*operation, error) {
	ops := map[opKey]*operation{}
	bulk := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := &operation{
				route:     &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op},
				id:        op.OperationID,
				bodyLimit: maxBody,
			}
			if !doc.IsOpenAPI31OrLater() { // 3.1 checks schemas as JSON Schema 2020-12: the full check only
				o.fast = newFastParams(item, op)
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
				if t == trqpTag {
					o.problem, o.bodyLimit = true, maxTRQPBody
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
			ops[opKey{method, echoPath(path)}] = o
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

// opKey names an operation by its method and echo route, as a request's are known.
type opKey struct{ method, route string }

func (k opKey) String() string { return k.method + " " + k.route }
