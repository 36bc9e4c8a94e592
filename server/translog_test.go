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
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/witnesstest"
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
			lk, vkey := newLogKey(t)
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
			if r.Body["code"] != "not_integrated" || !strings.Contains(r.msg(), "waiting to be integrated") {
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
				proof := tlog.RecordProof(hashesOf(t, p))
				if err := tlog.CheckRecord(proof, tree.N, tree.Hash, idx, tlog.RecordHash([]byte(leaf))); err != nil {
					t.Fatalf("inclusion of %s: %v", ver, err)
				}
				if tlog.CheckRecord(proof, tree.N, tree.Hash, idx, tlog.RecordHash([]byte(leaf+" "))) == nil {
					t.Fatal("a tampered leaf verifies")
				}
			}
			c := h.must(200, "GET", fmt.Sprintf("/svc/log/consistency?from=%d&to=%d", t1.N, t2.N), "", nil).Body
			tp := tlog.TreeProof(hashesOf(t, c))
			if err := tlog.CheckTree(tp, t2.N, t2.Hash, t1.N, t1.Hash); err != nil {
				t.Fatalf("consistency: %v", err)
			}
			// ?size=N proves inclusion in the earlier tree a client holds; a version that entered
			// the log after that tree is not_integrated there.
			p := h.must(200, "GET", fmt.Sprintf("/svc/log/inclusion/%s?size=%d", pending, t1.N), "", nil).Body
			early := tlog.RecordProof(hashesOf(t, p))
			if int64(p["tree_size"].(float64)) != t1.N || open(p["checkpoint"].(string)) != t2 {
				t.Fatalf("proof in the tree of %d: %v", t1.N, p)
			}
			if err := tlog.CheckRecord(early, t1.N, t1.Hash, int64(p["log_index"].(float64)), tlog.RecordHash([]byte(p["leaf"].(string)))); err != nil {
				t.Fatalf("inclusion in the tree of %d: %v", t1.N, err)
			}
			second := h.must(200, "GET", "/svc/lookup/"+id, "", nil).data()["version"].(string)
			if r := h.must(404, "GET", fmt.Sprintf("/svc/log/inclusion/%s?size=%d", second, t1.N), "", nil); r.Body["code"] != "not_integrated" || !strings.Contains(r.msg(), "after that tree") {
				t.Fatalf("a later version in an earlier tree: %s", r.Raw)
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
				{"/svc/log/inclusion/" + pending + "?size=0", 400, "size"},
				{"/svc/log/inclusion/" + pending + "?size=x", 400, "size"},
				{fmt.Sprintf("/svc/log/inclusion/%s?size=%d", pending, t2.N+1), 400, "beyond the log"},
				{"/svc/log/inclusion/0x" + strings.Repeat("0", 32), 404, "not in the transparency log"},
			} {
				r := h.must(bad.status, "GET", bad.path, "", nil)
				if !strings.Contains(r.msg(), bad.says) || r.Body["code"] == nil {
					t.Errorf("%s: %s", bad.path, r.Raw)
				}
			}
		})
	}
	// The log's state is in the metrics: the queue, the age of its oldest version and the
	// checkpoint size (read from the database), and the integrator's own figures.
	later := time.Now().Add(time.Hour) // the server's clock, an hour after the store's writes
	logMetrics := translog.NewMetrics()
	h := newHarnessWith(t, store.DialectSQLite, func(c *server.Config) {
		c.Now = func() time.Time { return later }
		c.Collectors = logMetrics.Collectors()
	})
	metric := func(name string) float64 {
		t.Helper()
		rec := httptest.NewRecorder()
		h.srv.Echo().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		for _, l := range strings.Split(rec.Body.String(), "\n") {
			if v, ok := strings.CutPrefix(l, name+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("%s: %v", l, err)
				}
				return f
			}
		}
		t.Fatalf("no %s in /metrics", name)
		return 0
	}
	for name, want := range map[string]float64{"svc_log_queue_length": 0, "svc_log_oldest_waiting_seconds": 0,
		"svc_log_checkpoint_size": 0, "svc_log_integrated_leaves_total": 0} {
		if got := metric(name); got != want {
			t.Fatalf("%s = %v before any write, want %v", name, got, want)
		}
	}
	publish(t, h, h.key("m@example.com"))
	waiting := metric("svc_log_queue_length")
	if waiting == 0 {
		t.Fatal("queue 0 after writes")
	}
	if age := metric("svc_log_oldest_waiting_seconds"); age < 3600-60 || age > 3600 {
		t.Fatalf("oldest waiting %vs, want an hour", age)
	}
	skey, _, _ := translog.GenerateKey("localhost:8080/svc/log")
	lk, _ := translog.ParseKey(skey)
	if _, err := translog.NewIntegrator(h.store, lk, nil, nil).WithMetrics(logMetrics).IntegrateOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"svc_log_queue_length": 0, "svc_log_oldest_waiting_seconds": 0,
		"svc_log_checkpoint_size": waiting, "svc_log_integrated_leaves_total": waiting,
		`svc_log_integration_duration_seconds_count{outcome="integrated"}`: 1} {
		if got := metric(name); got != want {
			t.Fatalf("%s = %v after integration, want %v", name, got, want)
		}
	}
	// Without a key, /svc/log/key answers 503.
	if code, _, body := h.raw("/svc/log/key"); code != 503 || !strings.Contains(body, "no transparency log key") {
		t.Fatalf("key without one: %d %s", code, body)
	}
}

