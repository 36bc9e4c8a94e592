package server_test

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/proof"
)

// digestFields are the digest fields of each kind, from their one list in proof.
var digestFields = map[string][]string{
	"namespace": proof.FieldNames(proof.KindNamespace),
	"registry":  proof.FieldNames(proof.KindRegistry),
	"record":    proof.FieldNames(proof.KindRecord),
}

// fieldsOf builds the digest-field object of a lookup's data, as an integrator would.
func fieldsOf(t *testing.T, kind string, data map[string]any) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, f := range digestFields[kind] {
		v, ok := data[f]
		if !ok {
			t.Fatalf("%s lookup lacks digest field %s", kind, f)
		}
		out[f] = v
	}
	if kind == "namespace" {
		if out["state"] == "live" {
			delete(out, "state") // a namespace's state is a digest field only when not live
		}
		g := out["genesis"].(string)
		b, err := hex.DecodeString(strings.TrimPrefix(g, "0x"))
		if err != nil || !strings.HasPrefix(g, "0x") {
			t.Fatalf("namespace genesis %q is not the hex form", g)
		}
		out["genesis"] = string(b)
	}
	return out
}

const recordSchema = `{"type":"object","properties":{"email":{"type":"string","format":"email"},"name":{"type":"object","properties":{"first":{"type":"string"}}},"tags":{"type":"array","items":{"type":"string"}}},"required":["email"]}`

// publish creates a namespace, a registry and records, returning the namespace id.
func publish(t *testing.T, h *harness, key string) string {
	t.Helper()
	ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key,
		`{"name":"Acme","description":"Acme <Corp> & \"friends\" \u2028 😀","meta":{"n":1.5,"big":1e21}}`)
	id := ns.data()["namespace_id"].(string)
	h.must(http.StatusCreated, "POST", "/svc/"+id+"/create-registry", key,
		`{"registry_name":"employees","description":"staff","schema":`+recordSchema+`,"meta":{"k":"v"},"ttl":300}`)
	h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-record", key,
		`{"record_name":"alice","description":"Alice","details":{"email":"alice@example.com","name":{"first":"Alice"},"tags":["a","ü"]},"meta":{"src":"hr"}}`)
	h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-records", key,
		`{"records":[{"record_name":"bob","details":{"email":"bob@example.com"}},{"record_name":"carol","details":{"email":"carol@example.com"},"state":"draft"}]}`)
	return id
}

func TestPublishAndLookupDigestsMatchTheReference(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		id := publish(t, h, key)
		nsR := h.must(http.StatusOK, "GET", "/svc/lookup/"+id, "", nil)
		regR := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees", "", nil)
		var objs []map[string]any
		var want []string
		var kinds []string
		add := func(kind string, r resp) {
			objs = append(objs, fieldsOf(t, kind, r.data()))
			p := r.data()["proof"].(map[string]any)
			want = append(want, p["digest"].(string))
			kinds = append(kinds, kind)
			if r.data()["digest"] != p["digest"] {
				t.Fatalf("%s: digest %v differs from proof.digest %v", kind, r.data()["digest"], p["digest"])
			}
			if et := r.Header.Get("ETag"); et != `"`+p["digest"].(string)+`"` {
				t.Fatalf("%s: ETag %q", kind, et)
			}
		}
		add("namespace", nsR)
		add("registry", regR)
		for _, name := range []string{"alice", "bob", "carol"} { // carol, a draft, is the owner's to see
			add("record", h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/"+name, key, nil))
		}
		got := referenceDigests(t, objs)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s %d: service digest %s, JavaScript reference %s over %v", kinds[i], i, want[i], got[i], objs[i])
			}
		}

		// Fields of the lookup forms.
		ns := nsR.data()
		if ns["is_verified"] != false || ns["domain"] != nil || ns["registry_count"] != 1.0 || ns["ttl"] != 600.0 {
			t.Fatalf("namespace lookup: %v", ns)
		}
		p := ns["proof"].(map[string]any)
		if p["type"] != fmt.Sprintf("SvcNamespaceProof%d", time.Now().UTC().Year()) || p["namespace_did"] != id ||
			!strings.HasPrefix(p["creator_did"].(string), "did:web:localhost%3A8080:") || len(p["network_genesis"].(string)) != 66 {
			t.Fatalf("namespace proof: %v", p)
		}
		reg := regR.data()
		if reg["namespace"] != "Acme" || reg["record_count"] != 2.0 || reg["state"] != "live" || reg["query_allowed"] != true { // the draft is not counted
			t.Fatalf("registry lookup: %v", reg)
		}
		rec := h.must(http.StatusOK, "GET", "/svc/lookup/"+id+"/employees/carol", key, nil).data()
		rp := rec["proof"].(map[string]any)
		if rec["state"] != "draft" || rec["registry_state"] != "live" || rp["record_identifier"] != rec["record_id"] ||
			rp["registry_identifier"] != rec["registry_id"] || rec["schema"].(map[string]any)["type"] != "object" {
			t.Fatalf("record lookup: %v", rec)
		}
		if g := rec["genesis"].(string); !strings.HasSuffix(g, "Z") || len(g) != len("2026-11-22T08:00:00.000Z") {
			t.Fatalf("genesis %q is not in toISOString form", g)
		}
	})
}

