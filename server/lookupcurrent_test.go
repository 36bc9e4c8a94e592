package server_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

// provenLog is a harness whose server answers prove=current from a serving state index over
// its store, and the log's integrator (with the state index) and key.
type provenLog struct {
	*harness
	ss   *translog.StateServer
	g    *translog.Integrator
	vkey string
}

func newProvenLog(t *testing.T, dialect string) *provenLog {
	t.Helper()
	lk, vkey := newLogKey(t)
	var ss *translog.StateServer
	h := newHarnessWith(t, dialect, func(c *server.Config) {
		ss = translog.NewStateServer(translog.NewReader(c.Store), c.Store, nil, nil)
		c.LogVerifierKey, c.LogState = vkey, ss
	})
	return &provenLog{harness: h, ss: ss, g: translog.NewIntegrator(h.store, lk, nil, nil).WithStateIndex(), vkey: vkey}
}

// publishLog integrates what waits and moves the serving index to the new checkpoint.
func (p *provenLog) publishLog() {
	p.t.Helper()
	ctx := context.Background()
	if _, err := p.g.IntegrateOnce(ctx); err != nil {
		p.t.Fatal(err)
	}
	if err := p.ss.Step(ctx); err != nil {
		p.t.Fatal(err)
	}
}

// proven is a lookup answer with prove=current, decoded.
type proven struct {
	Data struct {
		Version      string         `json:"version"`
		VersionCount int64          `json:"version_count"`
		Proof        map[string]any `json:"proof"`
	} `json:"data"`
	StateProof   *stateindex.Answer `json:"state_proof"`
	IsLatest     *bool              `json:"is_latest"`
	LatestLogged *struct {
		Version      string `json:"version"`
		VersionCount int64  `json:"version_count"`
		LogIndex     int64  `json:"log_index"`
		TreeSize     int64  `json:"tree_size"`
	} `json:"latest_logged"`
}

