package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/internal/testclock"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/store"
)

const csvSchema = `{"type":"object","required":["email"],"properties":{"email":{"type":"string"},"age":{"type":"integer"},
	"address":{"type":"object","properties":{"city":{"type":"string"}}}}}`

// upload posts content as the multipart field file.
func upload(t *testing.T, h *harness, path, key string, content []byte) resp {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, err := mw.CreateFormFile("file", "records.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(content)
	_ = mw.Close()
	return h.do("POST", path, key, b.Bytes(), "Content-Type", mw.FormDataContentType())
}

// export reads a registry's CSV export.
func export(t *testing.T, h *harness, path, key string) []byte {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s %.300s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	return rec.Body.Bytes()
}

// crashAfter is the store with ImportBatch failing from its n+1th call: a worker killed in the
// middle of a job.
type crashAfter struct {
	*store.Store
	n int
}

var errKilled = errors.New("killed")

func (c *crashAfter) ImportBatch(ctx context.Context, jobID string, from, to int64, rows []store.ImportRow, errs []store.JobError, lease time.Time) (store.Job, error) {
	if c.n == 0 {
		return store.Job{}, errKilled
	}
	c.n--
	return c.Store.ImportBatch(ctx, jobID, from, to, rows, errs, lease)
}

// details reads every record's canonical details, by name.
func detailsOf(t *testing.T, s *store.Store, registryID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := s.EachRecordDetails(context.Background(), registryID, true, func(r store.ExportedRecord) error {
		b, err := proof.Canonicalize(r.Details)
		out[r.Name] = string(b)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// A CSV import as a job, end to end on both dialects: uploaded, checked, killed after its first
// batch and resumed by another worker once the lease ran out, with no row imported twice; bad
// rows become the job's row errors; the registry's export, uploaded into an empty registry,
// gives the same details record for record.
func TestCSVImportJobAndExportRoundTrip(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		key := h.key("owner@example.com")
		id := publish(t, h, key)
		for _, name := range []string{"people", "copy"} {
			h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"`+name+`","schema":`+csvSchema+`}`)
		}
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/people/add-record", key, `{"record_name":"alice","details":{"email":"a@example.com"}}`)

		var b bytes.Buffer
		w := csv.NewWriter(&b)
		_ = w.Write([]string{"record_name", "email", "age", "address.city", "note"})
		good := 2500
		for i := range good {
			_ = w.Write([]string{fmt.Sprintf("p%05d", i), fmt.Sprintf("p%d@example.com", i), fmt.Sprint(20 + i%50), "Zürich", map[bool]string{true: "", false: `"12"`}[i%3 == 0]})
		}
		bad := [][]string{
			{".bad", "x@example.com", "", "", ""},     // not a record name
			{"b1", "x@example.com", "old", "", ""},    // age is not a number
			{"b2", "", "30", "", ""},                  // no email: the schema requires it
			{"p00001", "dup@example.com", "", "", ""}, // twice in the file
			{"alice", "new@example.com", "", "", ""},  // already in the registry
			{"b3", "x@example.com", "1.5", "", ""},    // not an integer
		}
		for _, r := range bad {
			_ = w.Write(r)
		}
		w.Flush()

		r := upload(t, h, "/svc/"+id+"/people/bulk-upload", key, b.Bytes())
		if r.Status != http.StatusAccepted || r.data()["state"] != "queued" || r.data()["total_rows"] != float64(good+len(bad)) {
			t.Fatalf("upload: %d %v", r.Status, r.Body)
		}
		jobID := r.data()["job_id"].(string)

		clock := testclock.New()
		crashing := &crashAfter{Store: h.store, n: 1}
		if _, err := csvjob.NewWorker(crashing, nil, clock.Now).RunOnce(ctx); !errors.Is(err, errKilled) {
			t.Fatalf("the killed worker: %v", err)
		}
		j := h.must(http.StatusOK, "GET", "/svc/jobs/"+jobID, key, nil).data()
		if j["state"] != "running" || j["processed_rows"] != 1000.0 || j["imported_rows"] != 1000.0 {
			t.Fatalf("after the first batch: %v", j)
		}
		// Another worker finds the job only once the dead one's lease has run out.
		if found, err := csvjob.NewWorker(h.store, nil, clock.Now).RunOnce(ctx); found || err != nil {
			t.Fatalf("a leased job was taken: %v, %v", found, err)
		}
		clock.Advance(3 * time.Minute)
		if found, err := csvjob.NewWorker(h.store, nil, clock.Now).RunOnce(ctx); !found || err != nil {
			t.Fatalf("resuming: %v, %v", found, err)
		}
		j = h.must(http.StatusOK, "GET", "/svc/jobs/"+jobID, key, nil).data()
		if j["state"] != "done" || j["processed_rows"] != float64(good+len(bad)) || j["imported_rows"] != float64(good) || j["error_rows"] != float64(len(bad)) {
			t.Fatalf("the job: %v", j)
		}
		errs := j["errors"].([]any)
		wantRows := []float64{2501, 2502, 2503, 2504, 2505, 2506}
		for i, e := range errs {
			e := e.(map[string]any)
			if e["row"] != wantRows[i] || e["message"] == "" {
				t.Fatalf("row errors: %v", errs)
			}
		}
		for _, want := range []string{"record name", "age", "email", "already exists", "already exists", "age"} {
			if !strings.Contains(fmt.Sprint(errs), want) {
				t.Fatalf("row errors %v say nothing of %s", errs, want)
			}
		}
		// The failed rows were kept with their batch: once each, across the killed worker.
		if fe := h.must(http.StatusOK, "GET", "/svc/jobs/"+jobID+"/failed-entries?page_size=100", key, nil).data(); fe["total_entries"] != float64(len(bad)) ||
			fe["failed_entries"].([]any)[0].(map[string]any)["cells"].(map[string]any)["record_name"] != ".bad" {
			t.Fatalf("the failed rows: %v", fe)
		}
		reg := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/people", "", nil).data()
		if reg["record_count"] != float64(good+1) {
			t.Fatalf("the registry holds %v records, want %d (no row twice)", reg["record_count"], good+1)
		}
		rec := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/people/p00004", "", nil).data()
		if d := rec["details"].(map[string]any); d["age"] != 24.0 || d["note"] != "12" || d["address"].(map[string]any)["city"] != "Zürich" {
			t.Fatalf("p00004 reads %v", d)
		}
		if list := h.must(http.StatusOK, "GET", "/svc/jobs", key, nil).Body["data"].([]any); len(list) != 1 {
			t.Fatalf("jobs: %v", list)
		}
		h.must(http.StatusNotFound, "GET", "/svc/jobs/"+jobID, h.key("other@example.com"), nil)

		// The export, uploaded into the empty registry, gives the same details.
		exported := export(t, h, "/svc/"+id+"/people/export-records-as-csv", "")
		if lines := bytes.Count(exported, []byte("\n")); lines != good+2 {
			t.Fatalf("the export has %d lines, want a header and %d records", lines, good+1)
		}
		r = upload(t, h, "/svc/"+id+"/copy/bulk-upload", key, exported)
		if r.Status != http.StatusAccepted {
			t.Fatalf("re-upload: %d %v", r.Status, r.Body)
		}
		if found, err := csvjob.NewWorker(h.store, nil, nil).RunOnce(ctx); !found || err != nil {
			t.Fatalf("the second import: %v, %v", found, err)
		}
		if j := h.must(http.StatusOK, "GET", "/svc/jobs/"+r.data()["job_id"].(string), key, nil).data(); j["state"] != "done" || j["error_rows"] != 0.0 {
			t.Fatalf("the second import: %v", j)
		}
		copyID := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/copy", "", nil).data()["registry_id"].(string)
		orig, copied := detailsOf(t, h.store, reg["registry_id"].(string)), detailsOf(t, h.store, copyID)
		if len(orig) != good+1 || len(copied) != len(orig) {
			t.Fatalf("%d records copied of %d", len(copied), len(orig))
		}
		for name, d := range orig {
			if copied[name] != d {
				t.Fatalf("%s: exported %s, re-imported %s", name, d, copied[name])
			}
		}
	})
}

// Refused uploads and exports answer 4xx with a clear message and write nothing (no job, no record).
func TestCSVRefusals(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		id := publish(t, h, key)
		up := "/svc/" + id + "/employees/bulk-upload"
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"frozen","schema":{}}`)
		h.must(http.StatusOK, "POST", "/svc/"+id+"/frozen/archive-registry", key, nil)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", key, `{"registry_name":"odd","schema":{}}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/odd/add-record", key, `{"record_name":"x","details":{"a key":1}}`)
		other := h.key("other@example.com")
		before := countRows(t, h)
		check := func(what string, r resp, status int, msg string) {
			t.Helper()
			if r.Status != status || !strings.Contains(r.msg(), msg) {
				t.Fatalf("%s: %d %q; want %d containing %q", what, r.Status, r.msg(), status, msg)
			}
		}
		check("no record_name", upload(t, h, up, key, []byte("email\na@example.com\n")), 400, "record_name")
		check("header only", upload(t, h, up, key, []byte("record_name,email\n")), 400, "no rows")
		check("ragged row", upload(t, h, up, key, []byte("record_name,email\na,b,c\n")), 400, "not CSV")
		check("bare quote", upload(t, h, up, key, []byte("record_name,email\na,\"b\n")), 400, "not CSV")
		check("bad path", upload(t, h, up, key, []byte("record_name,a b\nx,1\n")), 400, "details path")
		check("NUL in the header", upload(t, h, up, key, []byte("record_name,a\x00\nx,1\n")), 400, "NUL")
		check("archived registry", upload(t, h, "/svc/"+id+"/frozen/bulk-upload", key, []byte("record_name\nx\n")), 409, "archived")
		check("unknown registry", upload(t, h, "/svc/"+id+"/nope/bulk-upload", key, []byte("record_name\nx\n")), 404, "Registry not found")
		check("not a member", upload(t, h, up, other, []byte("record_name\nx\n")), 403, "")
		check("JSON body", h.do("POST", up, key, `{"file":"x"}`), 415, "multipart/form-data")
		check("no boundary", h.do("POST", up, key, "x", "Content-Type", "multipart/form-data"), 400, "boundary")
		check("no body", h.do("POST", up, key, nil, "Content-Type", "multipart/form-data; boundary=x"), 400, "missing")
		check("no file field", h.do("POST", up, key, "--x\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nv\r\n--x--\r\n",
			"Content-Type", "multipart/form-data; boundary=x"), 400, "no field file")
		check("unknown job", h.do("GET", "/svc/jobs/nope", key, nil), 404, "Job not found")
		check("a details key no column can name", h.do("GET", "/svc/"+id+"/odd/export-records-as-csv", "", nil), 409, "a key")
		if after := countRows(t, h); after != before {
			t.Fatalf("refused requests wrote: %v, then %v", before, after)
		}
		if jobs, err := h.store.Jobs(context.Background(), mustUser(t, h, "owner@example.com")); err != nil || len(jobs) != 0 {
			t.Fatalf("refused uploads made jobs: %v, %v", jobs, err)
		}
	})
}

