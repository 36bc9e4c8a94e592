package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/svc-directory/svc/recordschema"
)

// The expected refusals of the handlers: each answer's status, code and exact message, as the
// one mapping (answer) writes them from the error that the store, the verification workflow or
// the handler returned. Every answer is also checked against the contract by the harness.
func TestRefusalsKeepStatusCodeAndMessage(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		other := h.key("other@example.com")
		id := publish(t, h, key)
		reg := "/svc/" + id + "/employees"
		h.must(201, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"closed","schema":{}}`)
		h.must(200, "POST", "/svc/"+id+"/closed/deactivate-registry", key, nil)
		h.must(200, "POST", "/svc/"+id+"/add-delegate", key, `{"email":"d@example.com"}`)
		stale := `"0x` + strings.Repeat("0", 32) + `"`
		for _, tc := range []struct {
			method, path, key, body string
			headers                 []string
			status                  int
			code, msg               string
		}{
			{"POST", "/svc/" + id + "/create-registry", key, `{"registry_name":"employees","schema":{}}`, nil,
				409, "conflict", `Conflict: the name is taken: registry "employees" already exists in the namespace`},
			{"POST", reg + "/add-record", key, `{"record_name":"alice","details":{"email":"a@example.com"}}`, nil,
				409, "conflict", `Conflict: the name is taken: record "alice" already exists in the registry`},
			{"POST", reg + "/add-records", key, `{"records":[{"record_name":"x","details":{"email":"a@example.com"}},{"record_name":"x","details":{"email":"a@example.com"}}]}`, nil,
				409, "conflict", `Conflict: the name is taken: record "x" appears twice in the batch`},
			{"POST", reg + "/alice/publish-record", key, ``, nil, 409, "conflict", "Conflict: the record is not a draft"},
			{"POST", "/svc/" + id + "/closed/add-record", key, `{"record_name":"y","details":{}}`, nil,
				409, "conflict", "Conflict: the registry is inactive; records cannot be added or changed"},
			{"POST", reg + "/update-registry", key, `{"description":"x"}`, []string{"If-Match", stale},
				412, "precondition_failed", "Precondition failed: the entry has changed since that version (If-Match); nothing was written"},
			{"POST", "/svc/" + id + "/update-namespace", key, `{"description":"x"}`, []string{"If-Match", stale},
				412, "precondition_failed", "Precondition failed: the entry has changed since that version (If-Match); nothing was written"},
			{"POST", reg + "/alice/update-record", key, `{"description":"x"}`, []string{"If-Match", stale},
				412, "precondition_failed", "Precondition failed: the entry has changed since that version (If-Match); nothing was written"},
			{"POST", reg + "/add-record", key, `{"record_name":"big","details":{"email":"a@example.com","x":"` + strings.Repeat("a", 70000) + `"}}`, nil,
				400, "invalid_input", "Invalid input: details are 70032 bytes; at most 65536 (64 KiB) are allowed"},
			{"POST", "/svc/" + id + "/add-delegate", key, `{"email":"d@example.com"}`, nil,
				409, "conflict", "Conflict: d@example.com is already a member of the namespace"},
			{"POST", "/svc/" + id + "/remove-delegate", key, `{"email":"owner@example.com"}`, nil,
				409, "conflict", "Conflict: the owner cannot be removed"},
			{"POST", "/svc/" + id + "/remove-delegate", key, `{"email":"nobody@example.com"}`, nil, 404, "not_found", "Delegate not found"},
			{"POST", "/svc/" + id + "/add-delegate", other, `{"email":"e@example.com"}`, nil,
				403, "forbidden", "Forbidden: you are not the owner or a delegate of this namespace"},
			{"POST", reg + "/nobody/update-record", key, `{"description":"x"}`, nil, 404, "not_found", "Record not found"},
			{"POST", "/svc/" + id + "/nope/update-registry", key, `{"description":"x"}`, nil, 404, "not_found", "Registry not found"},
			{"POST", "/svc/" + id + "/nope/add-record", key, `{"record_name":"y","details":{}}`, nil, 404, "not_found", "Registry not found"},
			{"POST", "/svc/did:svc:nope/update-namespace", key, `{"description":"x"}`, nil, 404, "namespace_not_found", "Namespace not found"},
			{"GET", "/svc/query/did:svc:nope", "", ``, nil, 404, "namespace_not_found", "Namespace not found"},
			{"GET", "/svc/versions/did:svc:nope", "", ``, nil, 404, "namespace_not_found", "Namespace not found"},
			{"GET", "/svc/lookup/" + id + "/employees/nobody", "", ``, nil, 404, "not_found", "Record not found"},
			{"POST", "/svc/notifications/nope/read", key, ``, nil, 404, "not_found", "Notification not found"},
			{"POST", "/svc/verification-requests/nope/accept", key, ``, nil, 404, "not_found", "Verification request not found"},
			{"POST", "/svc/verification-requests/nope/reject", key, ``, nil, 404, "not_found", "Verification request not found"},
			{"POST", "/svc/" + id + "/example.com/remove-namespace-verification", key, ``, nil,
				404, "not_found", "No verification data for this namespace and domain"},
			{"GET", "/svc/get-dns-txt/" + id, key, ``, nil, 404, "not_found", "No domain or TXT record for this namespace"},
			{"GET", "/svc/custom/get-registry-by-tag", "", ``, nil, 400, "invalid_input",
				`Invalid input: tag "custom" is not a standard tag (one of ` + strings.Join(recordschema.StandardTags, ", ") + `; custom registries are not listed)`},
			{"GET", "/svc/search/" + id + "?a..b=x", "", ``, nil, 400, "invalid_input",
				`Invalid input: search parameter "a..b" is not a details path (letters, digits, _ and -, joined by dots)`},
			// An empty namespace is 400 with the one message of resolveNamespace everywhere; these two
			// operations' own status switches answered it as "namespace is missing" (search) and as
			// 403 forbidden with the 400's message (get-delegates).
			{"GET", "/svc/search/%20", "", ``, nil, 400, "invalid_input", "Invalid input: namespace is missing or empty"},
			{"GET", "/svc/%20/get-delegates", key, ``, nil, 400, "invalid_input", "Invalid input: namespace is missing or empty"},
			{"GET", "/svc/query/%20/employees", "", ``, nil, 400, "invalid_input", "Invalid input: namespace is missing or empty"},
		} {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := h.do(tc.method, tc.path, tc.key, body, tc.headers...)
			got := fmt.Sprintf("%d %v %s", r.Status, r.Body["code"], r.msg())
			if want := fmt.Sprintf("%d %s %s", tc.status, tc.code, tc.msg); got != want {
				t.Errorf("%s %s:\n got %s\nwant %s", tc.method, tc.path, got, want)
			}
		}
	})
}
