package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestNumbersAreStoredAsSentOrRefused: a number the store could not keep as sent (an integer
// beyond ±(2^53−1), more digits than float64 holds) is refused with a 400 naming its JSON
// pointer, and nothing is written, on both dialects (issue 14: 9007199254740993 was stored as
// …992). Numbers float64 keeps are stored and shown exactly.
func TestNumbersAreStoredAsSentOrRefused(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		id := publish(t, h, key)
		ns, reg := "/svc/"+id, "/svc/"+id+"/employees"
		const big = `9007199254740993`
		refused := []struct{ name, path, body, ptr string }{
			{"details", reg + "/add-record", `{"record_name":"n1","details":{"email":"a@example.com","n":` + big + `}}`, "/details/n"},
			{"nested details", reg + "/add-record", `{"record_name":"n2","details":{"email":"a@example.com","a":[1,{"n":-` + big + `}]}}`, "/details/a/1/n"},
			{"record meta", reg + "/add-record", `{"record_name":"n3","details":{"email":"a@example.com"},"meta":{"n":` + big + `}}`, "/meta/n"},
			{"batch", reg + "/add-records", `{"records":[{"record_name":"n4","details":{"email":"a@example.com","n":` + big + `}}]}`, "/records/0/details/n"},
			{"updated details", reg + "/alice/update-record", `{"details":{"email":"a@example.com","n":` + big + `}}`, "/details/n"},
			{"digits float64 drops", reg + "/alice/update-record", `{"details":{"email":"a@example.com","pi":3.14159265358979323846}}`, "/details/pi"},
			{"record ttl", reg + "/alice/update-record", `{"ttl":` + big + `}`, "/ttl"},
			{"namespace meta", "/svc/create-namespace", `{"name":"x","meta":{"n":` + big + `}}`, "/meta/n"},
			{"updated namespace meta", ns + "/update-namespace", `{"meta":{"n":` + big + `}}`, "/meta/n"},
			{"registry schema", ns + "/create-registry", `{"registry_name":"r1","schema":{"type":"object","properties":{"n":{"maximum":` + big + `}}}}`, "/schema/properties/n/maximum"},
			{"updated registry meta", reg + "/update-registry", `{"meta":{"n":1e-400}}`, "/meta/n"},
		}
		before := countRows(t, h)
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				r := h.must(http.StatusBadRequest, "POST", tc.path, key, tc.body)
				if !strings.Contains(r.msg(), tc.ptr+" ") || !strings.Contains(r.msg(), "exactly") {
					t.Fatalf("message %q does not name %s as a number that cannot be stored exactly", r.msg(), tc.ptr)
				}
			})
		}
		if after := countRows(t, h); after != before {
			t.Fatalf("refused numbers wrote: %v before, %v after", before, after)
		}

		// What float64 keeps is stored and shown as sent.
		h.must(http.StatusCreated, "POST", reg+"/add-record", key,
			`{"record_name":"nums","details":{"email":"a@example.com","max":9007199254740991,"min":-9007199254740991,"tenth":0.1,"huge":1e21,"one":1.0}}`)
		for _, path := range []string{"/svc/lookup/" + id + "/employees/nums", "/svc/query/" + id + "/employees?name=nums"} {
			raw := string(h.must(http.StatusOK, "GET", path, "", nil).Raw)
			for _, want := range []string{`"max":9007199254740991`, `"min":-9007199254740991`, `"tenth":0.1`, `"huge":1e+21`, `"one":1`} {
				if !strings.Contains(raw, want) {
					t.Errorf("%s lacks %s: %s", path, want, raw)
				}
			}
		}

		// Verification reads a lookup response as JSON.parse does: it is hashed, not stored.
		r := h.do("POST", "/svc/verify-record-lookup", key, `{"record_lookup_response":{"data":{"details":{"n":`+big+`}}}}`)
		if strings.Contains(r.msg(), "exactly") {
			t.Fatalf("verify-record-lookup refused a number it does not store: %d %s", r.Status, r.Raw)
		}
	})
}
