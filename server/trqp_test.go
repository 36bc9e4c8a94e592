package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/svc-directory/svc/trqp/schemas"
)

// The Trust Registry Query Protocol v2.0 (docs/trqp.md): every answer of the tests is checked
// against TRQP's own four schemas (trqp/schemas, byte-exact copies with provenance).

var (
	trqpSchemaOnce sync.Once
	trqpSchemas    map[string]*jsonschema.Schema
	trqpSchemaErr  error
)

// trqpSchema is the compiled TRQP schema of a kind (authorization, recognition) and side
// (request, response), with formats asserted (date-time).
func trqpSchema(t *testing.T, kind, side string) *jsonschema.Schema {
	t.Helper()
	trqpSchemaOnce.Do(func() {
		trqpSchemas = map[string]*jsonschema.Schema{}
		for _, k := range schemas.Kinds {
			for _, s := range schemas.Sides {
				if trqpSchemas[k+"/"+s], trqpSchemaErr = schemas.Compile(k, s); trqpSchemaErr != nil {
					return
				}
			}
		}
	})
	if trqpSchemaErr != nil {
		t.Fatal(trqpSchemaErr)
	}
	return trqpSchemas[kind+"/"+side]
}

// trqpValid checks a JSON document against a TRQP schema.
func trqpValid(t *testing.T, kind, side string, raw []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s %s is not JSON: %v: %s", kind, side, err, raw)
	}
	if err := trqpSchema(t, kind, side).Validate(v); err != nil {
		t.Fatalf("%s %s does not validate against TRQP's schema: %v\n%s", kind, side, err, raw)
	}
}

// trqpPost sends a TRQP query (body: a string as is, else JSON) and returns status, header and
// body; a 200 is checked against TRQP's response schema, any other status is checked to be a
// Problem Details document.
func (h *harness) trqpPost(kind string, body any) (int, map[string]any, []byte) {
	h.t.Helper()
	raw, ok := body.(string)
	if !ok {
		b, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		raw = string(b)
		trqpValid(h.t, kind, "request", b)
	}
	req := httptest.NewRequest("POST", "/"+kind, strings.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.e.ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		h.t.Fatalf("POST /%s: answer is not a JSON object (%d): %q", kind, rec.Code, rec.Body.Bytes())
	}
	if rec.Code == http.StatusOK {
		trqpValid(h.t, kind, "response", rec.Body.Bytes())
	} else {
		if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
			h.t.Fatalf("POST /%s: %d answered as %q, not application/problem+json: %s", kind, rec.Code, ct, rec.Body.Bytes())
		}
		for _, k := range []string{"type", "title", "detail"} {
			if s, _ := out[k].(string); s == "" {
				h.t.Fatalf("POST /%s: problem document without %s: %s", kind, k, rec.Body.Bytes())
			}
		}
		if st, _ := out["status"].(float64); int(st) != rec.Code {
			h.t.Fatalf("POST /%s: problem status %v, HTTP status %d", kind, out["status"], rec.Code)
		}
	}
	return rec.Code, out, rec.Body.Bytes()
}

// trqpQuery is a query's body.
func trqpQuery(entity, authority, action, resource string, at time.Time) map[string]any {
	q := map[string]any{"entity_id": entity, "authority_id": authority, "action": action, "resource": resource}
	if !at.IsZero() {
		q["context"] = map[string]any{"time": at.UTC().Format(time.RFC3339Nano)}
	}
	return q
}

// trqpEcosystem publishes a namespace with a verified domain and the declared registries of the
// table test, and returns the namespace id and times around the revocation of frank.
type trqpEco struct {
	ns                                string
	beforeFrank, frankLive, afterRevo time.Time
}

