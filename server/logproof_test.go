package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/tlogproof"
	"github.com/svc-directory/svc/translog/witnesstest"
)

// verifyProofOf fetches the tlog-proof of the version a lookup shows and verifies it under the
// policy, for the lookup's leaf.
func verifyProofOf(t *testing.T, h *harness, policy tlogproof.Policy, kind string, lookup resp) tlogproof.Verified {
	t.Helper()
	want, err := leaf.FromLookup(kind, lookup.data())
	if err != nil {
		t.Fatal(err)
	}
	code, hdr, body := h.raw("/svc/log/proof/" + want.Version)
	if code != 200 || hdr.Get("Content-Type") != "text/plain; charset=utf-8" || hdr.Get("Cache-Control") != "public, max-age=1" {
		t.Fatalf("the proof of %s: %d %v %s", want.Version, code, hdr, body)
	}
	p, err := tlogproof.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := want.Canonical()
	t.Logf("the tlog-proof of a %s (leaf %d, %d hashes): %d bytes", kind, p.Index, len(p.Hashes), len(body))
	v, err := tlogproof.Verify(p, policy, text)
	if err != nil {
		t.Fatalf("the proof of %s does not verify: %v\n%s", want.Version, err, body)
	}
	// It stands alone: its extra is the leaf.
	if alone, err := tlogproof.Verify(p, policy, nil); err != nil || string(alone.Leaf) != string(text) {
		t.Fatalf("the proof without the lookup: %v", err)
	}
	return v
}

func policyOf(t *testing.T, h *harness) tlogproof.Policy {
	t.Helper()
	code, hdr, body := h.raw("/svc/log/policy")
	if code != 200 || hdr.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("the policy: %d %v %s", code, hdr, body)
	}
	p, err := tlogproof.ParsePolicy([]byte(body))
	if err != nil {
		t.Fatalf("the policy does not parse: %v\n%s", err, body)
	}
	return p
}

// TestLogProofAndPolicy: GET /svc/log/proof/{version} answers a C2SP tlog-proof of every
// logged version, which verifies offline under GET /svc/log/policy (against the signed
// checkpoint without witnesses, the cosigned one with them); 404 for an unknown version or a
// draft, 404 not_integrated for a version not yet in that checkpoint, 400 for what is not a
// version; the policy is 503 without a log key.
func TestLogProofAndPolicy(t *testing.T) {
	for _, d := range []string{store.DialectSQLite, store.DialectPostgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			if code, _, body := newHarness(t, d).raw("/svc/log/policy"); code != 503 || !strings.Contains(body, "no transparency log key") {
				t.Fatalf("the policy without a log key: %d %s", code, body)
			}
			lk, vkey := newLogKey(t)
			h := newHarnessWith(t, d, func(c *server.Config) { c.LogVerifierKey = vkey })
			policy := policyOf(t, h)
			if policy.Quorum != tlogproof.None || len(policy.Logs) != 1 || policy.Logs[0].Key != vkey {
				t.Fatalf("the policy of a log without witnesses: %+v", policy)
			}
			key := h.key("owner@example.com")
			id := publish(t, h, key)
			ns := h.must(200, "GET", "/svc/lookup/"+id, "", nil)
			if code, _, body := h.raw("/svc/log/proof/" + ns.data()["version"].(string)); code != 404 || !strings.Contains(body, `"code":"not_integrated"`) {
				t.Fatalf("before integration: %d %s", code, body)
			}
			if _, err := translog.NewIntegrator(h.store, lk, nil, nil).IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}
			v := verifyProofOf(t, h, policy, "namespace", ns)
			if v.Checkpoint.Origin != "localhost:8080/svc/log" || !v.CosignedAt.IsZero() {
				t.Fatalf("verified %+v", v.Checked)
			}
			verifyProofOf(t, h, policy, "registry", h.must(200, "GET", "/svc/lookup/"+id+"/employees", "", nil))
			for _, name := range []string{"alice", "bob"} {
				verifyProofOf(t, h, policy, "record", h.must(200, "GET", "/svc/lookup/"+id+"/employees/"+name, "", nil))
			}
			draft := h.must(200, "GET", "/svc/lookup/"+id+"/employees/carol", key, nil).data()["version"].(string)
			for _, missing := range []string{draft, "0x0190f2a1b2c3d4e5f60718293a4b5c6d"} {
				if code, _, body := h.raw("/svc/log/proof/" + missing); code != 404 || !strings.Contains(body, `"code":"not_found"`) {
					t.Errorf("%s: %d %s", missing, code, body)
				}
			}
			if code, _, body := h.raw("/svc/log/proof/"); code >= 500 || code == 200 {
				t.Errorf("an empty version: %d %s", code, body)
			}
			for _, bad := range []string{"nope", "0x0190", "0X0190F2A1B2C3D4E5F60718293A4B5C6D", "%00"} {
				if code, _, body := h.raw("/svc/log/proof/" + bad); code != 400 || !strings.Contains(body, "invalid_input") {
					t.Errorf("%q: %d %s", bad, code, body)
				}
			}
		})
	}
}

