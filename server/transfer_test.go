package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
)

// roles is the namespace's members as get-delegates answers them, email to role.
func (h *harness) roles(ns, key string) map[string]string {
	h.t.Helper()
	out := map[string]string{}
	for _, d := range h.must(http.StatusOK, "GET", "/svc/"+ns+"/get-delegates", key, nil).data()["delegates"].([]any) {
		m := d.(map[string]any)
		out[m["email"].(string)] = m["role"].(string)
	}
	return out
}

// TestTransferOwnership: only the owner transfers, to an existing user other than itself; the
// transfer is a new namespace version in the log; the old owner stays a delegate unless told
// not to; every refusal writes nothing.
func TestTransferOwnership(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h := newHarness(t, d)
			db := rawDB(t, d, h.dbURL)
			owner, dee, stranger, newOwner := h.key("owner@example.com"), h.key("dee@example.com"), h.key("stranger@example.com"), h.key("new@example.com")
			disabled := "gone@example.com"
			h.key(disabled)
			if err := h.store.SetUserDisabled(context.Background(), disabled, true); err != nil {
				t.Fatal(err)
			}
			created := h.must(http.StatusCreated, "POST", "/svc/create-namespace", owner, map[string]any{"name": "Acme"}).data()
			ns := created["namespace_id"].(string)
			h.must(http.StatusOK, "POST", "/svc/"+ns+"/add-delegate", owner, map[string]any{"email": "dee@example.com"})
			path := "/svc/" + ns + "/transfer-ownership"
			to := map[string]any{"email": "new@example.com"}

			// Refusals, none of which writes.
			h.must(http.StatusUnauthorized, "POST", path, "", to)
			h.must(http.StatusForbidden, "POST", path, stranger, to)
			h.must(http.StatusForbidden, "POST", path, dee, to)
			h.must(http.StatusForbidden, "POST", path, newOwner, to)
			if r := h.must(http.StatusNotFound, "POST", "/svc/did:svc:5HueCGU8rMjxEXxiPuD5BD/transfer-ownership", owner, to); r.Body["code"] != "namespace_not_found" {
				t.Fatalf("unknown namespace: %s", r.Raw)
			}
			for _, email := range []string{"nobody@example.com", disabled} {
				r := h.must(http.StatusNotFound, "POST", path, owner, map[string]any{"email": email})
				if r.Body["code"] != "user_not_found" {
					t.Fatalf("%s: %s", email, r.Raw)
				}
			}
			h.must(http.StatusConflict, "POST", path, owner, map[string]any{"email": "Owner@Example.com"})
			for _, body := range []any{map[string]any{}, map[string]any{"email": "not an email"}, map[string]any{"email": "new@example.com", "keep_as_delegate": "no"},
				map[string]any{"email": "new@example.com", "role": "owner"}, "[]"} {
				h.must(http.StatusBadRequest, "POST", path, owner, body)
			}
			if n := h.must(http.StatusOK, "GET", "/svc/versions/"+ns, owner, nil).data()["total_versions"]; n != 1.0 {
				t.Fatalf("refusals wrote: %d versions", n)
			}

			// The owner transfers: a new version, logged; the old owner is a delegate.
			got := h.must(http.StatusOK, "POST", path, owner, to).data()
			if got["version_count"] != float64(2) || got["version"] == created["version"] || got["digest"] == created["digest"] {
				t.Fatalf("transfer version: %v", got)
			}
			if n := count(t, db, `SELECT (SELECT COUNT(*) FROM log_queue WHERE version = $1) + (SELECT COUNT(*) FROM log_entries WHERE version = $1)`, got["version"]); n != 1 {
				t.Fatalf("the transfer's version is %d times in the log", n)
			}
			if lk := h.must(http.StatusOK, "GET", "/svc/lookup/"+ns, "", nil).data(); lk["version"] != got["version"] {
				t.Fatalf("lookup after transfer: %v", lk)
			}
			if r := h.roles(ns, newOwner); len(r) != 3 || r["new@example.com"] != "owner" || r["owner@example.com"] != "delegate" || r["dee@example.com"] != "delegate" {
				t.Fatalf("members after transfer: %v", r)
			}
			// The old owner writes as a delegate, but may no longer transfer or manage delegates.
			h.must(http.StatusOK, "POST", "/svc/"+ns+"/update-namespace", owner, map[string]any{"description": "still here"})
			h.must(http.StatusForbidden, "POST", path, owner, map[string]any{"email": "owner@example.com"})
			h.must(http.StatusForbidden, "POST", "/svc/"+ns+"/add-delegate", owner, map[string]any{"email": "x@example.com"})

			// To a delegate, without keeping the old owner: dee owns it, new@ is no member.
			h.must(http.StatusOK, "POST", path, newOwner, map[string]any{"email": "dee@example.com", "keep_as_delegate": false})
			if r := h.roles(ns, dee); len(r) != 2 || r["dee@example.com"] != "owner" || r["owner@example.com"] != "delegate" {
				t.Fatalf("members after the second transfer: %v", r)
			}
			h.must(http.StatusForbidden, "GET", "/svc/"+ns+"/get-delegates", newOwner, nil)
			h.must(http.StatusForbidden, "POST", "/svc/"+ns+"/update-namespace", newOwner, map[string]any{"description": "no"})
			if n := h.must(http.StatusOK, "GET", "/svc/versions/"+ns, dee, nil).data()["total_versions"]; n != 4.0 {
				t.Fatalf("%d versions, want 4 (create, transfer, update, transfer)", n)
			}
		})
	}
}