func TestVersionsVersionIDAndAsOn(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		key := h.key("owner@example.com")
		id := publish(t, h, key)
		base := "/svc/lookup/" + id + "/employees/alice"
		v1 := h.must(http.StatusOK, "GET", base, "", nil).data()
		v2 := h.must(http.StatusOK, "POST", "/svc/"+id+"/employees/alice/update-record", key,
			`{"details":{"email":"alice@new.example.com"}}`, "If-Match", `"`+v1["version"].(string)+`"`).data()
		if v2["version_count"] != 2.0 || v2["version"] == v1["version"] || v2["digest"] == v1["digest"] {
			t.Fatalf("update: %v", v2)
		}
		// The lookup just before the update was cached; the update must have emptied the cache.
		if now := h.must(http.StatusOK, "GET", base, "", nil).data(); now["version"] != v2["version"] {
			t.Fatalf("lookup after the update shows %v, want %v", now["version"], v2["version"])
		}
		// Stale If-Match: 412, nothing written.
		h.must(http.StatusPreconditionFailed, "POST", "/svc/"+id+"/employees/alice/update-record", key,
			`{"description":"x"}`, "If-Match", `"`+v1["version"].(string)+`"`)
		vs := h.must(http.StatusOK, "GET", "/svc/versions/"+id+"/employees/alice", "", nil).data()
		list := vs["versions"].([]any)
		if vs["total_versions"] != 2.0 || list[0] != v2["version"] || list[1] != v1["version"] || vs["record_name"] != "alice" {
			t.Fatalf("versions: %v", vs)
		}
		old := h.must(http.StatusOK, "GET", base+"?version_id="+v1["version"].(string), "", nil).data()
		if old["digest"] != v1["digest"] || old["details"].(map[string]any)["email"] != "alice@example.com" {
			t.Fatalf("version_id lookup: %v", old)
		}
		today := time.Now().UTC().Format(time.DateOnly)
		if got := h.must(http.StatusOK, "GET", base+"?as_on="+today, "", nil).data(); got["version"] != v2["version"] {
			t.Fatalf("as_on today: %v", got["version"])
		}
		r := h.must(http.StatusNotFound, "GET", base+"?as_on=2020-01-01", "", nil)
		if !strings.Contains(r.msg(), "did not exist") {
			t.Fatalf("as_on before creation: %s", r.msg())
		}
		r = h.must(http.StatusNotFound, "GET", base+"?version_id=0x"+strings.Repeat("0", 32), "", nil)
		if !strings.Contains(r.msg(), "Version") {
			t.Fatalf("unknown version: %s", r.msg())
		}
		h.must(http.StatusBadRequest, "GET", base+"?version_id="+v1["version"].(string)+"&as_on="+today, "", nil)
		for _, p := range []string{"/svc/versions/" + id, "/svc/versions/" + id + "/employees"} {
			d := h.must(http.StatusOK, "GET", p, "", nil).data()
			if d["total_versions"] != 1.0 || len(d["versions"].([]any)) != 1 {
				t.Fatalf("%s: %v", p, d)
			}
		}
		// ETag: a matching If-None-Match is 304.
		et := h.must(http.StatusOK, "GET", base, "", nil).Header.Get("ETag")
		h.must(http.StatusNotModified, "GET", base, "", nil, "If-None-Match", et)
		if cc := h.must(http.StatusOK, "GET", base, "", nil).Header.Get("Cache-Control"); cc != "public, max-age=600" {
			t.Fatalf("Cache-Control %q", cc)
		}
	})
}

func TestAuthorization(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		owner := h.key("owner@example.com")
		other := h.key("other@example.com")
		id := publish(t, h, owner)
		body := `{"record_name":"dave","details":{"email":"d@example.com"}}`
		path := "/svc/" + id + "/employees/add-record"
		if r := h.must(http.StatusUnauthorized, "POST", path, "", body); r.msg() != "Unauthorized: Invalid or missing authentication token" {
			t.Fatalf("no key: %s", r.msg())
		}
		h.must(http.StatusUnauthorized, "POST", path, "svc_"+strings.Repeat("x", 43), body)
		h.must(http.StatusForbidden, "POST", path, other, body)
		h.must(http.StatusForbidden, "POST", "/svc/"+id+"/add-delegate", other, `{"email":"x@example.com"}`)
		d := h.must(http.StatusOK, "POST", "/svc/"+id+"/add-delegate", owner, `{"email":"Other@Example.com"}`).data()
		if len(d["delegates"].([]any)) != 2 {
			t.Fatalf("delegates: %v", d)
		}
		h.must(http.StatusCreated, "POST", path, other, body)
		// A delegate may not manage delegates.
		h.must(http.StatusForbidden, "POST", "/svc/"+id+"/remove-delegate", other, `{"email":"owner@example.com"}`)
		h.must(http.StatusConflict, "POST", "/svc/"+id+"/remove-delegate", owner, `{"email":"owner@example.com"}`)
		h.must(http.StatusOK, "POST", "/svc/"+id+"/remove-delegate", owner, `{"email":"other@example.com"}`)
		h.must(http.StatusForbidden, "POST", path, other, `{"record_name":"erin","details":{"email":"e@example.com"}}`)
		h.must(http.StatusOK, "GET", "/svc/"+id+"/get-delegates", owner, nil)
		h.must(http.StatusForbidden, "GET", "/svc/"+id+"/get-delegates", other, nil)
		// Optional-auth reads: anonymous works; a bad key is refused.
		h.must(http.StatusOK, "GET", "/svc/lookup/"+id, "", nil)
		h.must(http.StatusOK, "GET", "/svc/lookup/"+id, other, nil)
		if r := h.must(http.StatusUnauthorized, "GET", "/svc/lookup/"+id, "not-a-key", nil); r.msg() != "Unauthorized: Invalid or missing authentication token" {
			t.Fatalf("bad key on a read: %s", r.msg())
		}
	})
}
