package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/svc-directory/svc/store"
)

// The handlers receive the body the contract checked, parsed once by the middleware, not a
// second decoding of its bytes: encoding/json would also take a later "Data" member for
// "data" (member names match case-insensitively there), so a decoy after the real lookup data
// would change what was validated.
func TestHandlersGetTheBodyTheContractChecked(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	owner := h.key("owner@example.com")
	id := publish(t, h, owner)
	data, err := json.Marshal(h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/alice", "", nil).data())
	if err != nil {
		t.Fatal(err)
	}
	body := `{"record_lookup_response":{"message":"found","data":` + string(data) + `,"Data":{"description":"forged"}}}`
	if r := h.do("POST", "/svc/verify-record-lookup", h.key("verifier@example.com"), body); r.Status != http.StatusOK || r.msg() != "Verification successful" {
		t.Fatalf("verify with a decoy member after data: %d %s", r.Status, r.Raw)
	}
	// valid_till: null (present and null, which the generated type cannot tell from absent)
	// still clears the date, read from the parsed body.
	h.must(http.StatusOK, "POST", "/svc/"+id+"/employees/alice/update-record", owner, `{"valid_till":"2030-01-01T00:00:00.000Z"}`)
	if r := h.must(http.StatusOK, "POST", "/svc/"+id+"/employees/alice/update-record", owner, `{"valid_till":null}`); r.data()["valid_till"] != nil {
		t.Fatalf("valid_till: null did not clear the date: %s", r.Raw)
	}
}

// A write answers with exactly what a lookup of the version it wrote shows, even for numbers
// whose spelling the stored form changes (-0 is stored, and shown, as 0).
func TestWriteAnswersShowWhatIsStored(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner := h.key("owner@example.com")
		id := publish(t, h, owner)
		added := h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-record", owner,
			`{"record_name":"zed","details":{"email":"z@example.com","n":-0,"m":-0.0,"k":1E2,"x":[-0e3,0.5]},"meta":{"z":-0}}`)
		lookup := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/zed", "", nil)
		a, _ := json.Marshal(added.data())
		l, _ := json.Marshal(lookup.data())
		if string(a) != string(l) {
			t.Fatalf("add-record answered\n%s\nthe lookup of its version shows\n%s", a, l)
		}
		updated := h.must(http.StatusOK, "POST", "/svc/"+id+"/employees/zed/update-record", owner, `{"details":{"email":"z@example.com","n":-0}}`)
		lookup = h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/zed", "", nil)
		a, _ = json.Marshal(updated.data())
		l, _ = json.Marshal(lookup.data())
		if string(a) != string(l) {
			t.Fatalf("update-record answered\n%s\nthe lookup of its version shows\n%s", a, l)
		}
	})
}
