package client_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/svc-directory/svc/client"
	genclient "github.com/svc-directory/svc/gen/client"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// demo is a service running in-process on a fresh SQLite database, as the examples need one.
type demo struct {
	URL, Key string
	stop     func()
}

func startDemo() demo {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "svc-example-")
	if err != nil {
		log.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "svc.db"), logger, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := st.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	key, _, err := st.CreateAPIKey(ctx, "alice@example.com") // what `svc key create` does
	if err != nil {
		log.Fatal(err)
	}
	srv, err := server.NewServer(server.Config{Store: st, Logger: logger, DIDHost: "localhost%3A8080"})
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(srv.Echo())
	return demo{URL: hs.URL, Key: key, stop: func() { hs.Close(); _ = st.Close(); _ = os.RemoveAll(dir) }}
}

// publishAcme creates the namespace "Acme" with the registry "employees", as an owner would.
func publishAcme(ctx context.Context, c *client.Client) string {
	ns, err := c.CreateNamespaceWithResponse(ctx, genclient.CreateNamespaceJSONRequestBody{Name: "Acme"})
	if err != nil || ns.JSON201 == nil {
		log.Fatalf("create-namespace: %v %s", err, ns.Body)
	}
	id := ns.JSON201.Data.NamespaceId
	schema := genclient.JSONObject{"type": "object", "properties": map[string]any{"email": map[string]any{"type": "string"}}}
	reg, err := c.CreateRegistryWithResponse(ctx, id, genclient.CreateRegistryJSONRequestBody{RegistryName: "employees", Schema: &schema})
	if err != nil || reg.JSON201 == nil {
		log.Fatalf("create-registry: %v %s", err, reg.Body)
	}
	return id
}

// Publish a record with the owner's API key: add-record answers 201 with the new record, its
// first version and its proof.
func Example_addRecord() {
	d := startDemo()
	defer d.stop()
	ctx := context.Background()

	c, err := client.New(d.URL, d.Key)
	if err != nil {
		log.Fatal(err)
	}
	ns := publishAcme(ctx, c)
	details := genclient.JSONObject{"email": "alice@example.com"}
	res, err := c.AddRecordWithResponse(ctx, ns, "employees", genclient.AddRecordJSONRequestBody{RecordName: "alice", Details: &details})
	if err != nil {
		log.Fatal(err)
	}
	if res.JSON201 == nil {
		log.Fatalf("add-record: %d %s", res.StatusCode(), res.Body)
	}
	rec := res.JSON201.Data
	fmt.Println(res.StatusCode(), rec.RecordName, rec.State, rec.VersionCount)
	fmt.Println("proof:", rec.Proof.Type)

	// The same name again is a conflict, answered with a message.
	again, _ := c.AddRecordWithResponse(ctx, ns, "employees", genclient.AddRecordJSONRequestBody{RecordName: "alice", Details: &details})
	fmt.Println(again.StatusCode(), again.JSON409 != nil)
	// Output:
	// 201 alice live 1
	// proof: SvcRecordProof2026
	// 409 true
}

// Look a record up anonymously: no API key is needed for public registries.
func Example_lookup() {
	d := startDemo()
	defer d.stop()
	ctx := context.Background()
	owner, _ := client.New(d.URL, d.Key)
	ns := publishAcme(ctx, owner)
	details := genclient.JSONObject{"email": "alice@example.com"}
	if _, err := owner.AddRecordWithResponse(ctx, ns, "employees", genclient.AddRecordJSONRequestBody{RecordName: "alice", Details: &details}); err != nil {
		log.Fatal(err)
	}

	anyone, err := client.New(d.URL, "")
	if err != nil {
		log.Fatal(err)
	}
	res, err := anyone.LookupRecordWithResponse(ctx, ns, "employees", "alice", nil)
	if err != nil {
		log.Fatal(err)
	}
	if res.JSON200 == nil {
		log.Fatalf("lookup: %d %s", res.StatusCode(), res.Body)
	}
	rec := res.JSON200.Data
	fmt.Println(rec.RecordName, rec.Details["email"], rec.Digest == rec.Proof.Digest, len(rec.Proof.Digest))
	fmt.Println("ETag is the digest:", res.HTTPResponse.Header.Get("ETag") == `"`+rec.Proof.Digest+`"`)

	missing, _ := anyone.LookupRecordWithResponse(ctx, ns, "employees", "bob", nil)
	fmt.Println(missing.StatusCode(), missing.JSON404 != nil)
	// Output:
	// alice alice@example.com true 66
	// ETag is the digest: true
	// 404 true
}

// Verify a lookup twice: offline with VerifyLookupResponse (or VerifyLookup on saved bytes),
// which recomputes the digest from the response alone and needs no key, and through the
// service's verify-record-lookup operation, which needs an API key (c has one; without, 401).
// A changed byte in the details fails both.
func Example_verify() {
	d := startDemo()
	defer d.stop()
	ctx := context.Background()
	c, _ := client.New(d.URL, d.Key)
	ns := publishAcme(ctx, c)
	details := genclient.JSONObject{"email": "alice@example.com"}
	if _, err := c.AddRecordWithResponse(ctx, ns, "employees", genclient.AddRecordJSONRequestBody{RecordName: "alice", Details: &details}); err != nil {
		log.Fatal(err)
	}
	lookup, err := c.LookupRecordWithResponse(ctx, ns, "employees", "alice", nil)
	if err != nil || lookup.JSON200 == nil {
		log.Fatalf("lookup: %v", err)
	}

	fmt.Println("offline:", client.VerifyLookupResponse("record", lookup))
	tampered := bytes.Replace(lookup.Body, []byte("alice@example.com"), []byte("mallory@example.com"), 1)
	fmt.Println("offline, tampered:", client.VerifyLookup("record", tampered) != nil)

	for _, body := range [][]byte{lookup.Body, tampered} {
		req := append(append([]byte(`{"record_lookup_response":`), body...), '}')
		res, err := c.VerifyRecordLookupWithBodyWithResponse(ctx, "application/json", bytes.NewReader(req))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("service:", res.StatusCode())
	}

	anonymous, _ := client.New(d.URL, "")
	res, err := anonymous.VerifyRecordLookupWithBodyWithResponse(ctx, "application/json",
		bytes.NewReader(append(append([]byte(`{"record_lookup_response":`), lookup.Body...), '}')))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("service, no key:", res.StatusCode())
	// Output:
	// offline: <nil>
	// offline, tampered: true
	// service: 200
	// service: 400
	// service, no key: 401
}
