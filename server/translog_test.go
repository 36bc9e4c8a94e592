package server_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

// raw sends a request through the contract-checked server and returns status, headers, body.
func (h *harness) raw(path string) (int, http.Header, string) {
	h.t.Helper()
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Header(), rec.Body.String()
}

// The log's endpoints: checkpoint and key as text, inclusion proofs of every logged version
// and consistency proofs that an independent x/mod/sumdb verifier accepts, and 400, 404 and
// 503 with clear messages and codes for what cannot be proven.
func TestLogEndpoints(t *testing.T) {
	for _, d := range []string{store.DialectSQLite, store.DialectPostgres} {
		t.Run(d, func(t *testing.T) {
			skey, vkey, err := translog.GenerateKey("localhost:8080/svc/log")
			if err != nil {
				t.Fatal(err)
			}
			lk, err := translog.ParseKey(skey)
			if err != nil {
				t.Fatal(err)
			}
			h := newHarnessWith(t, d, func(c *server.Config) { c.LogVerifierKey = vkey })
			ctx := context.Background()
			// Before the first checkpoint.
			if code, _, body := h.raw("/svc/log/checkpoint"); code != 503 || !strings.Contains(body, `"code":"unavailable"`) {
				t.Fatalf("checkpoint before the first: %d %s", code, body)
			}
			key := h.key("owner@example.com")
			id := publish(t, h, key)
			pending := h.must(200, "GET", "/svc/lookup/"+id, "", nil).data()["version"].(string)
			r := h.must(404, "GET", "/svc/log/inclusion/"+pending, "", nil)
			if r.Body["code"] != "not_found" || !strings.Contains(r.msg(), "not integrated yet") {
				t.Fatalf("a queued version: %s", r.Raw)
			}
			g := translog.NewIntegrator(h.store, lk, nil, nil)
			first, err := g.IntegrateOnce(ctx)
			if err != nil || first == 0 {
				t.Fatalf("integrate: %d %v", first, err)
			}
			code, hdr, cp1 := h.raw("/svc/log/checkpoint")
			if code != 200 || hdr.Get("Content-Type") != "text/plain; charset=utf-8" || hdr.Get("Cache-Control") != "public, max-age=1" {
				t.Fatalf("checkpoint: %d %v %q", code, hdr, cp1)
			}
			code, _, served := h.raw("/svc/log/key")
			if code != 200 || strings.TrimSpace(served) != vkey {
				t.Fatalf("key: %d %q", code, served)
			}
			// More versions, then a second checkpoint.
			h.must(200, "POST", "/svc/"+id+"/update-namespace", key, `{"description":"second"}`)
			if _, err := g.IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}
			_, _, cp2 := h.raw("/svc/log/checkpoint")
			v, err := note.NewVerifier(vkey)
			if err != nil {
				t.Fatal(err)
			}
			open := func(signed string) tlog.Tree {
				t.Helper()
				n, err := note.Open([]byte(signed), note.VerifierList(v))
				if err != nil {
					t.Fatalf("checkpoint %q: %v", signed, err)
				}
				lines := strings.Split(n.Text, "\n")
				size, _ := strconv.ParseInt(lines[1], 10, 64)
				hash, _ := base64.StdEncoding.DecodeString(lines[2])
				tr := tlog.Tree{N: size}
				copy(tr.Hash[:], hash)
				return tr
			}
			t1, t2 := open(cp1), open(cp2)
			if t1.N != int64(first) || t2.N <= t1.N {
				t.Fatalf("sizes %d then %d", t1.N, t2.N)
			}
			// Every version of the namespace and registry is proven in the latest checkpoint.
			for _, ver := range []string{pending, h.must(200, "GET", "/svc/lookup/"+id, "", nil).data()["version"].(string),
				h.must(200, "GET", "/svc/lookup/"+id+"/employees", "", nil).data()["version"].(string)} {
				p := h.must(200, "GET", "/svc/log/inclusion/"+ver, "", nil).Body
				tree := open(p["checkpoint"].(string))
				idx := int64(p["log_index"].(float64))
				if int64(p["tree_size"].(float64)) != tree.N || tree != t2 {
					t.Fatalf("proof of %s against %v, latest %v", ver, tree, t2)
				}
				leaf := p["leaf"].(string)
				if !strings.Contains(leaf, `"version":"`+ver+`"`) {
					t.Fatalf("leaf %s for %s", leaf, ver)
				}
				var proof tlog.RecordProof
				for _, s := range p["hashes"].([]any) {
					b, _ := base64.StdEncoding.DecodeString(s.(string))
					var hh tlog.Hash
					copy(hh[:], b)
					proof = append(proof, hh)
				}
				if err := tlog.CheckRecord(proof, tree.N, tree.Hash, idx, tlog.RecordHash([]byte(leaf))); err != nil {
					t.Fatalf("inclusion of %s: %v", ver, err)
				}
				if tlog.CheckRecord(proof, tree.N, tree.Hash, idx, tlog.RecordHash([]byte(leaf+" "))) == nil {
					t.Fatal("a tampered leaf verifies")
				}
			}
			c := h.must(200, "GET", fmt.Sprintf("/svc/log/consistency?from=%d&to=%d", t1.N, t2.N), "", nil).Body
			var tp tlog.TreeProof
			for _, s := range c["hashes"].([]any) {
				b, _ := base64.StdEncoding.DecodeString(s.(string))
				var hh tlog.Hash
				copy(hh[:], b)
				tp = append(tp, hh)
			}
			if err := tlog.CheckTree(tp, t2.N, t2.Hash, t1.N, t1.Hash); err != nil {
				t.Fatalf("consistency: %v", err)
			}
			for _, bad := range []struct {
				path   string
				status int
				says   string
			}{
				{fmt.Sprintf("/svc/log/consistency?from=%d&to=%d", t2.N, t1.N), 400, "after"},
				{fmt.Sprintf("/svc/log/consistency?from=1&to=%d", t2.N+1), 400, "beyond the log"},
				{"/svc/log/consistency?from=-1&to=1", 400, ""},
				{"/svc/log/consistency?from=x&to=1", 400, ""},
				{"/svc/log/consistency?to=1", 400, ""},
				{"/svc/log/inclusion/nope", 400, ""},
				{"/svc/log/inclusion/0x" + strings.Repeat("0", 32), 404, "not in the transparency log"},
			} {
				r := h.must(bad.status, "GET", bad.path, "", nil)
				if !strings.Contains(r.msg(), bad.says) || r.Body["code"] == nil {
					t.Errorf("%s: %s", bad.path, r.Raw)
				}
			}
		})
	}
	// The queue length is a metric.
	h := newHarness(t, store.DialectSQLite)
	queue := func() string {
		t.Helper()
		rec := httptest.NewRecorder()
		h.srv.Echo().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		for _, l := range strings.Split(rec.Body.String(), "\n") {
			if strings.HasPrefix(l, "svc_log_queue_length ") {
				return strings.TrimPrefix(l, "svc_log_queue_length ")
			}
		}
		t.Fatalf("no svc_log_queue_length in /metrics")
		return ""
	}
	if q := queue(); q != "0" {
		t.Fatalf("queue %s before any write", q)
	}
	publish(t, h, h.key("m@example.com"))
	if q := queue(); q == "0" {
		t.Fatal("queue 0 after writes")
	}
	skey, _, _ := translog.GenerateKey("localhost:8080/svc/log")
	lk, _ := translog.ParseKey(skey)
	if _, err := translog.NewIntegrator(h.store, lk, nil, nil).IntegrateOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if q := queue(); q != "0" {
		t.Fatalf("queue %s after integration", q)
	}
	// Without a key, /svc/log/key answers 503.
	if code, _, body := h.raw("/svc/log/key"); code != 503 || !strings.Contains(body, "no transparency log key") {
		t.Fatalf("key without one: %d %s", code, body)
	}
}
