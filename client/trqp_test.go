package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/client"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/stateindex"
)

// trqpService is a service with a transparency log, its state index and a published TRQP
// ecosystem (docs/trqp.md's worked examples): the namespace "Board" with a membership registry
// "licences" (matched by record name: alice live, bob suspended, carol revoked, frank revoked
// after liveAt) and a revocation registry "revocations" (negative, matched by details.did:
// mallory listed), each record's versions integrated and in the served state index.
type trqpService struct {
	URL, LogKey, NS string
	liveAt          time.Time // frank was live then
	bobLive         map[string]string
}

func startTRQPService(t *testing.T) trqpService {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "svc.db"), logger, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	apiKey, _, err := st.CreateAPIKey(ctx, "board@example.com")
	if err != nil {
		t.Fatal(err)
	}
	skey, vkey, err := translog.GenerateKey("trqp.test/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	states := translog.NewStateServer(translog.NewReader(st), st, nil, logger)
	srv, err := server.NewServer(server.Config{Store: st, Logger: logger, DIDHost: "localhost%3A8080", LogVerifierKey: vkey, LogState: states})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Echo())
	t.Cleanup(hs.Close)
	s := trqpService{URL: hs.URL, LogKey: vkey}

	call := func(path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("POST", hs.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+apiKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		if res.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %s", path, res.StatusCode, raw)
		}
		var out struct {
			Data map[string]any `json:"data"`
		}
		_ = json.Unmarshal(raw, &out)
		return out.Data
	}
	s.NS = call("/svc/create-namespace", `{"name":"Board","meta":{"trqp":{"governance_framework":"https://board.example/egf"}}}`)["namespace_id"].(string)
	p := "/svc/" + s.NS
	call(p+"/create-registry", `{"registry_name":"licences","schema":{"type":"object"},
		"meta":{"trqp":{"authorizations":[{"action":"issue","resource":"engineer-license"}]}}}`)
	call(p+"/create-registry", `{"registry_name":"revocations","schema":{"type":"object"},
		"meta":{"trqp":{"authorizations":[{"action":"present","resource":"engineer-license"}],"polarity":"negative","entity":"details.did"}}}`)
	for _, r := range []string{"alice", "bob", "carol", "frank"} {
		data := call(p+"/licences/add-record", `{"record_name":"`+r+`","details":{"licence":"`+r+`-1"}}`)
		if r == "bob" {
			s.bobLive = map[string]string{"version": data["version"].(string), "digest": data["proof"].(map[string]any)["digest"].(string)}
		}
	}
	call(p+"/revocations/add-record", `{"record_name":"r-2026-001","details":{"did":"did:example:mallory"}}`)
	call(p+"/licences/bob/suspend-record", "")
	call(p+"/licences/carol/revoke-record", "")
	time.Sleep(5 * time.Millisecond)
	s.liveAt = time.Now().UTC()
	time.Sleep(5 * time.Millisecond)
	call(p+"/licences/frank/revoke-record", "")

	// Integrate every version, end the log with a state leaf, and serve its index.
	g := translog.NewIntegrator(st, lk, logger, nil).WithStateIndex()
	for i := 0; i < 20; i++ {
		if _, err := g.IntegrateOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if err := states.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := states.Query(ctx, stateindex.IDKey(s.NS)); err != nil {
		t.Fatalf("the state index is not served: %v", err)
	}
	return s
}

func (s trqpService) helper() *client.TRQP { return &client.TRQP{BaseURL: s.URL, LogKey: s.LogKey} }

func (s trqpService) query(entity, action string) client.TRQPQuery {
	return client.TRQPQuery{EntityID: entity, AuthorityID: s.NS, Action: action, Resource: "engineer-license"}
}

