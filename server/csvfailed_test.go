package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-directory/svc/csvjob"
)

// getCSV reads a CSV answer (any status but 200 fails the test).
func getCSV(t *testing.T, h *harness, path, key string) [][]string {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("GET %s: %d %s %.300s", path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	rows, err := csv.NewReader(bytes.NewReader(rec.Body.Bytes())).ReadAll()
	if err != nil {
		t.Fatalf("GET %s is not CSV: %v", path, err)
	}
	return rows
}

func writeCSV(rows [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.WriteAll(rows)
	return b.Bytes()
}

// runJob runs the import worker once and returns the job as its uploader reads it.
func runJob(t *testing.T, h *harness, key string, r resp) map[string]any {
	t.Helper()
	if r.Status != http.StatusAccepted {
		t.Fatalf("upload: %d %v", r.Status, r.Body)
	}
	if found, err := csvjob.NewWorker(h.store, nil, nil).RunOnce(context.Background()); !found || err != nil {
		t.Fatalf("the import: %v, %v", found, err)
	}
	return h.must(http.StatusOK, "GET", "/svc/jobs/"+r.data()["job_id"].(string), key, nil).data()
}

// A job's failed rows: paged with their cells and errors, and downloaded as CSV in the
// upload's layout with a last column error, every cell neutralised against formulas as the
// export's are; only the uploader sees them. Fixed and uploaded again, the file imports every
// row, its error column ignored (not read as a details field).
func TestCSVFailedEntriesRoundTrip(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner, delegate, stranger := h.key("owner@example.com"), h.key("delegate@example.com"), h.key("stranger@example.com")
		id := publish(t, h, owner)
		h.must(http.StatusOK, "POST", "/svc/"+id+"/add-delegate", owner, `{"email":"delegate@example.com"}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", owner, `{"registry_name":"people","schema":`+csvSchema+`}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/people/add-record", owner, `{"record_name":"alice","details":{"email":"a@example.com"}}`)

		upload1 := writeCSV([][]string{
			{"record_name", " email", "age", "address.city"},
			{"ok1", "ok1@example.com", "31", "Bern"},
			{"bad-age", "b@example.com", "old", "=1+1"}, // age is not a number; the city a formula
			{"no-email", "", "40", "'=SUM(A1)"},         // the schema requires email; the city marked
			{"alice", "dup@example.com", "", "-5"},      // already in the registry
			{"ok2", "ok2@example.com", "", ""},
		})
		// The delegate uploads: the job is the delegate's.
		job := runJob(t, h, delegate, upload(t, h, "/svc/"+id+"/people/bulk-upload", delegate, upload1))
		if job["imported_rows"] != 2.0 || job["error_rows"] != 3.0 {
			t.Fatalf("the job: %v", job)
		}
		jobID := job["job_id"].(string)
		fe := "/svc/jobs/" + jobID + "/failed-entries"

		// Who sees them: the uploader only.
		h.must(http.StatusNotFound, "GET", fe, owner, nil) // the namespace's owner did not upload
		h.must(http.StatusNotFound, "GET", fe, stranger, nil)
		h.must(http.StatusUnauthorized, "GET", fe, "", nil)
		h.must(http.StatusNotFound, "GET", fe+".csv", owner, nil)
		h.must(http.StatusNotFound, "GET", fe+".csv", stranger, nil)
		h.must(http.StatusUnauthorized, "GET", fe+".csv", "", nil)
		h.must(http.StatusNotFound, "GET", "/svc/jobs/no-such-job/failed-entries", delegate, nil)
		h.must(http.StatusBadRequest, "GET", fe+"?page=0", delegate, nil)
		h.must(http.StatusBadRequest, "GET", fe+"?page_size=101", delegate, nil)

		// Paged, by row, with their cells as uploaded.
		p1 := h.must(http.StatusOK, "GET", fe+"?page_size=2", delegate, nil).data()
		if p1["total_entries"] != 3.0 || p1["total_pages"] != 2.0 || p1["page_number"] != 1.0 || len(p1["failed_entries"].([]any)) != 2 {
			t.Fatalf("page 1: %v", p1)
		}
		if hdr := p1["header"].([]any); len(hdr) != 4 || hdr[1] != "email" {
			t.Fatalf("the header: %v", hdr)
		}
		first := p1["failed_entries"].([]any)[0].(map[string]any)
		cells := first["cells"].(map[string]any)
		if first["row"] != 2.0 || !strings.Contains(first["error"].(string), "age") || cells["record_name"] != "bad-age" || cells["address.city"] != "=1+1" {
			t.Fatalf("the first failed row: %v", first)
		}
		p2 := h.must(http.StatusOK, "GET", fe+"?page_size=2&page=2", delegate, nil).data()
		last := p2["failed_entries"].([]any)
		if len(last) != 1 || last[0].(map[string]any)["row"] != 4.0 || !strings.Contains(last[0].(map[string]any)["error"].(string), "already exists") {
			t.Fatalf("page 2: %v", p2)
		}

		// Downloaded in the upload's layout, neutralised as the export is.
		got := getCSV(t, h, fe+".csv", delegate)
		want := [][]string{
			{"record_name", "email", "age", "address.city", "error"},
			{"bad-age", "b@example.com", "old", "'=1+1"},
			{"no-email", "", "40", "'=SUM(A1)"},
			{"alice", "dup@example.com", "", "'-5"},
		}
		if len(got) != len(want) || strings.Join(got[0], ",") != strings.Join(want[0], ",") {
			t.Fatalf("the download: %q", got)
		}
		for i := 1; i < len(want); i++ {
			if strings.Join(got[i][:4], ",") != strings.Join(want[i], ",") || got[i][4] == "" {
				t.Fatalf("row %d of the download: %q, want %q and an error", i, got[i], want[i])
			}
		}

		// Fixed and uploaded again, the error column kept: every row imports, the same values.
		got[1][2] = "41"
		got[2][1] = "ne@example.com"
		got[3][0] = "alice2"
		again := runJob(t, h, delegate, upload(t, h, "/svc/"+id+"/people/bulk-upload", delegate, writeCSV(got)))
		if again["imported_rows"] != 3.0 || again["error_rows"] != 0.0 {
			t.Fatalf("the fixed file: %v", again)
		}
		for name, city := range map[string]any{"bad-age": "=1+1", "no-email": "=SUM(A1)", "alice2": "-5"} {
			d := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/people/"+name, "", nil).data()["details"].(map[string]any)
			if _, ok := d["error"]; ok {
				t.Fatalf("%s imported the error column: %v", name, d)
			}
			if c := d["address"].(map[string]any)["city"]; c != city {
				t.Fatalf("%s: city %v, want %v", name, c, city)
			}
		}
		if rows := getCSV(t, h, "/svc/jobs/"+again["job_id"].(string)+"/failed-entries.csv", delegate); len(rows) != 1 {
			t.Fatalf("a job without failed rows downloads %q", rows)
		}
	})
}