// The cosigned checkpoint is served once a quorum of witnesses cosigned one: 404 before, then
// the checkpoint with the log's signature and each witness's cosignature, and inclusion in its
// tree is proven with ?size.
func TestLogCosignedCheckpoint(t *testing.T) {
	ctx := context.Background()
	lk, vkey := newLogKey(t)
	h := newHarnessWith(t, store.DialectSQLite, func(c *server.Config) { c.LogVerifierKey = vkey })
	id := publish(t, h, h.key("owner@example.com"))
	if _, err := translog.NewIntegrator(h.store, lk, nil, nil).IntegrateOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if code, _, body := h.raw("/svc/log/cosigned-checkpoint"); code != 404 || !strings.Contains(body, "cosigned") {
		t.Fatalf("before any cosignature: %d %s", code, body)
	}
	w := witnesstest.New(t, "witness.example", vkey)
	wt, err := translog.NewWitnesser(h.store, vkey, []translog.WitnessConfig{{Key: w.VerifierKey, URL: w.URL}}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := wt.WitnessOnce(ctx); err != nil || n != 1 {
		t.Fatalf("witness: %d %v", n, err)
	}
	code, hdr, body := h.raw("/svc/log/cosigned-checkpoint")
	if code != 200 || hdr.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("cosigned checkpoint: %d %v %s", code, hdr, body)
	}
	wv, err := fnote.NewVerifierForCosignatureV1(w.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open([]byte(body), note.VerifierList(lk.Verifier, wv))
	if err != nil || len(n.Sigs) != 2 {
		t.Fatalf("cosigned checkpoint does not verify with the log's and the witness's keys: %v %v", n, err)
	}
	cp, err := leaf.ParseCheckpoint(n.Text)
	if err != nil {
		t.Fatal(err)
	}
	ver := h.must(200, "GET", "/svc/lookup/"+id, "", nil).data()["version"].(string)
	p := h.must(200, "GET", fmt.Sprintf("/svc/log/inclusion/%s?size=%d", ver, cp.Size), "", nil).Body
	proof := tlog.RecordProof(hashesOf(t, p))
	if err := tlog.CheckRecord(proof, cp.Size, cp.Hash, int64(p["log_index"].(float64)), tlog.RecordHash([]byte(p["leaf"].(string)))); err != nil {
		t.Fatalf("inclusion in the cosigned tree: %v", err)
	}
}

// newLogKey makes a transparency-log key of origin localhost:8080/svc/log: the signer and its
// verifier key text.
func newLogKey(t *testing.T) (translog.Key, string) {
	t.Helper()
	skey, vkey, err := translog.GenerateKey("localhost:8080/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return lk, vkey
}

// hashesOf decodes the base64 "hashes" of a proof answer.
func hashesOf(t *testing.T, body map[string]any) []tlog.Hash {
	t.Helper()
	var out []tlog.Hash
	for _, s := range body["hashes"].([]any) {
		b, err := base64.StdEncoding.DecodeString(s.(string))
		if err != nil || len(b) != tlog.HashSize {
			t.Fatalf("proof hash %q", s)
		}
		out = append(out, tlog.Hash(b))
	}
	return out
}
