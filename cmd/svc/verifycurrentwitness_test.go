package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/witnesstest"
)

// svc verify --current --witness-key: the serving index follows the cosigned checkpoint, the
// answer's checkpoint must be cosigned by the quorum, and its age is the witnesses' time; a
// witness that did not cosign makes it bad_proof.
func TestVerifyCurrentWitnessed(t *testing.T) {
	ctx := context.Background()
	skey, vkey, err := translog.GenerateKey("example.test/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := newStateService(t, lk, vkey)
	ss := translog.NewStateServer(translog.NewReader(l.st), l.st, l.st.LogCosigned, nil)
	s, err := server.NewServer(server.Config{Store: l.st, LogVerifierKey: vkey, LogState: ss})
	if err != nil {
		t.Fatal(err)
	}
	l.srv.Config.Handler = s.Echo()
	ns := l.populate("n")
	l.integrate()
	w1 := witnesstest.New(t, "w1.example", vkey)
	w2 := witnesstest.New(t, "w2.example", vkey)
	wt, err := translog.NewWitnesser(l.st, vkey, []translog.WitnessConfig{{Key: w1.VerifierKey, URL: w1.URL}}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := wt.WitnessOnce(ctx); err != nil || n != 1 {
		t.Fatalf("witness: %d %v", n, err)
	}
	if err := ss.Step(ctx); err != nil {
		t.Fatal(err)
	}
	rec := saver(t, t.TempDir())("rec.json", l.call("GET", "/svc/lookup/"+ns+"/r/x", ""))
	verify := func(args ...string) (int, string) {
		t.Helper()
		code, out, errs := svc(t, append([]string{"verify", "--current", "--log-key", vkey, "--url", l.srv.URL}, args...)...)
		return code, out + errs
	}
	if code, out := verify("--witness-key", w1.VerifierKey, "--max-age", "1h", rec); code != 0 || !strings.HasPrefix(out, "current: ") || !strings.Contains(out, "the witnesses' clock") {
		t.Fatalf("cosigned: exit %d %q", code, out)
	}
	if code, out := verify("--witness-key", w2.VerifierKey, rec); code != 1 || !strings.HasPrefix(out, "bad_proof: ") {
		t.Fatalf("a witness that did not cosign: exit %d %q", code, out)
	}
	// Cosignatures hold whole seconds: an answer is older than 1ms by the witnesses' time once
	// a second has passed.
	time.Sleep(1100 * time.Millisecond)
	if code, out := verify("--witness-key", w1.VerifierKey, "--max-age", "1ms", rec); code != 1 || !strings.HasPrefix(out, "stale_checkpoint: ") || !strings.Contains(out, "the witnesses' clock") {
		t.Fatalf("--max-age 1ms: exit %d %q", code, out)
	}
}
