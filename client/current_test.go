package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/client"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/stateindex"
	"github.com/svc-directory/svc/translog/witnesstest"
)

// stateService is a real server whose integrator keeps the state index and whose serving
// index answers the state query, stepped by publish.
type stateService struct {
	t    *testing.T
	url  string
	key  string
	g    *translog.Integrator
	ss   *translog.StateServer
	vkey string
	st   *store.Store
}

func newStateService(t *testing.T) *stateService {
	t.Helper()
	skey, vkey, err := translog.GenerateKey("client.test/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.Open(t, store.DialectSQLite)
	ss := translog.NewStateServer(translog.NewReader(st), st, nil, nil)
	s, err := server.NewServer(server.Config{Store: st, LogVerifierKey: vkey, LogState: ss})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Echo())
	t.Cleanup(hs.Close)
	key, _, err := st.CreateAPIKey(context.Background(), "a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return &stateService{t: t, url: hs.URL, key: key, g: translog.NewIntegrator(st, lk, nil, nil).WithStateIndex(), ss: ss, vkey: vkey, st: st}
}

func (s *stateService) call(method, path, body string) []byte {
	s.t.Helper()
	req, _ := http.NewRequest(method, s.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		s.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return b
}

// publish integrates what was written and moves the serving index to the new checkpoint.
func (s *stateService) publish() {
	s.t.Helper()
	if _, err := s.g.IntegrateOnce(context.Background()); err != nil {
		s.t.Fatal(err)
	}
	if err := s.ss.Step(context.Background()); err != nil {
		s.t.Fatal(err)
	}
}

// TestVerifyCurrent: the stale-answer attack against a real server. A lookup of the record's
// first version, saved (or served by a stale instance, cache or mirror) before the record was
// updated, still verifies (its digest, its own inclusion proof), but VerifyCurrent finds it
// superseded, naming the newer version; the newer lookup is current; a record not yet in the
// published checkpoint is absent; an old checkpoint is stale by the log's clock, or by the
// witness's when a witness key is given; another log's key is bad_proof; a tampered lookup is
// bad_proof; a 503 of the state query is an error, not a verdict.
func TestVerifyCurrent(t *testing.T) {
	s := newStateService(t)
	ctx := context.Background()
	c, err := client.New(s.url, "")
	if err != nil {
		t.Fatal(err)
	}
	o := client.CurrentOptions{LogKey: s.vkey}
	// Before the first checkpoint the state query answers 503: an error, not a verdict.
	var created struct {
		Data struct {
			NamespaceID string `json:"namespace_id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(s.call("POST", "/svc/create-namespace", `{"name":"n","description":"d"}`), &created)
	ns := created.Data.NamespaceID
	s.call("POST", "/svc/"+ns+"/create-registry", `{"registry_name":"r","schema":{"type":"object"}}`)
	s.call("POST", "/svc/"+ns+"/r/add-record", `{"record_name":"x","details":{"a":1}}`)
	v1 := s.call("GET", "/svc/lookup/"+ns+"/r/x", "")
	if v, err := client.VerifyCurrent(ctx, c, "record", v1, o); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("before any checkpoint: %v, %v", v, err)
	}
	s.publish()
	for kind, path := range map[string]string{"namespace": ns, "registry": ns + "/r", "record": ns + "/r/x"} {
		v, err := client.VerifyCurrent(ctx, c, kind, s.call("GET", "/svc/lookup/"+path, ""), o)
		if err != nil || v.Outcome != stateindex.Current || !strings.Contains(v.Message, "the log's own clock") {
			t.Fatalf("the %s: %v, %v", kind, v, err)
		}
	}
	// The record is updated; the first version is what a stale instance still serves.
	s.call("POST", "/svc/"+ns+"/r/x/update-record", `{"details":{"a":2}}`)
	s.publish()
	if err := client.VerifyLookup("record", v1); err != nil {
		t.Fatalf("the stale answer's digest must still verify (it is a real version): %v", err)
	}
	v2 := s.call("GET", "/svc/lookup/"+ns+"/r/x", "")
	var second struct {
		Data struct {
			Version string `json:"version"`
		} `json:"data"`
	}
	_ = json.Unmarshal(v2, &second)
	v, err := client.VerifyCurrent(ctx, c, "record", v1, o)
	if err != nil || v.Outcome != stateindex.Superseded || !strings.Contains(v.Message, second.Data.Version) ||
		!strings.Contains(v.Message, "version_count 2") || !strings.Contains(v.Message, "at log index") || v.Latest == nil || v.Latest.VersionCount != 2 {
		t.Fatalf("the stale answer: %v, %v", v, err)
	}
	if v, err := client.VerifyCurrent(ctx, c, "record", v2, o); err != nil || v.Outcome != stateindex.Current {
		t.Fatalf("the newer version: %v, %v", v, err)
	}
	// A record written but not in the published checkpoint yet: absent.
	s.call("POST", "/svc/"+ns+"/r/add-record", `{"record_name":"y","details":{"a":1}}`)
	y := s.call("GET", "/svc/lookup/"+ns+"/r/y", "")
	if v, err := client.VerifyCurrent(ctx, c, "record", y, o); err != nil || v.Outcome != stateindex.Absent {
		t.Fatalf("an unlogged record: %v, %v", v, err)
	}
	// An hour later, with 5 minutes allowed: stale by the log's clock.
	late := o
	late.MaxAge, late.Now = 5*time.Minute, func() time.Time { return time.Now().Add(time.Hour) }
	if v, err := client.VerifyCurrent(ctx, c, "record", v2, late); err != nil || v.Outcome != stateindex.StaleCheckpoint || !strings.Contains(v.Message, "the log's own clock") {
		t.Fatalf("an old answer: %v, %v", v, err)
	}
	// Another log's key, and a tampered lookup: bad_proof.
	_, other, _ := translog.GenerateKey("client.test/svc/log")
	if v, err := client.VerifyCurrent(ctx, c, "record", v2, client.CurrentOptions{LogKey: other}); err != nil || v.Outcome != stateindex.BadProof {
		t.Fatalf("another key: %v, %v", v, err)
	}
	tampered := []byte(strings.Replace(string(v2), `"a":2`, `"a":3`, 1))
	if v, err := client.VerifyCurrent(ctx, c, "record", tampered, o); err != nil || v.Outcome != stateindex.BadProof {
		t.Fatalf("a tampered lookup: %v, %v", v, err)
	}
	// With a witness: its cosignature's time is the clock; without its cosignature, bad_proof.
	w := witnesstest.New(t, "witness.example", s.vkey)
	wo := o
	wo.WitnessKeys = []string{w.VerifierKey}
	if v, err := client.VerifyCurrent(ctx, c, "record", v2, wo); err != nil || v.Outcome != stateindex.BadProof {
		t.Fatalf("not cosigned: %v, %v", v, err)
	}
	wt, err := translog.NewWitnesser(s.st, s.vkey, []translog.WitnessConfig{{Key: w.VerifierKey, URL: w.URL}}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := wt.WitnessOnce(ctx); err != nil || n != 1 {
		t.Fatalf("witness: %d, %v", n, err)
	}
	// An instance of a log with witnesses serves the cosigned checkpoint (as svc serve does).
	css := translog.NewStateServer(translog.NewReader(s.st), s.st, s.st.LogCosigned, nil)
	cs, err := server.NewServer(server.Config{Store: s.st, LogVerifierKey: s.vkey, LogState: css})
	if err != nil {
		t.Fatal(err)
	}
	chs := httptest.NewServer(cs.Echo())
	defer chs.Close()
	if err := css.Step(ctx); err != nil {
		t.Fatal(err)
	}
	cc, err := client.New(chs.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := client.VerifyCurrent(ctx, cc, "record", v2, wo); err != nil || v.Outcome != stateindex.Current || !strings.Contains(v.Message, "the witnesses' clock") {
		t.Fatalf("cosigned: %v, %v", v, err)
	}
	if v, err := client.VerifyCurrent(ctx, cc, "record", v1, wo); err != nil || v.Outcome != stateindex.Superseded {
		t.Fatalf("the stale answer, cosigned: %v, %v", v, err)
	}
}