func decodeProven(t *testing.T, r resp) proven {
	t.Helper()
	var p proven
	if err := json.Unmarshal(r.Raw, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// check verifies the answer's state proof with the pure verifier, as a relying party would,
// for the version the answer shows.
func (p *provenLog) check(kind, id string, a proven, data map[string]any) stateindex.Verdict {
	p.t.Helper()
	if a.StateProof == nil {
		p.t.Fatal("no state_proof")
	}
	cp, err := leaf.OpenCheckpoint([]byte(a.StateProof.Checkpoint), p.vkey)
	if err != nil {
		p.t.Fatal(err)
	}
	have, err := leaf.FromLookup(kind, data)
	if err != nil {
		p.t.Fatal(err)
	}
	text, _ := have.Canonical()
	return stateindex.CheckAnswer(stateindex.Check{Answer: *a.StateProof, Checkpoint: cp, Key: stateindex.IDKey(id), Have: text, Now: time.Now()})
}

// TestLookupProveCurrent: a lookup with prove=current carries the state proof of the entry it
// shows, which proves the latest version current and an older one (by version_id) superseded,
// "version 1 of 2"; it is never answered from the lookup cache nor kept there, carries no ETag
// and ignores If-None-Match, and its proof moves with the log; 503 with Retry-After while the
// index catches up, and for a version written but not in the served checkpoint yet; 400 for a
// draft and for any other value of prove.
func TestLookupProveCurrent(t *testing.T) {
	for _, d := range []string{store.DialectSQLite, store.DialectPostgres} {
		t.Run(d, func(t *testing.T) {
			p := newProvenLog(t, d)
			key := p.key("owner@example.com")
			id := publish(t, p.harness, key)
			ns := "/svc/lookup/" + id
			rec := ns + "/employees/alice"
			r := p.must(503, "GET", rec+"?prove=current", "", nil)
			if r.Header.Get("Retry-After") == "" || r.Body["code"] != "unavailable" || !strings.Contains(r.msg(), "catching up") {
				t.Fatalf("before the index serves: %s %v", r.Raw, r.Header)
			}
			p.publishLog()

			// The latest version of each kind is current.
			for _, c := range []struct{ kind, path, idField string }{{"namespace", ns, "namespace_id"}, {"registry", ns + "/employees", "registry_id"}, {"record", rec, "record_id"}} {
				r := p.must(200, "GET", c.path+"?prove=current", "", nil)
				a := decodeProven(t, r)
				if a.IsLatest == nil || !*a.IsLatest || a.LatestLogged == nil || a.LatestLogged.Version != a.Data.Version || a.LatestLogged.VersionCount != a.Data.VersionCount {
					t.Fatalf("%s: %s", c.kind, r.Raw)
				}
				if v := p.check(c.kind, r.data()[c.idField].(string), a, r.data()); v.Outcome != stateindex.Current {
					t.Fatalf("%s: the proof says %v", c.kind, v)
				}
				if r.Header.Get("ETag") != "" || r.Header.Get("Cache-Control") != "public, max-age=1" {
					t.Errorf("%s: headers %v", c.kind, r.Header)
				}
				if a.LatestLogged.TreeSize != a.StateProof.State.LogIndex+1 || a.LatestLogged.LogIndex != a.StateProof.Latest.LogIndex {
					t.Errorf("%s: latest_logged %+v against the proof's checkpoint", c.kind, *a.LatestLogged)
				}
			}
			// A keyed request's answer is private; the plain lookup (cached) never carries a proof,
			// and a proven one is never read from the cache.
			if cc := p.must(200, "GET", rec+"?prove=current", key, nil).Header.Get("Cache-Control"); cc != "private, max-age=1" {
				t.Errorf("keyed Cache-Control %q", cc)
			}
			plain := p.must(200, "GET", rec, "", nil)
			t.Logf("a record lookup: %d bytes; with prove=current: %d bytes", len(plain.Raw), len(p.must(200, "GET", rec+"?prove=current", "", nil).Raw))
			if _, ok := plain.Body["state_proof"]; ok || plain.Header.Get("ETag") == "" {
				t.Fatalf("the plain lookup: %s", plain.Raw)
			}
			p.must(304, "GET", rec, "", nil, "If-None-Match", plain.Header.Get("ETag"))
			r = p.must(200, "GET", rec+"?prove=current", "", nil, "If-None-Match", plain.Header.Get("ETag"))
			if decodeProven(t, r).StateProof == nil {
				t.Fatal("If-None-Match with prove=current")
			}
			if _, ok := p.must(200, "GET", rec, "", nil).Body["state_proof"]; ok {
				t.Fatal("the plain lookup after a proven one carries the proof")
			}
			v1 := plain.data()["version"].(string)

			// A new version: not proven until the served checkpoint holds it.
			p.must(200, "POST", "/svc/"+id+"/employees/alice/update-record", key, `{"details":{"email":"alice@example.org"}}`)
			r = p.must(503, "GET", rec+"?prove=current", "", nil)
			if r.Body["code"] != "not_integrated" || r.Header.Get("Retry-After") == "" {
				t.Fatalf("a version not integrated yet: %s", r.Raw)
			}
			p.publishLog()
			r = p.must(200, "GET", rec+"?prove=current", "", nil)
			if a := decodeProven(t, r); !*a.IsLatest || a.Data.VersionCount != 2 {
				t.Fatalf("the new version: %s", r.Raw)
			}
			// The older version, by version_id: version 1 of 2, and the proof says superseded.
			r = p.must(200, "GET", rec+"?prove=current&version_id="+v1, "", nil)
			a := decodeProven(t, r)
			if *a.IsLatest || a.Data.VersionCount != 1 || a.LatestLogged.VersionCount != 2 || a.LatestLogged.Version == v1 {
				t.Fatalf("the older version: %s", r.Raw)
			}
			if v := p.check("record", r.data()["record_id"].(string), a, r.data()); v.Outcome != stateindex.Superseded {
				t.Fatalf("the older version's proof says %v", v)
			}
			// as_on today shows the latest.
			r = p.must(200, "GET", rec+"?prove=current&as_on="+time.Now().UTC().Format("2006-01-02"), "", nil)
			if !*decodeProven(t, r).IsLatest {
				t.Fatalf("as_on today: %s", r.Raw)
			}
			// The proof moves with the log: a later checkpoint gives a later proof.
			before := decodeProven(t, p.must(200, "GET", ns+"?prove=current", "", nil)).StateProof.State.LogIndex
			p.must(201, "POST", "/svc/"+id+"/employees/add-record", key, `{"record_name":"dave","details":{"email":"d@example.com"}}`)
			p.publishLog()
			if after := decodeProven(t, p.must(200, "GET", ns+"?prove=current", "", nil)).StateProof.State.LogIndex; after <= before {
				t.Fatalf("the namespace's proof stayed at %d after the log grew (was %d)", after, before)
			}
			// A draft (carol) is not logged: 400 for its owner, 404 for anyone else.
			carol := ns + "/employees/carol?prove=current"
			if r := p.must(400, "GET", carol, key, nil); !strings.Contains(r.msg(), "draft") {
				t.Errorf("the owner's draft: %s", r.Raw)
			}
			p.must(404, "GET", carol, "", nil)
			for _, bad := range []string{"prove=latest", "prove=", "prove=CURRENT"} {
				p.must(400, "GET", rec+"?"+bad, "", nil)
			}
			p.must(400, "GET", rec+"?prove=current&version_id=nope", "", nil)
			p.must(404, "GET", ns+"/nope?prove=current", "", nil)
			p.must(404, "GET", "/svc/lookup/"+url.PathEscape("did:svc:2Ujr5hdB8Hn1nBi5WXYYqW")+"?prove=current", "", nil)
		})
	}
}
