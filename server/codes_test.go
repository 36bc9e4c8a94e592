package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
)

// Every error body carries a stable code besides its message, set centrally from the status
// (and, for namespace_not_found, user_not_found and verification_failed, the fixed message).
// The statuses below were answered by operations that did not declare them; the harness
// validates each answer against the contract.
func TestErrorCodesAndDeclaredStatuses(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	key := h.key("owner@example.com")
	other := h.key("other@example.com")
	id := publish(t, h, key)
	reg := "/svc/" + id + "/employees"
	version := h.must(200, "GET", "/svc/lookup/"+id+"/employees", "", nil).data()["version"].(string)
	big := strings.Repeat(" ", 2<<20)
	for _, tc := range []struct {
		status        int
		code          string
		method, path  string
		key           string
		body          any
		headerName, v string
	}{
		{400, "invalid_input", "GET", "/0OIl/did.json", "", nil, "", ""},
		{400, "invalid_input", "POST", "/svc/notifications/%00/read", key, nil, "", ""},
		{400, "invalid_input", "POST", "/svc/verification-requests/%00/accept", key, nil, "", ""},
		{400, "invalid_input", "POST", "/svc/verification-requests/%ff/reject", key, nil, "", ""},
		{400, "invalid_input", "GET", "/svc/%20/get-registry-by-tag", "", nil, "", ""},
		{400, "invalid_input", "GET", "/healthz?x=%00", "", nil, "", ""},
		{400, "invalid_input", "POST", reg + "/update-registry", key, `{"description":"x"}`, "If-Match", "nope"},
		{400, "verification_failed", "POST", "/svc/verify-namespace-lookup", key, `{"namespace_lookup_response":{"data":{}}}`, "", ""},
		{401, "unauthorized", "GET", "/svc/lookup/" + id, "svc_not-a-key", nil, "", ""},
		{401, "unauthorized", "POST", "/svc/create-namespace", "", `{"name":"x"}`, "", ""},
		{403, "forbidden", "POST", reg + "/add-record", other, `{"record_name":"x","details":{"email":"x@example.com"}}`, "", ""},
		{404, "namespace_not_found", "GET", "/svc/lookup/did:svc:nope", "", nil, "", ""},
		{404, "not_found", "GET", "/svc/lookup/" + id + "/nope", "", nil, "", ""},
		{404, "not_found", "GET", "/nowhere", "", nil, "", ""},
		{405, "method_not_allowed", "POST", "/svc/lookup/" + id, "", nil, "", ""},
		{409, "conflict", "POST", reg + "/add-record", key, `{"record_name":"alice","details":{"email":"x@example.com"}}`, "", ""},
		{412, "precondition_failed", "POST", reg + "/update-registry", key, `{"description":"x"}`, "If-Match", `"0x` + strings.Repeat("0", 32) + `"`},
		{413, "payload_too_large", "GET", "/svc/lookup/" + id, "", big, "", ""},
		{415, "unsupported_media_type", "POST", "/svc/create-namespace", key, `{"name":"x"}`, "Content-Type", "text/plain"},
		{415, "unsupported_media_type", "POST", reg + "/add-record", key, `{"record_name":"x"}`, "Content-Type", "application/x-www-form-urlencoded"},
		{413, "payload_too_large", "POST", "/svc/create-namespace", key, `{"name":"x","description":"` + big + `"}`, "", ""},
	} {
		var headers []string
		if tc.headerName != "" {
			headers = []string{tc.headerName, tc.v}
		}
		r := h.must(tc.status, tc.method, tc.path, tc.key, tc.body, headers...)
		if got := r.Body["code"]; got != tc.code {
			t.Errorf("%s %s: code %v, want %s (%s)", tc.method, tc.path, got, tc.code, r.Raw)
		}
	}
	_ = version

	// A disabled user on the verification endpoints: user_not_found.
	if err := h.store.SetUserDisabled(context.Background(), "other@example.com", true); err != nil {
		t.Fatal(err)
	}
	r := h.must(404, "POST", "/svc/verify-namespace-lookup", other, `{"namespace_lookup_response":{"data":{}}}`)
	if r.Body["code"] != "user_not_found" {
		t.Errorf("disabled user: %s", r.Raw)
	}
}

// Rate limiting answers 429 rate_limited on every operation, public ones included.
func TestRateLimitedCode(t *testing.T) {
	h := newHarnessWith(t, store.DialectSQLite, func(c *server.Config) { c.RateLimit = server.RateLimit{RPS: 0.001, Burst: 1} })
	for _, path := range []string{"/healthz", "/readyz", "/svc/membership/get-registry-by-tag", "/abc/did.json"} {
		h.do("GET", path, "", nil) // the burst (answers from other clients' view)
	}
	for _, path := range []string{"/healthz", "/readyz", "/svc/membership/get-registry-by-tag", "/abc/did.json", "/svc/lookup/did:svc:x"} {
		r := h.must(http.StatusTooManyRequests, "GET", path, "", nil)
		if r.Body["code"] != "rate_limited" {
			t.Errorf("%s: %s", path, r.Raw)
		}
	}
}
