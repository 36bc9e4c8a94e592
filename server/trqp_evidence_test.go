package server_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
)

// The evidence of a false answer for a revoked record verifies offline (docs/trqp.md, Checking an
// answer): the record version it names recomputes to its digest, and the inclusion proof at
// svc_proof_url puts that version's leaf, with that digest, at svc_log_index in a signed checkpoint.
func TestTRQPEvidenceVerifiesOffline(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			lk, vkey := newLogKey(t)
			h := newHarnessWith(t, d, func(c *server.Config) { c.LogVerifierKey = vkey })
			key := h.key("gov@example.com")
			ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key, `{"name":"Board"}`).data()["namespace_id"].(string)
			h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", key,
				`{"registry_name":"licences","schema":{"type":"object"},"meta":{"trqp":{"authorizations":[{"action":"issue","resource":"lic"}]}}}`)
			h.must(http.StatusCreated, "POST", "/svc/"+ns+"/licences/add-record", key, `{"record_name":"carol","details":{"n":1}}`)
			h.must(http.StatusOK, "POST", "/svc/"+ns+"/licences/carol/revoke-record", key, nil)

			q := trqpQuery("carol", ns, "issue", "lic", time.Time{})
			_, before, _ := h.trqpPost("authorization", q)
			if c := before["context"].(map[string]any); c["svc_log_index"] != nil {
				t.Fatalf("a log index before the version is integrated: %v", c)
			}
			if _, err := translog.NewIntegrator(h.store, lk, nil, nil).IntegrateOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			status, out, raw := h.trqpPost("authorization", q)
			if status != 200 || out["authorized"] != false || out["message"] != "the record is revoked" {
				t.Fatalf("%d %s", status, raw)
			}
			ev := out["context"].(map[string]any)
			version, digest := ev["svc_version"].(string), ev["svc_digest"].(string)
			if ev["svc_entry"] != "record" || ev["svc_proof_url"] != "/svc/log/inclusion/"+version {
				t.Fatalf("evidence %v", ev)
			}
			// The version recomputes to its digest.
			rec := h.must(http.StatusOK, "GET", "/svc/lookup/"+ns+"/licences/carol?version_id="+version, "", nil).data()
			if got, err := proof.Digest(fieldsOf(t, "record", rec)); err != nil || got != digest || rec["state"] != "revoked" {
				t.Fatalf("recomputed %s (%v), evidence %s, state %v", got, err, digest, rec["state"])
			}
			// Its leaf is in the signed tree at the index the answer gave.
			p := h.must(http.StatusOK, "GET", ev["svc_proof_url"].(string), "", nil).Body
			v, err := note.NewVerifier(vkey)
			if err != nil {
				t.Fatal(err)
			}
			n, err := note.Open([]byte(p["checkpoint"].(string)), note.VerifierList(v))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(n.Text, "\n")
			size, _ := strconv.ParseInt(lines[1], 10, 64)
			hash, _ := base64.StdEncoding.DecodeString(lines[2])
			var th tlog.Hash
			copy(th[:], hash)
			idx, _ := strconv.ParseInt(ev["svc_log_index"].(string), 10, 64)
			text := p["leaf"].(string)
			if err := tlog.CheckRecord(tlog.RecordProof(hashesOf(t, p)), size, th, idx, tlog.RecordHash([]byte(text))); err != nil {
				t.Fatalf("inclusion: %v", err)
			}
			l, err := leaf.Parse([]byte(text))
			if err != nil || l.Kind != leaf.KindRecord || l.Version != version || l.Digest != digest {
				t.Fatalf("leaf %+v (%v), evidence %s %s", l, err, version, digest)
			}
		})
	}
}

// An origin-hosted registry whose publisher's file carries meta.trqp answers; while the file is
// stale or withdrawn it answers false with the reason, and true again once it is live.
func TestTRQPOriginHosted(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		ctx := context.Background()
		st := h.store
		nsID := originHosted(t, st, []byte("{}"), "ab12", store.OriginLive, time.Now().Add(time.Hour), nil)
		if _, err := st.UpdateRegistry(ctx, nsID, "keys", "", directory.RegistryPatch{Meta: map[string]any{"trqp": map[string]any{
			"authorizations": []any{map[string]any{"action": "sign", "resource": "receipts"}}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AddRecords(ctx, nsID, "keys", "did:web:localhost%3A8080", []directory.RecordInput{
			{RecordName: "k1", Details: map[string]any{"x": 1.0}}}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			state   string
			yes     bool
			message string
		}{
			{store.OriginLive, true, "listed and live"},
			{store.OriginStale, false, "the registry's publisher file is stale"},
			{store.OriginWithdrawn, false, "the registry's publisher file is withdrawn"},
			{store.OriginLive, true, "listed and live"},
		} {
			now := time.Now().UTC().Truncate(time.Millisecond)
			if err := st.InTx(ctx, func(tx *store.Tx) error {
				return tx.PutDediFile(store.DediFile{Domain: "pub.example", Registry: "keys", URL: "https://pub.example/keys.json", State: tc.state,
					Bytes: []byte("{}"), SHA256: "ab12", Kid: "k1", FetchedAt: now, UpdatedAt: now, NextUpdate: now.Add(time.Hour)})
			}); err != nil {
				t.Fatal(err)
			}
			status, out, raw := h.trqpPost("authorization", trqpQuery("k1", "https://pub.example", "sign", "receipts", time.Time{}))
			if status != 200 || out["authorized"] != tc.yes || out["message"] != tc.message {
				t.Fatalf("file %s: %d %s", tc.state, status, raw)
			}
		}
	})
}
