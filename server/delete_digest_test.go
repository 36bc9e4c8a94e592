package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/translog"
)

// preStateFields are a namespace's digest fields as they were before its state joined them
// when not live: what every live namespace version was digested over, and still is.
var preStateFields = []string{"namespace_id", "description", "genesis", "created_by", "version", "version_count"}

// namespaceDigestOver digests a namespace lookup's data over the named fields (genesis turned
// back into its timestamp), as a verifier that picks those fields would.
func namespaceDigestOver(t *testing.T, data map[string]any, fields ...string) string {
	t.Helper()
	obj := map[string]any{}
	for _, f := range fields {
		v, ok := data[f]
		if !ok {
			t.Fatalf("the namespace lookup lacks %s: %v", f, data)
		}
		obj[f] = v
	}
	g, err := proof.GenesisFromEither(obj["genesis"].(string))
	if err != nil {
		t.Fatal(err)
	}
	obj["genesis"] = g
	d, err := proof.Digest(obj)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A namespace's tombstone digests its state: read by version_id, its digest recomputes with
// state deleted and would not without it, the verifiers (the service's, proof.CheckLookup, the
// log's leaf) hold it, and it cannot be shown as live. Live versions, before the delete and
// after the restore, digest exactly as before: over the fields without state.
func TestNamespaceTombstoneDigestCoversItsState(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			lk, vkey := newLogKey(t)
			h := newHarnessWith(t, d, func(c *server.Config) { c.LogVerifierKey = vkey })
			owner, verifier := h.key("owner@example.com"), h.key("verifier@example.com")
			id := publish(t, h, owner)
			verify := func(data map[string]any) int {
				t.Helper()
				body := map[string]any{"namespace_lookup_response": map[string]any{"message": "found", "data": data}}
				return h.do("POST", "/svc/verify-namespace-lookup", verifier, body).Status
			}

			live := h.must(http.StatusOK, "GET", "/svc/lookup/"+id, "", nil).data()
			if live["state"] != "live" {
				t.Fatalf("a new namespace's state: %v", live["state"])
			}
			if got := namespaceDigestOver(t, live, preStateFields...); got != live["digest"] {
				t.Fatalf("a live namespace's digest %v is not the digest over its fields without state %s", live["digest"], got)
			}

			n := h.must(http.StatusOK, "DELETE", "/svc/"+id+"/delete-namespace", owner, `{"reason":"closing"}`).data()
			tombV := n["namespace"].(map[string]any)["version"].(string)
			tomb := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"?version_id="+tombV, "", nil).data()
			if tomb["state"] != "deleted" || tomb["digest"] != n["namespace"].(map[string]any)["digest"] {
				t.Fatalf("the tombstone by version_id: %v", tomb)
			}
			withState := namespaceDigestOver(t, tomb, append(preStateFields, "state")...)
			withoutState := namespaceDigestOver(t, tomb, preStateFields...)
			if withState != tomb["digest"] {
				t.Fatalf("the tombstone's digest %v does not recompute with state deleted (%s)", tomb["digest"], withState)
			}
			if withoutState == tomb["digest"] {
				t.Fatal("the tombstone's digest recomputes without its state")
			}
			if got, err := proof.RecomputeDigest(proof.KindNamespace, tomb); err != nil || got != tomb["digest"] {
				t.Fatalf("proof.RecomputeDigest of the tombstone: %s, %v", got, err)
			}
			if s := verify(tomb); s != http.StatusOK {
				t.Fatalf("verify-namespace-lookup of the tombstone: %d", s)
			}
			// Shown as live (or without its state), the tombstone fails every check.
			for _, state := range []any{"live", nil} {
				bad := clone(tomb)
				if state == nil {
					delete(bad, "state")
				} else {
					bad["state"] = state
				}
				if err := proof.CheckLookup(proof.KindNamespace, bad, 9999); err == nil {
					t.Fatalf("the tombstone with state %v verifies offline", state)
				}
				if s := verify(bad); s != http.StatusBadRequest {
					t.Fatalf("verify-namespace-lookup of the tombstone with state %v: %d", state, s)
				}
			}

			// The log's leaf of the tombstone holds that digest.
			if _, err := translog.NewIntegrator(h.store, lk, nil, nil).IntegrateOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			var leaf map[string]any
			inc := h.must(http.StatusOK, "GET", "/svc/log/inclusion/"+tombV, "", nil)
			if err := json.Unmarshal([]byte(inc.Body["leaf"].(string)), &leaf); err != nil || leaf["digest"] != withState {
				t.Fatalf("the tombstone's leaf %v (%v), want digest %s", inc.Body["leaf"], err, withState)
			}

			// The live version before the delete keeps its stored digest.
			before := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"?version_id="+live["version"].(string), "", nil).data()
			if before["digest"] != live["digest"] || verify(before) != http.StatusOK {
				t.Fatalf("the version before the delete: %v", before)
			}

			// The restore is a live version like any other: no state in its digest.
			h.must(http.StatusOK, "POST", "/svc/restore/namespace", owner, `{"namespace_id":"`+id+`"}`)
			back := h.must(http.StatusOK, "GET", "/svc/lookup/"+id, "", nil).data()
			if back["state"] != "live" || back["version_count"] != tomb["version_count"].(float64)+1 {
				t.Fatalf("the restored namespace: %v", back)
			}
			if got := namespaceDigestOver(t, back, preStateFields...); got != back["digest"] {
				t.Fatalf("the restored namespace's digest %v is not the digest over its fields without state %s", back["digest"], got)
			}
			if namespaceDigestOver(t, back, append(preStateFields, "state")...) == back["digest"] {
				t.Fatal("the restored namespace's digest covers state live")
			}
			if s := verify(back); s != http.StatusOK {
				t.Fatalf("verify-namespace-lookup of the restored namespace: %d", s)
			}
		})
	}
}
