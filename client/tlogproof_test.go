package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/svc-directory/svc/client"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/tlogproof"
)

// The Go client's reader of tlog-proofs and policies against the shared vectors
// (translog/tlogproof/testdata/vectors.json, which the TypeScript and Python SDKs read too).
func TestProofVectors(t *testing.T) {
	raw, err := os.ReadFile("../translog/tlogproof/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Policies []struct {
			Name, Text string
			OK         bool
		}
		Proofs []struct {
			Name, Proof, Policy, Stage string
			Leaf                       *string
			OK                         bool
			ProvenLeaf                 string `json:"proven_leaf"`
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil || len(f.Proofs) == 0 || len(f.Policies) == 0 {
		t.Fatalf("vectors: %v", err)
	}
	for _, c := range f.Policies {
		if _, err := client.ParsePolicy([]byte(c.Text)); (err == nil) != c.OK {
			t.Errorf("policy %q: %v", c.Name, err)
		}
	}
	for _, c := range f.Proofs {
		policy, err := client.ParsePolicy([]byte(c.Policy))
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		if c.Leaf != nil {
			want = []byte(*c.Leaf)
		}
		v, err := client.VerifyProof([]byte(c.Proof), policy, want)
		var e *tlogproof.Error
		switch {
		case c.OK && (err != nil || string(v.Leaf) != c.ProvenLeaf):
			t.Errorf("proof %q: %v", c.Name, err)
		case !c.OK && (!errors.As(err, &e) || e.Stage != c.Stage):
			t.Errorf("proof %q: %v, want refused at %s", c.Name, err, c.Stage)
		}
	}
}

// Against a service: the tlog-proof of a lookup's version verifies under the served policy,
// and not for another lookup.
func TestVerifyLookupProof(t *testing.T) {
	ctx := context.Background()
	skey, vkey, err := translog.GenerateKey("localhost:8080/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t, store.DialectSQLite)
	srv, err := server.NewServer(server.Config{Store: st, Logger: slog.New(slog.DiscardHandler), DIDHost: "localhost%3A8080", LogVerifierKey: vkey})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Echo())
	defer hs.Close()
	key, _, err := st.CreateAPIKey(ctx, "alice@example.com")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(hs.URL, key)
	if err != nil {
		t.Fatal(err)
	}
	id := publishAcme(ctx, c)
	if _, err := translog.NewIntegrator(st, lk, nil, nil).IntegrateOnce(ctx); err != nil {
		t.Fatal(err)
	}
	pol, err := c.GetLogPolicyWithResponse(ctx)
	if err != nil || pol.StatusCode() != 200 {
		t.Fatalf("policy: %v", err)
	}
	policy, err := client.ParsePolicy(pol.Body)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := c.LookupNamespaceWithResponse(ctx, id, nil)
	if err != nil || ns.JSON200 == nil {
		t.Fatalf("lookup: %v", err)
	}
	reg, err := c.LookupRegistryWithResponse(ctx, id, "employees", nil)
	if err != nil || reg.JSON200 == nil {
		t.Fatalf("lookup: %v", err)
	}
	proof, err := c.GetLogProofWithResponse(ctx, ns.JSON200.Data.Version, nil)
	if err != nil || proof.StatusCode() != 200 {
		t.Fatalf("proof: %v %s", err, proof.Body)
	}
	v, err := client.VerifyLookupProof("namespace", ns.Body, proof.Body, policy)
	if err != nil || v.Checkpoint.Origin != "localhost:8080/svc/log" {
		t.Fatalf("the namespace's proof: %v", err)
	}
	if _, err := client.VerifyLookupProof("registry", reg.Body, proof.Body, policy); err == nil {
		t.Fatal("the namespace's proof proves the registry")
	}
}