func mustUser(t *testing.T, h *harness, email string) string {
	t.Helper()
	u, err := h.store.EnsureUser(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// The export outlives the server's write timeout: a reader slower than the timeout still gets
// the whole file (the export's write deadline is its own).
func TestExportOutlivesTheWriteTimeout(t *testing.T) {
	h := newHarness(t, store.DialectSQLite)
	key := h.key("owner@example.com")
	id := publish(t, h, key)
	// Some 9 MB of CSV: more than the socket buffers hold, so that the server is still writing
	// when its write timeout has passed.
	const batches = 6
	for n := range batches {
		var b strings.Builder
		b.WriteString(`{"records":[`)
		for i := range 1000 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"record_name":"r%d-%04d","details":{"email":"r%d@example.com","pad":"%s"}}`, n, i, i, strings.Repeat("x", 1500))
		}
		b.WriteString(`]}`)
		h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-records", key, b.String())
	}

	srv := httptest.NewUnstartedServer(h.e)
	srv.Config.WriteTimeout = 200 * time.Millisecond
	srv.Start()
	defer srv.Close()
	res, err := http.Get(srv.URL + "/svc/" + id + "/employees/export-records-as-csv")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	time.Sleep(500 * time.Millisecond) // past the server's write timeout
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("the export was cut after %d bytes: %v", len(body), err)
	}
	if lines := bytes.Count(body, []byte("\n")); lines != 1+2+batches*1000 { // carol is a draft, not exported to anyone else
		t.Fatalf("the export has %d lines, want a header and %d records", lines, 2+batches*1000)
	}
}
