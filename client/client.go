// Package client is the Go client of the svc API, for integrators.
//
// The client itself is generated from openapi.yaml by oapi-codegen into the package gen/client
// (every operation as a method, typed request bodies and responses); this package only adds what
// every integrator writes first: a constructor that sends the API key, Ptr for the optional
// fields of request bodies, and the offline check of a lookup response, which recomputes its
// digest without trusting the service (the Go twin of the TypeScript SDK's verifyLookup), and
// TRQP, which asks a Trust Registry Query Protocol query and checks the answer against TRQP's
// schemas and its evidence against the log's key (trqp.go, docs/trqp.md), and VerifyCurrent,
// which asks the service's state query whether a lookup's version is still the entry's latest
// and checks the answer with stateindex.CheckAnswer (svc verify --current). The examples run
// against an in-process service in `go test`.
//
//	c, err := client.New("https://directory.example.com", os.Getenv("SVC_API_KEY"))
//	res, err := c.LookupRecordWithResponse(ctx, namespaceID, "employees", "alice", nil)
//	err = client.VerifyLookupResponse("record", res) // or client.VerifyLookup("record", res.Body)
package client

import (
	"context"
	"net/http"

	genclient "github.com/svc-directory/svc/gen/client"
)

// Client is the generated client whose methods return typed responses (JSON200, JSON201, ...
// by status) along with the raw body.
type Client = genclient.ClientWithResponses

// New returns a client of the service at baseURL (for example "http://localhost:8080"). A
// non-empty apiKey is sent as a bearer token with every request. Lookups, queries, versions and
// searches work without one (anonymously); publishing, domain operations and the service's
// verify-*-lookup operations need one and answer 401 without it. The offline checks of this
// package (VerifyLookup, VerifyLookupResponse) need no key and no service. opts are the
// generated client's options, such as genclient.WithHTTPClient.
func New(baseURL, apiKey string, opts ...genclient.ClientOption) (*Client, error) {
	if apiKey != "" {
		opts = append([]genclient.ClientOption{genclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+apiKey)
			return nil
		})}, opts...)
	}
	return genclient.NewClientWithResponses(baseURL, opts...)
}

// Ptr returns a pointer to a copy of v: the optional fields of the generated request bodies are
// pointers, of the contract's named types (genclient.Description is a string, genclient.TTL an
// int64, genclient.JSONObject a map), so
//
//	genclient.AddRecordJSONRequestBody{RecordName: "alice", Description: client.Ptr("Alice"),
//		Details: client.Ptr(genclient.JSONObject{"email": "alice@example.com"}), Ttl: client.Ptr[genclient.TTL](300)}
func Ptr[T any](v T) *T { return &v }
