package tlogproof_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/svc-directory/svc/translog/tlogproof"
)

// seeds are the vectors' texts.
func seeds(f *testing.F) vectorsFile {
	raw, err := os.ReadFile(vectorsPath)
	if err != nil {
		f.Fatal(err)
	}
	var v vectorsFile
	if err := json.Unmarshal(raw, &v); err != nil {
		f.Fatal(err)
	}
	return v
}

// FuzzVerify: any text, under any policy text, is parsed and verified without a panic, and a
// refusal is always a *tlogproof.Error; an accepted proof is written back byte for byte.
func FuzzVerify(f *testing.F) {
	v := seeds(f)
	for _, c := range v.Proofs {
		f.Add([]byte(c.Proof), []byte(c.Policy))
	}
	f.Fuzz(func(t *testing.T, proof, policy []byte) {
		pol, err := tlogproof.ParsePolicy(policy)
		var e *tlogproof.Error
		if err != nil {
			if !errors.As(err, &e) || e.Stage != tlogproof.StageParse {
				t.Fatalf("ParsePolicy: %v", err)
			}
			return
		}
		p, err := tlogproof.Parse(proof)
		if err != nil {
			if !errors.As(err, &e) || e.Stage != tlogproof.StageParse {
				t.Fatalf("Parse: %v", err)
			}
			return
		}
		if string(p.Format()) != string(proof) {
			t.Fatalf("Format does not give the text back:\n%q\n%q", p.Format(), proof)
		}
		if _, err := tlogproof.Verify(p, pol, nil); err != nil && !errors.As(err, &e) {
			t.Fatalf("Verify: %v", err)
		}
	})
}

// FuzzPolicy: a policy that parses is written out and parses to the same.
func FuzzPolicy(f *testing.F) {
	for _, c := range seeds(f).Policies {
		f.Add([]byte(c.Text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		p, err := tlogproof.ParsePolicy(text)
		if err != nil {
			return
		}
		again, err := tlogproof.ParsePolicy(p.Format())
		if err != nil || !equalPolicy(p, again) {
			t.Fatalf("Format of %q does not parse back: %v\n%s", text, err, p.Format())
		}
	})
}
