package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/svc-directory/svc/client"
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
