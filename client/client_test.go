package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/svc-directory/svc/client"
	genclient "github.com/svc-directory/svc/gen/client"
)

func TestVerifyLookupRefusesWhatIsNotALookup(t *testing.T) {
	for _, c := range []struct{ kind, body string }{
		{"record", `{"message":"x"}`},
		{"record", `[1]`},
		{"record", `{"data":`},
		{"entry", `{"data":{}}`},
		{"record", `{"message":"ok","data":{"record_name":"a"}}`},
	} {
		if err := client.VerifyLookup(c.kind, []byte(c.body)); err == nil {
			t.Errorf("VerifyLookup(%q, %s) = nil", c.kind, c.body)
		}
	}
}

func TestNewSendsTheKeyOnlyWhenGiven(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"message":"ok"}`))
	}))
	defer srv.Close()
	for _, key := range []string{"svc_k", ""} {
		c, err := client.New(srv.URL, key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.HealthzWithResponse(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || got[0] != "Bearer svc_k" || got[1] != "" {
		t.Fatalf("Authorization headers %q", got)
	}
}

func TestPtr(t *testing.T) {
	d := genclient.Description("Alice")
	if p := client.Ptr(d); *p != "Alice" || p == &d {
		t.Fatalf("Ptr(%q) = %v", d, p)
	}
	body := genclient.AddRecordJSONRequestBody{RecordName: "a", Description: client.Ptr("x"), Ttl: client.Ptr[genclient.TTL](300),
		Details: client.Ptr(genclient.JSONObject{"k": "v"})}
	if *body.Description != "x" || *body.Ttl != 300 || (*body.Details)["k"] != "v" {
		t.Fatalf("%+v", body)
	}
}

// TestVerifyLookupResponse verifies the generated client's typed lookups of every kind, as
// answers and as their JSON200, and refuses a wrong kind, a failed lookup and a tampered one.
func TestVerifyLookupResponse(t *testing.T) {
	d := startDemo()
	defer d.stop()
	ctx := context.Background()
	c, err := client.New(d.URL, d.Key)
	if err != nil {
		t.Fatal(err)
	}
	ns := publishAcme(ctx, c)
	details := genclient.JSONObject{"email": "alice@example.com", "n": 1e21, "tiny": 1e-7, "name": "Zoë\u2028"}
	if res, err := c.AddRecordWithResponse(ctx, ns, "employees", genclient.AddRecordJSONRequestBody{RecordName: "alice", Details: &details}); err != nil || res.JSON201 == nil {
		t.Fatalf("add-record: %v", err)
	}
	nsRes, err := c.LookupNamespaceWithResponse(ctx, ns, nil)
	if err != nil {
		t.Fatal(err)
	}
	regRes, err := c.LookupRegistryWithResponse(ctx, ns, "employees", nil)
	if err != nil {
		t.Fatal(err)
	}
	recRes, err := c.LookupRecordWithResponse(ctx, ns, "employees", "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"namespace answer":  client.VerifyLookupResponse("namespace", nsRes),
		"namespace JSON200": client.VerifyLookupResponse("namespace", nsRes.JSON200),
		"registry answer":   client.VerifyLookupResponse("registry", regRes),
		"registry JSON200":  client.VerifyLookupResponse("registry", regRes.JSON200),
		"record answer":     client.VerifyLookupResponse("record", recRes),
		"record JSON200":    client.VerifyLookupResponse("record", recRes.JSON200),
	} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	missing, err := c.LookupRecordWithResponse(ctx, ns, "employees", "bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	tampered := *recRes.JSON200
	tampered.Data.Details = genclient.JSONObject{"email": "mallory@example.com"}
	for name, err := range map[string]error{
		"a record checked as a registry": client.VerifyLookupResponse("registry", recRes),
		"a JSON200 of another kind":      client.VerifyLookupResponse("record", regRes.JSON200),
		"an unknown kind":                client.VerifyLookupResponse("entry", recRes),
		"a 404":                          client.VerifyLookupResponse("record", missing),
		"the nil JSON200 of a 404":       client.VerifyLookupResponse("record", missing.JSON200),
		"a nil answer":                   client.VerifyLookupResponse("record", (*genclient.LookupRecordResult)(nil)),
		"a tampered JSON200":             client.VerifyLookupResponse("record", &tampered),
	} {
		if err == nil {
			t.Errorf("%s: verified", name)
		}
	}
}
