package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/tlogproof"
	"github.com/svc-directory/svc/translog/witnesstest"
)

// fetch GETs a path of the service: its status and body.
func (l *logService) fetch(path string) (int, []byte) {
	l.t.Helper()
	code, _, body := get(l.t, l.srv.URL+path)
	return code, body
}

// versionOf is the version a saved lookup shows.
func versionOf(t *testing.T, lookup []byte) string {
	t.Helper()
	var v struct {
		Data struct {
			Version string `json:"version"`
		} `json:"data"`
	}
	if err := json.Unmarshal(lookup, &v); err != nil || v.Data.Version == "" {
		t.Fatalf("not a lookup: %s", lookup)
	}
	return v.Data.Version
}

// svc verify --proof and --policy against the real server: the tlog-proof of a lookup's
// version verifies under the served policy (or --log-key), with the lookup and alone; a proof
// of another version, a forged one and a truncated one fail (exit 1); --current reads the
// state_proof of a lookup made with prove=current, with --policy or --log-key: the latest
// version is current, the older one superseded; the command line's mistakes exit 2.
func TestVerifyProofAndPolicy(t *testing.T) {
	skey, vkey, err := translog.GenerateKey("example.test/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	l, ss := newStateService(t, lk, vkey)
	ns := l.populate("n")
	l.publish(ss)
	save := saver(t, t.TempDir())
	code, policy := l.fetch("/svc/log/policy")
	if code != 200 {
		t.Fatalf("policy: %d %s", code, policy)
	}
	pol := save("log.tlog-policy", policy)
	lookup1 := l.call("GET", "/svc/lookup/"+ns+"/r/x", "")
	v1 := save("v1.json", lookup1)
	code, proof1 := l.fetch("/svc/log/proof/" + versionOf(t, lookup1))
	if code != 200 {
		t.Fatalf("proof: %d %s", code, proof1)
	}
	p1 := save("v1.tlog-proof", proof1)
	run := func(args ...string) (int, string) {
		t.Helper()
		code, out, errs := svc(t, append([]string{"verify"}, args...)...)
		return code, out + errs
	}
	for _, trust := range [][]string{{"--policy", pol}, {"--log-key", vkey}} {
		if code, out := run(append(trust, "--kind", "record", "--proof", p1, v1)...); code != 0 || !strings.HasPrefix(out, "OK: record ") || !strings.Contains(out, "in log example.test/svc/log") {
			t.Fatalf("%v --proof: %d %q", trust, code, out)
		}
		if code, out := run(append(trust, "--proof", p1)...); code != 0 || !strings.HasPrefix(out, "OK: leaf ") || !strings.Contains(out, `"kind":"record"`) {
			t.Fatalf("%v --proof alone: %d %q", trust, code, out)
		}
	}
	if code, out := run("--policy", pol, "--proof", p1, v1); code != 0 || !strings.HasPrefix(out, "OK: record ") {
		t.Fatalf("--proof without --kind: %d %q", code, out)
	}
	if code, out := run("--kind", "record", "--policy", pol, "--url", l.srv.URL, v1); code != 0 || !strings.HasPrefix(out, "OK: ") {
		t.Fatalf("--policy --url: %d %q", code, out)
	}
	// The namespace's proof is not the record's.
	nsLookup := l.call("GET", "/svc/lookup/"+ns, "")
	_, nsProof := l.fetch("/svc/log/proof/" + versionOf(t, nsLookup))
	forged := map[string]string{
		"another version's proof": string(nsProof),
		"a changed hash":          strings.Replace(string(proof1), "\nindex ", "\nindex 1", 1),
		"truncated":               string(proof1[:len(proof1)/2]),
		"a line after it":         string(proof1) + "more\n",
	}
	for name, text := range forged {
		f := save(strings.ReplaceAll(name, " ", "-")+".tlog-proof", []byte(text))
		if code, out := run("--kind", "record", "--policy", pol, "--proof", f, v1); code != 1 || !strings.HasPrefix(out, "FAILED: the tlog-proof ") {
			t.Errorf("%s: %d %q", name, code, out)
		}
	}
	// A policy whose quorum needs a witness that never cosigned.
	w := witnesstest.New(t, "w.example", vkey)
	strict, err := tlogproof.NewPolicy(vkey, []string{w.VerifierKey}, 1)
	if err != nil {
		t.Fatal(err)
	}
	strictFile := save("strict.tlog-policy", strict.Format())
	if code, out := run("--kind", "record", "--policy", strictFile, "--proof", p1, v1); code != 1 || !strings.Contains(out, "quorum") {
		t.Errorf("a quorum not met: %d %q", code, out)
	}

	// --current from the lookup's own state_proof.
	proven1 := save("proven1.json", l.call("GET", "/svc/lookup/"+ns+"/r/x?prove=current", ""))
	for _, trust := range [][]string{{"--policy", pol}, {"--log-key", vkey}} {
		if code, out := run(append(append([]string{"--current"}, trust...), proven1)...); code != 0 || !strings.HasPrefix(out, "current: ") {
			t.Fatalf("%v --current with the lookup's state_proof: %d %q", trust, code, out)
		}
	}
	if code, out := run("--current", "--policy", strictFile, proven1); code != 1 || !strings.HasPrefix(out, "bad_proof: ") {
		t.Errorf("--current under a quorum not met: %d %q", code, out)
	}
	l.call("POST", "/svc/"+ns+"/r/x/update-record", `{"details":{"a":2}}`)
	l.publish(ss)
	old := save("old.json", l.call("GET", "/svc/lookup/"+ns+"/r/x?prove=current&version_id="+versionOf(t, lookup1), ""))
	if code, out := run("--current", "--policy", pol, old); code != 1 || !strings.HasPrefix(out, "superseded: ") || !strings.Contains(out, "version_count 2") {
		t.Fatalf("the older version by version_id: %d %q", code, out)
	}
	// The state_proof of another entry does not prove this one.
	swapped := map[string]any{}
	_ = json.Unmarshal(l.call("GET", "/svc/lookup/"+ns+"/r/x?prove=current", ""), &swapped)
	other := map[string]any{}
	_ = json.Unmarshal(l.call("GET", "/svc/lookup/"+ns+"?prove=current", ""), &other)
	swapped["state_proof"] = other["state_proof"]
	if code, out := run("--current", "--policy", pol, save("swapped.json", mustJSON(t, swapped))); code != 1 || !strings.HasPrefix(out, "bad_proof: ") {
		t.Errorf("another entry's state_proof: %d %q", code, out)
	}

	// Mistakes of the command line.
	for name, args := range map[string][]string{
		"--policy with --log-key":        {"--kind", "record", "--policy", pol, "--log-key", vkey, "--proof", p1, v1},
		"--policy with --witness-key":    {"--kind", "record", "--policy", pol, "--witness-key", w.VerifierKey, "--proof", p1, v1},
		"--proof with --inclusion":       {"--kind", "record", "--log-key", vkey, "--proof", p1, "--inclusion", p1, v1},
		"--proof with --url":             {"--kind", "record", "--log-key", vkey, "--proof", p1, "--url", l.srv.URL, v1},
		"--proof without a trust":        {"--kind", "record", "--proof", p1, v1},
		"--current without a state":      {"--current", "--policy", pol, v1},
		"a policy that does not parse":   {"--kind", "record", "--policy", p1, "--proof", p1, v1},
		"no lookup without --proof":      {"--kind", "record", "--policy", pol},
		"--current with --state and url": {"--current", "--policy", pol, "--state", v1, "--url", l.srv.URL, v1},
	} {
		if code, out := run(args...); code != 2 {
			t.Errorf("%s: %d %q", name, code, out)
		}
	}
}

// With witnesses, the served policy names them and the proof is against the cosigned
// checkpoint: svc verify --proof --policy checks the cosignatures.
func TestVerifyProofWitnessed(t *testing.T) {
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
	w1 := witnesstest.New(t, "w1.example", vkey)
	s, err := server.NewServer(server.Config{Store: l.st, LogVerifierKey: vkey, LogWitnessKeys: []string{w1.VerifierKey}, LogWitnessQuorum: 1})
	if err != nil {
		t.Fatal(err)
	}
	l.srv.Config.Handler = s.Echo()
	ns := l.populate("n")
	l.integrate()
	wt, err := translog.NewWitnesser(l.st, vkey, []translog.WitnessConfig{{Key: w1.VerifierKey, URL: w1.URL}}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := wt.WitnessOnce(ctx); err != nil || n != 1 {
		t.Fatalf("witness: %d %v", n, err)
	}
	save := saver(t, t.TempDir())
	_, policy := l.fetch("/svc/log/policy")
	lookup := l.call("GET", "/svc/lookup/"+ns+"/r/x", "")
	code, proof := l.fetch("/svc/log/proof/" + versionOf(t, lookup))
	if code != http.StatusOK || !strings.Contains(string(proof), "\n\u2014 w1.example ") {
		t.Fatalf("the proof is not against the cosigned checkpoint: %d %s", code, proof)
	}
	code, out, errs := svc(t, "verify", "--kind", "record", "--policy", save("p", policy), "--proof", save("f", proof), save("l.json", lookup))
	if code != 0 || !strings.Contains(out, "cosigned to the policy's quorum w1.example") {
		t.Fatalf("%d %q %q", code, out, errs)
	}
	code, out, _ = svc(t, "verify", "--kind", "record", "--log-key", vkey, "--witness-key", w1.VerifierKey, "--proof", save("f", proof), save("l.json", lookup))
	if code != 0 || !strings.Contains(out, "cosigned by at least 1 of 1 witnesses") {
		t.Fatalf("with --witness-key: %d %q", code, out)
	}
	// --policy with --url: the inclusion proof in the cosigned checkpoint's tree.
	code, out, errs = svc(t, "verify", "--kind", "record", "--policy", save("p", policy), "--url", l.srv.URL, save("l.json", lookup))
	if code != 0 || !strings.Contains(out, "cosigned to the policy's quorum w1.example") {
		t.Fatalf("--policy --url: %d %q %q", code, out, errs)
	}
	// A policy of another witness refuses the cosigned checkpoint.
	w2 := witnesstest.New(t, "w2.example", vkey)
	other, err := tlogproof.NewPolicy(vkey, []string{w2.VerifierKey}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, _ := svc(t, "verify", "--kind", "record", "--policy", save("o", other.Format()), "--url", l.srv.URL, save("l.json", lookup)); code != 1 || !strings.HasPrefix(out, "FAILED: ") {
		t.Fatalf("another witness's policy with --url: %d %q", code, out)
	}
}
