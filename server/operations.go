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
	// sameForEveryCaller: the contract declares (sameAnswerExt) that the answer does not
	// depend on who asks, so that it keeps its Cache-Control whoever asks (cache.go).
	sameForEveryCaller bool
}

// restOfPathExt is the contract's extension naming an operation's path parameter that takes
// the rest of the URL path, slashes included (OpenAPI path parameters cannot hold a slash;
// /svc/log/tile/{tile_path} takes C2SP's tile paths, 0/x001/234.p/17). The parameter must end
// the operation's path: echo's router gives a parameter that ends a route all the rest of the
// path (server/logtiles_test.go reads tiles with their slashes), and the contract middleware
// validates the whole of it as that parameter. A client generated from the contract escapes
// the slashes (0%2Fx001%2F234.p%2F17) and is answered alike.
const restOfPathExt = "x-svc-rest-of-path"

// sameAnswerExt is the contract's extension declaring that an operation answers every caller
// alike: the anonymous reader, the namespace's owner and any other user get the same answer
// (cache.go, cacheRule). An operation without it may answer a caller otherwise (drafts are
// for the owner and delegates), so its answers to a caller with a key are private. An
// operation that needs a key cannot declare it: its anonymous answer is a 401.
const sameAnswerExt = "x-svc-same-for-every-caller"

// probeExt is the contract's extension marking the probes of load balancers (/healthz,
// /readyz), the only operations that may declare `security: []`: they never read the
// Authorization header and answer whatever it holds (/healthz without touching the database).
// Every other operation reads a key that is sent and answers 401 when it is not valid
// (docs/api-guide.md, Authentication).
const probeExt = "x-svc-probe"

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
			o.verification = hasTag(op, verificationTg)
			if hasTag(op, trqpTag) {
				o.problem, o.bodyLimit = true, maxTRQPBody
			}
			sec := doc.Security
			if op.Security != nil {
				sec = *op.Security
			}
			switch {
			case len(sec) == 0:
				if probe, _ := op.Extensions[probeExt].(bool); !probe {
					return nil, fmt.Errorf("server: %s declares security: [] (a key sent would not be read); only a probe (%s) may: declare [{}, {bearerAuth: []}]", o.id, probeExt)
				}
				o.auth = authNone
			default:
				o.auth = authRequired
				for _, req := range sec {
					if len(req) == 0 {
						o.auth = authOptional
					}
				}
			}
			if v, ok := op.Extensions[sameAnswerExt]; ok {
				if o.sameForEveryCaller, _ = v.(bool); !o.sameForEveryCaller || o.auth == authRequired {
					return nil, fmt.Errorf("server: %s of %s must be true, and only on an operation that takes no key or an optional one", sameAnswerExt, o.id)
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

// hasTag reports whether the operation carries the tag.
func hasTag(op *openapi3.Operation, tag string) bool {
	for _, t := range op.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// echoPath turns /svc/lookup/{namespace} into echo's /svc/lookup/:namespace.
func echoPath(p string) string { return pathParam.ReplaceAllString(p, ":$1") }

// opKey names an operation by its method and echo route, as a request's are known.
type opKey struct{ method, route string }

func (k opKey) String() string { return k.method + " " + k.route }