func trqpEcosystem(t *testing.T, h *harness, dialect string) trqpEco {
	t.Helper()
	key := h.key("gov@example.com")
	ns := h.must(http.StatusCreated, "POST", "/svc/create-namespace", key,
		`{"name":"Engineers Board","meta":{"trqp":{"governance_framework":"https://board.example/egf"}}}`).data()["namespace_id"].(string)
	if _, err := rawDB(t, dialect, h.dbURL).Exec(`UPDATE namespaces SET domain = $1 WHERE namespace_id = $2`, "board.example", ns); err != nil {
		t.Fatal(err)
	}
	reg := func(name, trqp string) {
		h.must(http.StatusCreated, "POST", "/svc/"+ns+"/create-registry", key,
			`{"registry_name":"`+name+`","schema":{"type":"object"},"meta":{"trqp":`+trqp+`}}`)
	}
	add := func(registry, body string) {
		h.must(http.StatusCreated, "POST", "/svc/"+ns+"/"+registry+"/add-record", key, body)
	}
	act := func(path string) { h.must(http.StatusOK, "POST", "/svc/"+ns+"/"+path, key, nil) }

	reg("licences", `{"authorizations":[{"action":"issue","resource":"engineer-license"}]}`)
	for _, r := range []string{"alice", "bob", "carol"} {
		add("licences", `{"record_name":"`+r+`","details":{}}`)
	}
	add("licences", `{"record_name":"dave","details":{},"valid_till":"`+time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)+`"}`)
	add("licences", `{"record_name":"erin","details":{},"state":"draft"}`)
	act("licences/bob/suspend-record")
	act("licences/carol/revoke-record")
	eco := trqpEco{ns: ns, beforeFrank: time.Now().UTC()}
	time.Sleep(5 * time.Millisecond)
	add("licences", `{"record_name":"frank","details":{}}`)
	time.Sleep(5 * time.Millisecond)
	eco.frankLive = time.Now().UTC()
	time.Sleep(5 * time.Millisecond)
	act("licences/frank/revoke-record")
	time.Sleep(5 * time.Millisecond)
	eco.afterRevo = time.Now().UTC()

	reg("revocations", `{"authorizations":[{"action":"present","resource":"engineer-license"}],"polarity":"negative","entity":"details.did"}`)
	add("revocations", `{"record_name":"r1","details":{"did":"did:example:mallory","status":"revoked"}}`)
	add("revocations", `{"record_name":"r2","details":{"did":"did:example:trent"}}`)
	act("revocations/r2/revoke-record") // the revocation itself withdrawn

	reg("peers", `{"recognitions":[{"action":"govern","resource":"engineer-license"}],"entity":"details.authority_id"}`)
	add("peers", `{"record_name":"acme","details":{"authority_id":"did:web:acme.example"}}`)

	for _, c := range []struct{ name, action string }{{"dormant", "deactivate"}, {"shelved", "archive"}, {"closed", "revoke"}} {
		reg(c.name, `{"authorizations":[{"action":"issue","resource":"`+c.name+`-license"}]}`)
		add(c.name, `{"record_name":"alice","details":{}}`)
		act(c.name + "/" + c.action + "-registry")
	}
	return eco
}

