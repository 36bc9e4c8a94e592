package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/svc-directory/svc/proof"
)

// clone deep-copies a decoded JSON object.
func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// redigest makes tampered data self-consistent: it recomputes the digest the way a forger
// would and writes it into data.digest and proof.digest.
func redigest(t *testing.T, kind string, data map[string]any) {
	t.Helper()
	d, err := proof.Digest(fieldsOf(t, kind, data))
	if err != nil {
		t.Fatal(err)
	}
	data["digest"] = d
	data["proof"].(map[string]any)["digest"] = d
}

func TestVerifyRoundTripTamperAndForgery(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner := h.key("owner@example.com")
		verifier := h.key("verifier@example.com")
		id := publish(t, h, owner)
		lookups := map[string]string{
			"namespace": "/svc/lookup/" + id,
			"registry":  "/svc/lookup/" + id + "/employees",
			"record":    "/svc/lookup/" + id + "/employees/alice",
		}
		send := func(kind string, data map[string]any) resp {
			body := map[string]any{kind + "_lookup_response": map[string]any{"message": "found", "data": data}}
			return h.do("POST", "/svc/verify-"+kind+"-lookup", verifier, body)
		}
		for kind, path := range lookups {
			t.Run(kind, func(t *testing.T) {
				data := h.must(http.StatusOK, "GET", path, "", nil).data()
				if r := send(kind, data); r.Status != 200 || r.msg() != "Verification successful" {
					t.Fatalf("untouched lookup: %d %s", r.Status, r.msg())
				}
				// Tampering with any single digest field fails.
				for _, f := range digestFields[kind] {
					bad := clone(data)
					switch v := bad[f].(type) {
					case string:
						bad[f] = v + "x"
					case float64:
						bad[f] = v + 1
					case map[string]any:
						v["tampered"] = true
					}
					if r := send(kind, bad); r.Status != 400 || r.msg() != "Verification failed" {
						t.Fatalf("tampered %s: %d %s", f, r.Status, r.msg())
					}
				}
				// A forger who also recomputes the digest still fails: the directory never stored it.
				forged := clone(data)
				forged["description"] = "forged"
				redigest(t, kind, forged)
				if r := send(kind, forged); r.Status != 400 {
					t.Fatalf("self-consistent forgery verified: %d", r.Status)
				}
				// A version that never was.
				never := clone(data)
				never["version"] = "0x0190f2a1b2c3d4e5f60718293a4b5c6d"
				redigest(t, kind, never)
				if r := send(kind, never); r.Status != 400 {
					t.Fatal("a never-existing version verified")
				}
				// The wrong kind of proof.
				wrong := clone(data)
				wrong["proof"].(map[string]any)["type"] = "SvcThingProof2026"
				if r := send(kind, wrong); r.Status != 400 {
					t.Fatal("a malformed proof type verified")
				}
				other := map[string]string{"namespace": "SvcRecordProof2026", "registry": "SvcNamespaceProof2026", "record": "SvcRegistryProof2026"}[kind]
				wrong["proof"].(map[string]any)["type"] = other
				if r := send(kind, wrong); r.Status != 400 {
					t.Fatal("a proof of another kind verified")
				}
				// Foreign network.
				foreign := clone(data)
				foreign["proof"].(map[string]any)["network_genesis"] = "0x" + fmt.Sprintf("%064d", 7)
				if r := send(kind, foreign); r.Status != 400 {
					t.Fatal("a proof of another network verified")
				}
				// Wrong types and missing pieces: 400, never 500.
				for _, mutate := range []func(map[string]any){
					func(m map[string]any) { delete(m, "proof") },
					func(m map[string]any) { m["proof"] = "x" },
					func(m map[string]any) { m["version_count"] = "1" },
					func(m map[string]any) { m["version_count"] = 1.5 },
					func(m map[string]any) { m["namespace_id"] = 12 },
					func(m map[string]any) { m["genesis"] = "0xzz" },
				} {
					bad := clone(data)
					mutate(bad)
					if r := send(kind, bad); r.Status != 400 {
						t.Fatalf("malformed data: %d %s", r.Status, r.Raw)
					}
				}
			})
		}

		// Namespace genesis is accepted in either form.
		ns := h.must(http.StatusOK, "GET", lookups["namespace"], "", nil).data()
		g, _ := proof.GenesisFromEither(ns["genesis"].(string))
		ns["genesis"] = g
		if r := send("namespace", ns); r.Status != 200 {
			t.Fatalf("namespace with the plain genesis: %d", r.Status)
		}

		// An older version that did exist still verifies.
		old := h.must(http.StatusOK, "GET", lookups["record"], "", nil).data()
		h.must(http.StatusOK, "POST", "/svc/"+id+"/employees/alice/update-record", owner, `{"description":"changed"}`)
		if r := send("record", old); r.Status != 200 {
			t.Fatalf("an earlier real version: %d", r.Status)
		}
		// A lookup of one entry relabeled as another entry fails.
		bob := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/bob", "", nil).data()
		bob["record_id"] = old["record_id"]
		bob["proof"].(map[string]any)["record_identifier"] = old["record_id"]
		if r := send("record", bob); r.Status != 400 {
			t.Fatal("a foreign entry's data verified under another id")
		}
	})
}