// TestTRQPHelper asks the membership and the revocation registry through client.TRQP: each
// answer validates against TRQP's schemas, and its evidence verifies (the version's digest
// recomputed, its inclusion under the log's key, its state proof current), including the false
// of a revoked record.
func TestTRQPHelper(t *testing.T) {
	s := startTRQPService(t)
	ctx := context.Background()
	h := s.helper()
	for _, c := range []struct {
		entity, action string
		yes            bool
		message, entry string
	}{
		{"alice", "issue", true, "listed and live", "record"},
		{"bob", "issue", false, "the record is suspended", "record"},
		{"carol", "issue", false, "the record is revoked", "record"},
		{"did:example:mallory", "present", false, "listed as revoked", "record"},
		{"did:example:peggy", "present", true, "not listed", "registry"}, // a details match: the registry's state proof
	} {
		a, err := h.Authorization(ctx, s.query(c.entity, c.action))
		if err != nil {
			t.Fatalf("%s: %v", c.entity, err)
		}
		if a.Yes != c.yes || a.Message != c.message || a.Evidence == nil || a.Evidence.Entry != c.entry ||
			a.Evidence.State.Outcome != stateindex.Current || a.Evidence.Lookup["version"] != a.Evidence.Version {
			t.Fatalf("%s: %+v %+v", c.entity, a, a.Evidence)
		}
	}
	// A question about the past: frank was live then; his version then is superseded now.
	q := s.query("frank", "issue")
	q.Context = map[string]string{"time": s.liveAt.Format(time.RFC3339Nano)}
	a, err := h.Authorization(ctx, q)
	if err != nil || !a.Yes || a.Evidence.State.Outcome != stateindex.Superseded || a.TimeRequested == "" {
		t.Fatalf("frank in the past: %v %+v", err, a)
	}
	// An authority, action or resource the service does not know is a problem, not an answer.
	var p *client.TRQPProblem
	if _, err := h.Authorization(ctx, client.TRQPQuery{EntityID: "alice", AuthorityID: "did:web:nobody.example", Action: "issue", Resource: "x"}); !errors.As(err, &p) || p.Status != 404 {
		t.Fatalf("unknown authority: %v", err)
	}
	if _, err := h.Recognition(ctx, s.query("alice", "issue")); !errors.As(err, &p) || p.Status != 404 || !strings.HasPrefix(p.Detail, "Unknown action") {
		t.Fatalf("a recognition nobody declares: %v", err)
	}
}

// TestTRQPHelperNameAbsence: a record name that a registry matching by name does not list is
// proven absent by the state query's name form.
func TestTRQPHelperNameAbsence(t *testing.T) {
	s := startTRQPService(t)
	res, err := http.Get(s.URL + "/svc/log/state/" + s.NS + "/licences/zed")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Contains(raw, []byte(`"key"`)) {
		t.Skipf("SKIPPING: the state query's name form is not served in this branch (%d %s); the lead wires this test after merging it", res.StatusCode, raw)
	}
	a, err := s.helper().Authorization(context.Background(), s.query("zed", "issue"))
	if err != nil || a.Yes || a.Message != "not listed" || a.Evidence.State.Outcome != stateindex.Absent {
		t.Fatalf("zed: %v %+v", err, a)
	}
}

// rewrite is a transport that lets a test change the TRQP answers the service gives.
type rewrite func(path string, body []byte) []byte

func (f rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return res, err
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	raw = f(r.URL.Path, raw)
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(raw)), int64(len(raw))
	res.Header.Del("Content-Length")
	return res, nil
}

