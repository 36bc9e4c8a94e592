package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// A registry's sample file: anyone may download it (the schema is public); its header is
// record_name, record_state and the schema's leaves; its example row meets the schema (types,
// enums, formats, bounds, required fields) so that, uploaded as it is, it imports one record.
func TestDownloadSampleCSV(t *testing.T) {
	const schema = `{"type":"object","required":["email","kind","count","address"],"properties":{
		"email":{"type":"string","format":"email"},
		"kind":{"enum":["person","robot"]},
		"count":{"type":"integer","minimum":5,"multipleOf":5},
		"score":{"type":"number","exclusiveMaximum":0},
		"active":{"type":"boolean"},
		"code":{"type":"string","minLength":12,"maxLength":12},
		"since":{"type":"string","format":"date"},
		"tags":{"type":"array","items":{"type":"string"},"minItems":1},
		"level":{"type":"string","default":"gold","enum":["silver","gold"]},
		"address":{"type":"object","required":["city"],"properties":{"city":{"type":"string","examples":["Zürich"]},"zip":{"type":"integer"}}}},
		"additionalProperties":false}`
	eachDialect(t, func(t *testing.T, h *harness) {
		owner, stranger := h.key("owner@example.com"), h.key("stranger@example.com")
		id := publish(t, h, owner)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"things","schema":`+schema+`}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"members","tag":"membership"}`)

		path := "/svc/" + id + "/things/download-sample-csv"
		sample := getCSV(t, h, path, "")
		for _, key := range []string{owner, stranger} {
			if again := getCSV(t, h, path, key); strings.Join(again[0], ",") != strings.Join(sample[0], ",") || strings.Join(again[1], ",") != strings.Join(sample[1], ",") {
				t.Fatalf("the sample differs by caller: %q, %q", sample, again)
			}
		}
		wantHeader := "record_name,record_state,active,address.city,address.zip,code,count,email,kind,level,score,since,tags"
		if len(sample) != 2 || strings.Join(sample[0], ",") != wantHeader {
			t.Fatalf("the sample: %q, want the header %s and one row", sample, wantHeader)
		}
		if row := strings.Join(sample[1], ","); row != `example-1,live,true,Zürich,1,examplexxxxx,5,user@example.com,person,gold,'-1,2026-01-01,["example"]` {
			t.Fatalf("the sample row: %s", row)
		}

		for _, reg := range []string{"things", "members"} {
			file := writeCSV(getCSV(t, h, "/svc/"+id+"/"+reg+"/download-sample-csv", stranger))
			job := runJob(t, h, owner, upload(t, h, "/svc/"+id+"/"+reg+"/bulk-upload", owner, file))
			if job["imported_rows"] != 1.0 || job["error_rows"] != 0.0 {
				t.Fatalf("the sample of %s, uploaded: %v", reg, job)
			}
			h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/"+reg+"/example-1", "", nil)
		}

		h.must(http.StatusNotFound, "GET", "/svc/"+id+"/nothing/download-sample-csv", "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/did:svc:nothing/things/download-sample-csv", "", nil)
		h.must(http.StatusUnauthorized, "GET", path, "not-a-key", nil)
	})
}
