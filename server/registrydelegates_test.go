package server_test

import (
	"net/http"
	"testing"
)

// Registry delegates write the records of their registry and nothing else; the namespace's
// owner and delegates manage them; members cannot be added, nor anyone twice.
func TestRegistryDelegates(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner := h.key("owner@example.com")
		id := publish(t, h, owner)
		reg := "/svc/" + id + "/employees"
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"other","schema":{"type":"object"}}`)
		rd := h.key("rd@example.com")
		record := `{"record_name":"dave","details":{"email":"dave@example.com"}}`
		h.must(http.StatusForbidden, "POST", reg+"/add-record", rd, record)

		got := h.must(http.StatusOK, "POST", reg+"/add-registry-delegate", owner, `{"email":"RD@example.com"}`).data()
		ds := got["delegates"].([]any)
		if len(ds) != 1 || ds[0].(map[string]any)["email"] != "rd@example.com" || got["registry_name"] != "employees" || got["namespace_id"] != id {
			t.Fatalf("after add: %v", got)
		}
		h.must(http.StatusConflict, "POST", reg+"/add-registry-delegate", owner, `{"email":"rd@example.com"}`)
		h.must(http.StatusOK, "POST", "/svc/"+id+"/add-delegate", owner, `{"email":"nd@example.com"}`)
		if r := h.must(http.StatusConflict, "POST", reg+"/add-registry-delegate", owner, `{"email":"nd@example.com"}`); r.msg() == "" {
			t.Fatal("no message")
		}
		h.must(http.StatusConflict, "POST", reg+"/add-registry-delegate", owner, `{"email":"owner@example.com"}`)
		h.must(http.StatusNotFound, "POST", "/svc/"+id+"/nope/add-registry-delegate", owner, `{"email":"x@example.com"}`)
		h.must(http.StatusBadRequest, "POST", reg+"/add-registry-delegate", owner, `{"email":"not an email"}`)

		// The registry delegate writes this registry's records, and nothing else.
		h.must(http.StatusCreated, "POST", reg+"/add-record", rd, record)
		h.must(http.StatusOK, "POST", reg+"/dave/update-record", rd, `{"details":{"email":"dave2@example.com"}}`)
		h.must(http.StatusCreated, "POST", reg+"/add-records", rd, `{"records":[{"record_name":"erin","details":{"email":"erin@example.com"}}]}`)
		h.must(http.StatusForbidden, "POST", "/svc/"+id+"/other/add-record", rd, `{"record_name":"x","details":{}}`)
		h.must(http.StatusForbidden, "POST", reg+"/update-registry", rd, `{"description":"mine"}`)
		h.must(http.StatusForbidden, "POST", reg+"/add-registry-delegate", rd, `{"email":"z@example.com"}`)
		h.must(http.StatusForbidden, "GET", reg+"/get-registry-delegates", rd, nil)
		h.must(http.StatusUnauthorized, "GET", reg+"/get-registry-delegates", "", nil)

		// A namespace delegate manages them too.
		nd := h.key("nd@example.com")
		if got := h.must(http.StatusOK, "GET", reg+"/get-registry-delegates", nd, nil).data(); len(got["delegates"].([]any)) != 1 {
			t.Fatalf("list: %v", got)
		}
		if got := h.must(http.StatusOK, "POST", reg+"/remove-registry-delegate", nd, `{"email":"rd@example.com"}`).data(); len(got["delegates"].([]any)) != 0 {
			t.Fatalf("after remove: %v", got)
		}
		h.must(http.StatusNotFound, "POST", reg+"/remove-registry-delegate", owner, `{"email":"rd@example.com"}`)
		h.must(http.StatusForbidden, "POST", reg+"/add-record", rd, `{"record_name":"frank","details":{"email":"f@example.com"}}`)
	})
}