// TestLogProofCosigned: with witnesses, the policy names them and the quorum, and the proof is
// against the latest cosigned checkpoint; a version integrated after it is not_integrated
// until the witnesses cosign a newer one.
func TestLogProofCosigned(t *testing.T) {
	for _, d := range []string{store.DialectSQLite, store.DialectPostgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			lk, vkey := newLogKey(t)
			w1, w2 := witnesstest.New(t, "w1.example", vkey), witnesstest.New(t, "w2.example", vkey)
			h := newHarnessWith(t, d, func(c *server.Config) {
				c.LogVerifierKey, c.LogWitnessKeys, c.LogWitnessQuorum = vkey, []string{w1.VerifierKey, w2.VerifierKey}, 2
			})
			policy := policyOf(t, h)
			if len(policy.Witnesses) != 2 || len(policy.Groups) != 1 || policy.Groups[0].Threshold != 2 || policy.Quorum != policy.Groups[0].Name {
				t.Fatalf("the policy: %+v", policy)
			}
			key := h.key("owner@example.com")
			id := publish(t, h, key)
			g := translog.NewIntegrator(h.store, lk, nil, nil)
			if _, err := g.IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}
			ns := h.must(200, "GET", "/svc/lookup/"+id, "", nil)
			if code, _, body := h.raw("/svc/log/proof/" + ns.data()["version"].(string)); code != 404 || !strings.Contains(body, "none has been cosigned yet") {
				t.Fatalf("before any cosignature: %d %s", code, body)
			}
			wt, err := translog.NewWitnesser(h.store, vkey, []translog.WitnessConfig{{Key: w1.VerifierKey, URL: w1.URL}, {Key: w2.VerifierKey, URL: w2.URL}}, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := wt.WitnessOnce(ctx); err != nil {
				t.Fatal(err)
			}
			v := verifyProofOf(t, h, policy, "namespace", ns)
			if v.CosignedAt.IsZero() || len(v.Witnesses) != 2 {
				t.Fatalf("verified %+v", v.Checked)
			}
			// Under a policy that wants a witness that did not cosign, it is refused.
			w3 := witnesstest.New(t, "w3.example", vkey)
			strict, err := tlogproof.NewPolicy(vkey, []string{w1.VerifierKey, w3.VerifierKey}, 2)
			if err != nil {
				t.Fatal(err)
			}
			_, _, body := h.raw("/svc/log/proof/" + ns.data()["version"].(string))
			p, _ := tlogproof.Parse([]byte(body))
			if _, err := tlogproof.Verify(p, strict, nil); err == nil {
				t.Fatal("a quorum the cosignatures do not meet was accepted")
			}
			// A version integrated after the cosigned checkpoint.
			r := h.must(200, "POST", "/svc/"+id+"/employees/alice/update-record", key, `{"details":{"email":"a@example.org"}}`)
			if _, err := g.IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}
			version := r.data()["version"].(string)
			if code, _, body := h.raw("/svc/log/proof/" + version); code != 404 || !strings.Contains(body, `"code":"not_integrated"`) || !strings.Contains(body, "cosigned") {
				t.Fatalf("after the cosigned checkpoint: %d %s", code, body)
			}
			if _, err := wt.WitnessOnce(ctx); err != nil {
				t.Fatal(err)
			}
			verifyProofOf(t, h, policy, "record", h.must(200, "GET", "/svc/lookup/"+id+"/employees/alice", "", nil))
		})
	}
}
