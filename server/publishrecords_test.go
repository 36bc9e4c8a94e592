package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestSaveRecordAsDraft: the draft form of add-record, for the owner, delegates and registry
// delegates; private until published; validated as add-record is.
func TestSaveRecordAsDraft(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner, dee, regDel, stranger := h.key("owner@example.com"), h.key("dee@example.com"), h.key("rd@example.com"), h.key("stranger@example.com")
		ns := draftsRegistry(t, h, owner)
		reg := "/svc/" + ns + "/people"
		save := reg + "/save-record-as-draft"
		h.must(http.StatusUnauthorized, "POST", save, "", map[string]any{"record_name": "a", "details": map[string]any{"n": 1}})
		h.must(http.StatusForbidden, "POST", save, stranger, map[string]any{"record_name": "a", "details": map[string]any{"n": 1}})
		for _, body := range []any{
			map[string]any{"record_name": "a", "details": map[string]any{"n": 1}, "state": "live"},
			map[string]any{"record_name": "a", "details": map[string]any{"n": "one"}},
			map[string]any{"record_name": "a", "details": map[string]any{}},
			map[string]any{"details": map[string]any{"n": 1}},
			map[string]any{"record_name": "a", "details": map[string]any{"n": 1}, "extra": true},
		} {
			r := h.must(http.StatusBadRequest, "POST", save, owner, body)
			if r.msg() == "" {
				t.Fatalf("%v: no message", body)
			}
		}
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/people/a", owner, nil)
		for i, k := range []string{owner, dee, regDel} {
			body := map[string]any{"record_name": fmt.Sprintf("r%d", i), "details": map[string]any{"n": i}}
			if i == 0 {
				body["state"] = "draft"
			}
			d := h.must(http.StatusCreated, "POST", save, k, body).data()
			if d["state"] != "draft" || d["version_count"] != 1.0 {
				t.Fatalf("saved: %v", d)
			}
		}
		h.must(http.StatusConflict, "POST", save, owner, map[string]any{"record_name": "r0", "details": map[string]any{"n": 1}})
		h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/people/r0", "", nil) // private
		h.must(http.StatusOK, "GET", "/svc/lookup/"+ns+"/people/r0", dee, nil)
		if got := h.must(http.StatusOK, "GET", "/svc/stats", "", nil).data()["records"]; got != 0.0 {
			t.Fatalf("drafts counted: %v", got)
		}
	})
}

// draftsRegistry makes a namespace with a delegate (dee@) and a registry "people" (details
// need an integer n) with a registry delegate (rd@); it returns the namespace id.
func draftsRegistry(t *testing.T, h *harness, owner string) string {
	t.Helper()
	ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", owner, map[string]any{"name": "Acme"}).data()["namespace_id"].(string)
	h.must(http.StatusOK, "POST", "/svc/"+ns+"/add-delegate", owner, map[string]any{"email": "dee@example.com"})
	h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", owner, map[string]any{"registry_name": "people",
		"schema": map[string]any{"type": "object", "required": []string{"n"}, "properties": map[string]any{"n": map[string]any{"type": "integer"}}}})
	h.must(http.StatusOK, "POST", "/svc/"+ns+"/people/add-registry-delegate", owner, map[string]any{"email": "rd@example.com"})
	return ns
}