func TestTRQPMapping(t *testing.T) {
	eachDialect(t, func(t *testing.T, h *harness) {
		dialect := strings.TrimPrefix(t.Name(), "TestTRQPMapping/")
		eco := trqpEcosystem(t, h, dialect)
		ns := eco.ns
		const lic = "engineer-license"
		var zero time.Time
		for _, tc := range []struct {
			name, kind, entity, authority, action, resource string
			at                                              time.Time
			status                                          int
			yes                                             bool
			message                                         string
		}{
			{"live", "authorization", "alice", ns, "issue", lic, zero, 200, true, "listed and live"},
			{"https authority", "authorization", "alice", "https://board.example", "issue", lic, zero, 200, true, "listed and live"},
			{"did:web authority", "authorization", "alice", "did:web:board.example", "issue", lic, zero, 200, true, "listed and live"},
			{"suspended", "authorization", "bob", ns, "issue", lic, zero, 200, false, "the record is suspended"},
			{"revoked", "authorization", "carol", ns, "issue", lic, zero, 200, false, "the record is revoked"},
			{"valid_till past", "authorization", "dave", ns, "issue", lic, zero, 200, false, "the record is expired"},
			{"draft is unknown", "authorization", "erin", ns, "issue", lic, zero, 200, false, "not listed"},
			{"unknown entity", "authorization", "zed", ns, "issue", lic, zero, 200, false, "not listed"},
			{"before the record", "authorization", "frank", ns, "issue", lic, eco.beforeFrank, 200, false, "not listed"},
			{"before the revocation", "authorization", "frank", ns, "issue", lic, eco.frankLive, 200, true, "listed and live"},
			{"after the revocation", "authorization", "frank", ns, "issue", lic, eco.afterRevo, 200, false, "the record is revoked"},
			{"negative: listed", "authorization", "did:example:mallory", ns, "present", lic, zero, 200, false, "listed as revoked"},
			{"negative: listing revoked", "authorization", "did:example:trent", ns, "present", lic, zero, 200, true, "the listing is revoked"},
			{"negative: not listed", "authorization", "did:example:peggy", ns, "present", lic, zero, 200, true, "not listed"},
			{"inactive registry", "authorization", "alice", ns, "issue", "dormant-license", zero, 200, false, "the registry is inactive"},
			{"archived registry", "authorization", "alice", ns, "issue", "shelved-license", zero, 200, false, "the registry is archived"},
			{"revoked registry", "authorization", "alice", ns, "issue", "closed-license", zero, 200, false, "the registry is revoked"},
			{"recognized", "recognition", "did:web:acme.example", ns, "govern", lic, zero, 200, true, "listed and live"},
			{"not recognized", "recognition", "did:web:other.example", ns, "govern", lic, zero, 200, false, "not listed"},
			{"recognition pair is not an authorization", "authorization", "alice", ns, "govern", lic, zero, 404, false, "Unknown action"},
			{"unknown authority", "authorization", "alice", "did:web:nobody.example", "issue", lic, zero, 404, false, "Unknown authority"},
			{"unknown authority form", "authorization", "alice", "urn:x:y", "issue", lic, zero, 404, false, "Unknown authority"},
			{"unknown action", "authorization", "alice", ns, "revoke", lic, zero, 404, false, "Unknown action"},
			{"unknown resource", "authorization", "alice", ns, "issue", "pilot-license", zero, 404, false, "Unknown resource"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				status, out, raw := h.trqpPost(tc.kind, trqpQuery(tc.entity, tc.authority, tc.action, tc.resource, tc.at))
				if status != tc.status {
					t.Fatalf("status %d, want %d: %s", status, tc.status, raw)
				}
				if status != 200 {
					if d, _ := out["detail"].(string); !strings.HasPrefix(d, tc.message) {
						t.Fatalf("detail %q, want %q...", d, tc.message)
					}
					return
				}
				flag := "authorized"
				if tc.kind == "recognition" {
					flag = "recognized"
				}
				if out[flag] != tc.yes || out["message"] != tc.message {
					t.Fatalf("%s %v (%v), want %v (%s)", flag, out[flag], out["message"], tc.yes, tc.message)
				}
				ctx, _ := out["context"].(map[string]any)
				for _, k := range []string{"svc_entry", "svc_version", "svc_digest", "svc_lookup_url", "svc_proof_url", "svc_state_url"} {
					if s, _ := ctx[k].(string); s == "" {
						t.Fatalf("context.%s missing: %s", k, raw)
					}
				}
				wantEntry := "record"
				if strings.HasPrefix(tc.message, "not listed") || strings.HasPrefix(tc.message, "the registry") {
					wantEntry = "registry"
				}
				if ctx["svc_entry"] != wantEntry {
					t.Fatalf("svc_entry %v, want %s: %s", ctx["svc_entry"], wantEntry, raw)
				}
				// The lookup names the version that decided; the state proof is of that entry's id,
				// or, for an entity a registry matching by record name does not list, of the name.
				data := h.must(http.StatusOK, "GET", ctx["svc_lookup_url"].(string), "", nil).data()
				if data["version"] != ctx["svc_version"] || data["proof"].(map[string]any)["digest"] != ctx["svc_digest"] {
					t.Fatalf("svc_lookup_url %v is not the version %v (%v): %v", ctx["svc_lookup_url"], ctx["svc_version"], ctx["svc_digest"], data)
				}
				if ctx["svc_proof_url"] != "/svc/log/inclusion/"+ctx["svc_version"].(string) {
					t.Fatalf("svc_proof_url %v", ctx["svc_proof_url"])
				}
				wantState := "/svc/log/state/" + data[wantEntry+"_id"].(string)
				if tc.message == "not listed" && tc.resource == lic && tc.action == "issue" { // licences: by record name
					wantState = "/svc/log/state/" + ns + "/licences/" + tc.entity
				}
				if ctx["svc_state_url"] != wantState {
					t.Fatalf("svc_state_url %v, want %s", ctx["svc_state_url"], wantState)
				}
				if !tc.at.IsZero() && out["time_requested"] == nil {
					t.Fatalf("no time_requested: %s", raw)
				}
			})
		}
	})
}