func TestVerifyAuthInputAndLogs(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner := h.key("owner@example.com")
		v1 := h.key("v1@example.com")
		v2 := h.key("v2@example.com")
		id := publish(t, h, owner)
		data := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/alice", "", nil).data()
		body := map[string]any{"record_lookup_response": map[string]any{"message": "m", "data": data}}
		if r := h.must(401, "POST", "/svc/verify-record-lookup", "", body); r.msg() != "Authentication failed" {
			t.Fatal(r.msg())
		}
		if r := h.must(401, "POST", "/svc/verify-record-lookup", "svc_nope", body); r.msg() != "Authentication failed" {
			t.Fatal(r.msg())
		}
		for _, tc := range []struct {
			name, body, msg string
		}{
			{"empty body", ``, "Invalid input: record_lookup_response is missing"},
			{"no wrapper", `{}`, "Invalid input: record_lookup_response is missing"},
			{"wrong wrapper", `{"namespace_lookup_response":{"data":{}}}`, "Invalid input: record_lookup_response is missing"},
			{"no data", `{"record_lookup_response":{"message":"x"}}`, "Invalid input: record_lookup_response.data is missing"},
			{"data not an object", `{"record_lookup_response":{"data":[1]}}`, "Invalid input: record_lookup_response.data"},
			{"not JSON", `{"record_lookup_response":`, "Invalid input"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var b any
				if tc.body != "" {
					b = tc.body
				}
				r := h.do("POST", "/svc/verify-record-lookup", v1, b)
				if r.Status != 400 || len(r.msg()) < len(tc.msg) || r.msg()[:len(tc.msg)] != tc.msg {
					t.Fatalf("%d %q, want 400 %q", r.Status, r.msg(), tc.msg)
				}
			})
		}
		h.must(200, "POST", "/svc/verify-record-lookup", v1, body)
		bad := clone(data)
		bad["details"] = "not an object"
		h.must(400, "POST", "/svc/verify-record-lookup", v1, map[string]any{"record_lookup_response": map[string]any{"data": bad}})
		h.must(200, "POST", "/svc/verify-record-lookup", v2, body)

		logs := "/svc/" + id + "/employees/alice/get-record-verification-logs"
		h.must(401, "GET", logs, "", nil)
		all := h.must(200, "GET", logs, owner, nil).data()
		if all["verification_count"] != 3.0 {
			t.Fatalf("the owner sees %v attempts, want 3", all["verification_count"])
		}
		entries := all["logs"].([]any)
		newest := entries[0].(map[string]any)
		if newest["result"] != "success" || newest["lookup_type"] != "record" || newest["verified_id"] != data["record_id"] {
			t.Fatalf("newest log entry: %v", newest)
		}
		if entries[1].(map[string]any)["result"] != "failed" {
			t.Fatalf("the failed attempt is not logged as failed: %v", entries[1])
		}
		req := newest["request"].(map[string]any)
		if req["message"] != "m" || req["data"].(map[string]any)["record_id"] != data["record_id"] {
			t.Fatalf("logged request: %v", req)
		}
		mine := h.must(200, "GET", logs, v1, nil).data()
		if mine["verification_count"] != 2.0 {
			t.Fatalf("v1 sees %v attempts, want its own 2", mine["verification_count"])
		}
		page := h.must(200, "GET", logs+"?page=2&page_size=2", owner, nil).data()
		if len(page["logs"].([]any)) != 1 || page["page"] != 2.0 {
			t.Fatalf("page 2: %v", page)
		}
		h.must(404, "GET", "/svc/"+id+"/employees/nobody/get-record-verification-logs", owner, nil)
		h.must(200, "GET", "/svc/"+id+"/get-namespace-verification-logs", owner, nil)
		h.must(200, "GET", "/svc/"+id+"/employees/get-registry-verification-logs", owner, nil)

		// A disabled user: 404 User not found.
		if err := h.store.SetUserDisabled(context.Background(), "v2@example.com", true); err != nil {
			t.Fatal(err)
		}
		if r := h.must(404, "POST", "/svc/verify-record-lookup", v2, body); r.msg() != "User not found" {
			t.Fatal(r.msg())
		}
	})
}