// TestPublishRecords: drafts published all or none, each refusal naming the records it refuses,
// by the owner, a delegate or a registry delegate; the versions are public and logged.
func TestPublishRecords(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			h := newHarness(t, d)
			db := rawDB(t, d, h.dbURL)
			owner, dee, regDel, stranger := h.key("owner@example.com"), h.key("dee@example.com"), h.key("rd@example.com"), h.key("stranger@example.com")
			ns := draftsRegistry(t, h, owner)
			reg := "/svc/" + ns + "/people"
			var drafts []any
			for i := range 6 {
				name := fmt.Sprintf("d%d", i)
				h.must(http.StatusCreated, "POST", reg+"/save-record-as-draft", owner, map[string]any{"record_name": name, "details": map[string]any{"n": i}})
				drafts = append(drafts, name)
			}
			h.must(http.StatusCreated, "POST", reg+"/add-record", owner, map[string]any{"record_name": "live1", "details": map[string]any{"n": 9}})
			pub := reg + "/publish-records"
			queued := func() int {
				return count(t, db, `SELECT (SELECT COUNT(*) FROM log_queue) + (SELECT COUNT(*) FROM log_entries)`)
			}
			before := queued()

			// Refusals: nothing written.
			two := map[string]any{"records": drafts[:2]}
			h.must(http.StatusUnauthorized, "POST", pub, "", two)
			h.must(http.StatusForbidden, "POST", pub, stranger, two)
			h.must(http.StatusNotFound, "POST", "/svc/"+ns+"/nope/publish-records", owner, two)
			for _, c := range []struct {
				body   any
				status int
				want   []string
			}{
				{map[string]any{"records": []any{}}, 400, nil},
				{map[string]any{"records": []any{"d0", "d0", "d1", "d1"}}, 400, []string{"records[1] (d0)", "records[3] (d1)"}},
				{map[string]any{"records": []any{"d0", "ghost", "d1", "phantom"}}, 404, []string{"records[1] (ghost)", "records[3] (phantom)"}},
				{map[string]any{"records": []any{"d0", "live1"}}, 409, []string{"records[1] (live1) is live"}},
				{map[string]any{"records": []any{"bad name!"}}, 400, nil},
				{map[string]any{"records": make([]string, 1001)}, 400, nil},
				{map[string]any{"names": drafts}, 400, nil},
			} {
				r := h.must(c.status, "POST", pub, owner, c.body)
				for _, w := range c.want {
					if !strings.Contains(r.msg(), w) {
						t.Fatalf("%v: %q does not name %s", c.body, r.msg(), w)
					}
				}
			}
			if n := queued(); n != before {
				t.Fatalf("refusals logged %d versions", n-before)
			}
			h.must(http.StatusNotFound, "GET", "/svc/lookup/"+ns+"/people/d0", "", nil)

			// Published by each writer: public, a new version each, in the log.
			for i, k := range []string{owner, dee, regDel} {
				names := drafts[2*i : 2*i+2]
				got := h.must(http.StatusOK, "POST", pub, k, map[string]any{"records": names})
				recs := got.data()["records"].([]any)
				if len(recs) != 2 || got.msg() != "2 records published" {
					t.Fatalf("published: %s", got.Raw)
				}
				for j, r := range recs {
					m := r.(map[string]any)
					lk := h.must(http.StatusOK, "GET", "/svc/lookup/"+ns+"/people/"+names[j].(string), "", nil).data()
					if m["record_name"] != names[j] || lk["state"] != "live" || lk["version"] != m["version"] || lk["version_count"] != 2.0 || lk["digest"] != m["digest"] {
						t.Fatalf("published %v, lookup %v", m, lk)
					}
				}
			}
			if n := queued(); n != before+6 {
				t.Fatalf("%d versions logged, want 6", n-before)
			}
			if got := h.must(http.StatusOK, "GET", "/svc/stats", "", nil).data()["records"]; got != 7.0 {
				t.Fatalf("records counted: %v, want 7", got)
			}
			if got := h.must(http.StatusOK, "GET", "/svc/lookup/"+ns+"/people", "", nil).data()["record_count"]; got != 7.0 {
				t.Fatalf("registry record_count: %v, want 7", got)
			}
			// Published twice: 409 naming them.
			r := h.must(http.StatusConflict, "POST", pub, owner, map[string]any{"records": drafts[:2]})
			if !strings.Contains(r.msg(), "records[0] (d0) is live") || !strings.Contains(r.msg(), "records[1] (d1) is live") {
				t.Fatalf("republish: %q", r.msg())
			}
			// A registry that is not live refuses.
			h.must(http.StatusCreated, "POST", reg+"/save-record-as-draft", owner, map[string]any{"record_name": "late", "details": map[string]any{"n": 1}})
			h.must(http.StatusOK, "POST", reg+"/deactivate-registry", owner, nil)
			h.must(http.StatusConflict, "POST", pub, owner, map[string]any{"records": []any{"late"}})
		})
	}
}

// TestPublishRecordsStatements: on Postgres, a batch publish sends the same statements for 10
// drafts as for 500: its cost in round trips does not grow with the batch.
func TestPublishRecordsStatements(t *testing.T) {
	st, counter, _ := storetest.OpenCounting(t, store.Options{})
	h := newHarnessOn(t, st, nil)
	owner := h.key("owner@example.com")
	ns := draftsRegistry(t, h, owner)
	reg := "/svc/" + ns + "/people"
	measure := func(prefix string, n int) int64 {
		names := make([]string, n)
		recs := make([]map[string]any, n)
		for i := range names {
			names[i] = fmt.Sprintf("%s%d", prefix, i)
			recs[i] = map[string]any{"record_name": names[i], "state": "draft", "details": map[string]any{"n": i}}
		}
		h.must(http.StatusCreated, "POST", reg+"/add-records", owner, map[string]any{"records": recs})
		counter.Reset()
		h.must(http.StatusOK, "POST", reg+"/publish-records", owner, map[string]any{"records": names})
		// The write's transaction: from the begin before its registry read to its commit (the
		// planner statistics' refresh after a large write runs beside it, in statements of its own).
		qs := counter.Statements()
		for i, q := range qs {
			if len(q) > 160 {
				q = q[:160] + "..."
			}
			t.Logf("  %d: %s", i+1, strings.Join(strings.Fields(q), " "))
		}
		// Its statements: from its registry read to the consistency token read after its commit,
		// less the statistics refresh's, which may interleave (ANALYZE in a transaction of its own
		// on another connection), and less the begin and commit, which are its own once each.
		analyze := func(q string) bool {
			return strings.Contains(q, "reltuples") || strings.Contains(q, "advisory_xact_lock") || strings.Contains(q, "ANALYZE") ||
				strings.HasPrefix(strings.TrimSpace(q), "-- ping")
		}
		read, token := -1, -1
		for i, q := range qs {
			if read < 0 && strings.Contains(q, "namespace_name") {
				read = i
			}
			if read >= 0 && strings.Contains(q, "pg_current_wal_insert_lsn") {
				token = i
				break
			}
		}
		if read < 0 || token < 0 {
			t.Fatalf("publish-records of %d: no registry read or no consistency token among its statements", n)
		}
		inTx := int64(2) // begin, commit
		for _, q := range qs[read:token] {
			if w := strings.ToLower(strings.TrimSpace(q)); w != "begin" && w != "commit" && !analyze(q) {
				inTx++
			}
		}
		t.Logf("publish-records of %d: %d statements in its transaction", n, inTx)
		return inTx
	}
	measure("warm", 2)
	small, large := measure("s", 10), measure("l", 500)
	if small != large {
		t.Fatalf("publish-records of 10 took %d statements, of 500 %d", small, large)
	}
}
