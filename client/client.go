// Package client is the Go client of the svc API, for integrators.
//
// The client itself is generated from openapi.yaml by oapi-codegen into the package gen/client
// (every operation as a method, typed request bodies and responses); this package only adds what
// every integrator writes first: a constructor that sends the API key, and the offline check of
// a saved lookup response, which recomputes its digest without trusting the service (the Go
// twin of the TypeScript SDK's verifyLookup). The examples run against an in-process service in
// `go test`.
//
//	c, err := client.New("https://directory.example.com", os.Getenv("SVC_API_KEY"))
//	res, err := c.LookupRecordWithResponse(ctx, namespaceID, "employees", "alice", nil)
//	err = client.VerifyLookup("record", res.Body)
package client

import (
	"context"
	"fmt"
	"net/http"
	"time"

	genclient "github.com/svc-directory/svc/gen/client"
	"github.com/svc-directory/svc/proof"
)

// Client is the generated client whose methods return typed responses (JSON200, JSON201, ...
// by status) along with the raw body.
type Client = genclient.ClientWithResponses

// New returns a client of the service at baseURL (for example "http://localhost:8080"). A
// non-empty apiKey is sent as a bearer token with every request; anonymous calls (lookups,
// searches, verification) work without one. opts are the generated client's options, such as
// genclient.WithHTTPClient.
func New(baseURL, apiKey string, opts ...genclient.ClientOption) (*Client, error) {
	if apiKey != "" {
		opts = append([]genclient.ClientOption{genclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+apiKey)
			return nil
		})}, opts...)
	}
	return genclient.NewClientWithResponses(baseURL, opts...)
}

// VerifyLookup checks a lookup response as the service returned it (the body of a lookup of a
// namespace, registry or record, kind "namespace", "registry" or "record") offline: it
// recomputes the digest from the entry's digest fields (RFC 8785 canonical JSON, BLAKE2b-256)
// and compares it, and checks the proof's type and identifiers. nil means it verifies.
func VerifyLookup(kind string, body []byte) error {
	kinds := map[string]proof.Kind{"namespace": proof.KindNamespace, "registry": proof.KindRegistry, "record": proof.KindRecord}
	k, ok := kinds[kind]
	if !ok {
		return fmt.Errorf("kind %q: want namespace, registry or record", kind)
	}
	v, err := proof.ParseJSON(body, 256)
	if err != nil {
		return err
	}
	envelope, _ := v.(map[string]any)
	data, ok := envelope["data"].(map[string]any)
	if !ok {
		return fmt.Errorf("not a lookup response: no data object")
	}
	return proof.CheckLookup(k, data, time.Now().UTC().Year())
}