// TestTRQPHelperRefusesForgedAnswers: answers changed on the way, and evidence that does not
// hold, are refused.
func TestTRQPHelperRefusesForgedAnswers(t *testing.T) {
	s := startTRQPService(t)
	ctx := context.Background()
	edit := func(change func(m map[string]any, c map[string]any)) rewrite {
		return func(_ string, body []byte) []byte {
			var m map[string]any
			if json.Unmarshal(body, &m) != nil {
				return body
			}
			c, _ := m["context"].(map[string]any)
			change(m, c)
			out, _ := json.Marshal(m)
			return out
		}
	}
	bobV1 := func(m, c map[string]any) { // the stale-answer attack: bob's first, live version
		m["authorized"], m["message"] = true, "listed and live"
		c["svc_version"], c["svc_digest"] = s.bobLive["version"], s.bobLive["digest"]
		c["svc_lookup_url"] = "/svc/lookup/" + s.NS + "/licences/bob?version_id=" + s.bobLive["version"]
		c["svc_proof_url"] = "/svc/log/inclusion/" + s.bobLive["version"]
		delete(c, "svc_log_index")
	}
	for _, c := range []struct {
		name, entity string
		rw           rewrite
		want         string
	}{
		{"revoked made true", "carol", edit(func(m, c map[string]any) { m["authorized"], m["message"] = true, "listed and live" }),
			"the record version that decided is revoked"},
		{"another digest", "alice", edit(func(m, c map[string]any) { c["svc_digest"] = "0x" + strings.Repeat("0", 64) }), "not the evidence's"},
		{"not schema-valid", "alice", edit(func(m, c map[string]any) { delete(m, "time_evaluated") }), "does not validate against TRQP's schema"},
		{"a nested context", "alice", edit(func(m, c map[string]any) { c["x"] = map[string]any{} }), "does not validate against TRQP's schema"},
		{"about another entity", "alice", edit(func(m, c map[string]any) { m["entity_id"] = "bob" }), "not the query's"},
		{"a true without evidence", "carol", edit(func(m, c map[string]any) { m["authorized"] = true; delete(c, "svc_version") }), "without evidence"},
		{"a state proof of another entry", "alice", edit(func(m, c map[string]any) { c["svc_state_url"] = "/svc/log/state/" + s.NS }), "is not the state proof"},
		{"an older version, its log index kept", "bob", edit(func(m, c map[string]any) { idx := c["svc_log_index"]; bobV1(m, c); c["svc_log_index"] = idx }),
			"the inclusion proof is of log index"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := s.helper()
			h.HTTP = &http.Client{Transport: c.rw}
			_, err := h.Authorization(ctx, s.query(c.entity, "issue"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	// The stale answer with its own log index: everything verifies but the state proof, which
	// shows that a later version of bob exists.
	h := s.helper()
	h.HTTP = &http.Client{Transport: rewrite(func(path string, body []byte) []byte {
		return edit(func(m, c map[string]any) {
			bobV1(m, c)
			res, err := http.Get(s.URL + "/svc/log/inclusion/" + s.bobLive["version"])
			if err == nil {
				var p struct {
					LogIndex json.Number `json:"log_index"`
				}
				_ = json.NewDecoder(res.Body).Decode(&p)
				res.Body.Close()
				c["svc_log_index"] = p.LogIndex.String()
			}
		})(path, body)
	})}
	ev, err := h.Authorization(ctx, s.query("bob", "issue"))
	if err == nil || !strings.Contains(err.Error(), "superseded") {
		t.Fatalf("the stale answer: %v %+v", err, ev)
	}
	// Another log's key: the inclusion proof does not verify.
	h = s.helper()
	_, other, _ := translog.GenerateKey("trqp.test/svc/log")
	h.LogKey = other
	if _, err := h.Authorization(ctx, s.query("alice", "issue")); err == nil || !strings.Contains(err.Error(), "inclusion proof") {
		t.Fatalf("another log key: %v", err)
	}
	// A state check of the caller's own is used, and its verdict decides.
	h = s.helper()
	h.CheckState = func([]byte, stateindex.Key, []byte) stateindex.Verdict {
		return stateindex.Verdict{Outcome: stateindex.StaleCheckpoint, Message: "too old"}
	}
	if _, err := h.Authorization(ctx, s.query("alice", "issue")); err == nil || !strings.Contains(err.Error(), "stale_checkpoint: too old") {
		t.Fatalf("the caller's state check: %v", err)
	}
}

// TestTRQPAnswerVectors holds client.CheckTRQPDocument to the shared vectors of TRQP answers
// (trqp/testdata/answers.json), which the TypeScript and Python SDKs' hand-written checks
// also read: each is valid or invalid against TRQP's own schemas as the vector says.
func TestTRQPAnswerVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "trqp", "testdata", "answers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct {
			Name, Kind, Side string
			Valid            bool
			Document         json.RawMessage
		}
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	valid := 0
	for _, c := range v.Cases {
		err := client.CheckTRQPDocument(c.Kind, c.Side, c.Document)
		if (err == nil) != c.Valid {
			t.Errorf("%s: valid %v, the schema says %v", c.Name, c.Valid, err)
		}
		if c.Valid {
			valid++
		}
	}
	if valid == 0 || valid == len(v.Cases) || len(v.Cases) < 20 {
		t.Fatalf("%d cases, %d valid: the vectors need both kinds", len(v.Cases), valid)
	}
}
