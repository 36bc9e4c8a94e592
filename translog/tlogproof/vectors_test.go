package tlogproof_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"slices"
	"testing"

	"github.com/svc-directory/svc/translog/tlogproof"
)

var update = flag.Bool("update", false, "TestVectors: rewrite testdata/vectors.json")

const vectorsPath = "testdata/vectors.json"

// TestVectors: the committed vectors are what the generator makes today (-update writes them),
// and the Go reader agrees with every verdict in them.
func TestVectors(t *testing.T) {
	v := makeVectors(t)
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(vectorsPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the generator makes: run go test ./translog/tlogproof -run TestVectors -update and commit testdata/", vectorsPath)
	}
	var f vectorsFile
	if err := json.Unmarshal(want, &f); err != nil {
		t.Fatal(err)
	}
	checkVectors(t, f)
}

func checkVectors(t *testing.T, f vectorsFile) {
	for _, c := range f.Policies {
		p, err := tlogproof.ParsePolicy([]byte(c.Text))
		if (err == nil) != c.OK {
			t.Errorf("policy %q: ParsePolicy error %v, want ok %v", c.Name, err, c.OK)
			continue
		}
		if !c.OK {
			continue
		}
		// A parsed policy written out parses to the same.
		again, err := tlogproof.ParsePolicy(p.Format())
		if err != nil || !equalPolicy(p, again) {
			t.Errorf("policy %q: its Format does not parse back to it: %v\n%s", c.Name, err, p.Format())
		}
		if p.Quorum != c.Quorum || len(p.Logs) != len(c.Logs) || len(p.Witnesses) != len(c.Witnesses) || !slices.EqualFunc(p.Groups, c.Groups, equalGroup) {
			t.Errorf("policy %q parses to %+v", c.Name, p)
		}
	}
	for _, c := range f.Proofs {
		policy, err := tlogproof.ParsePolicy([]byte(c.Policy))
		if err != nil {
			t.Fatalf("proof %q: its policy: %v", c.Name, err)
		}
		var want []byte
		if c.Leaf != nil {
			want = []byte(*c.Leaf)
		}
		stage, v := "", tlogproof.Verified{}
		p, err := tlogproof.Parse([]byte(c.Proof))
		if err == nil {
			v, err = tlogproof.Verify(p, policy, want)
		}
		var e *tlogproof.Error
		if err != nil && !errors.As(err, &e) {
			t.Errorf("proof %q: an error that is not a *tlogproof.Error: %v", c.Name, err)
			continue
		}
		if e != nil {
			stage = e.Stage
		}
		switch {
		case c.OK && err != nil:
			t.Errorf("proof %q refused at %s: %v", c.Name, stage, err)
		case !c.OK && err == nil:
			t.Errorf("proof %q accepted, want refused at %s", c.Name, c.Stage)
		case !c.OK && stage != c.Stage:
			t.Errorf("proof %q refused at %s (%v), want at %s", c.Name, stage, err, c.Stage)
		case c.OK && (v.Index != *c.Index || v.Checkpoint.Size != *c.Size || v.Checkpoint.Origin != c.Origin || string(v.Leaf) != c.ProvenLeaf ||
			!slices.Equal(v.Witnesses, c.Witnesses) || cosignedAt(v) != c.CosignedAt):
			t.Errorf("proof %q proves %+v", c.Name, v)
		case c.OK && err == nil && !bytes.Equal(p.Format(), []byte(c.Proof)):
			t.Errorf("proof %q: Format does not write it back byte for byte", c.Name)
		}
	}
	for _, c := range f.Formats {
		p, err := tlogproof.NewPolicy(c.LogKey, c.WitnessKeys, c.Quorum)
		if err != nil || string(p.Format()) != c.Text {
			t.Errorf("format %q: %v\n%s", c.Name, err, p.Format())
		}
	}
}

func cosignedAt(v tlogproof.Verified) int64 {
	if v.CosignedAt.IsZero() {
		return 0
	}
	return v.CosignedAt.Unix()
}

func equalGroup(a, b tlogproof.Group) bool {
	return a.Name == b.Name && a.Threshold == b.Threshold && slices.Equal(a.Members, b.Members)
}

func equalPolicy(a, b tlogproof.Policy) bool {
	return slices.Equal(a.Logs, b.Logs) && slices.Equal(a.Witnesses, b.Witnesses) && slices.EqualFunc(a.Groups, b.Groups, equalGroup) && a.Quorum == b.Quorum
}
