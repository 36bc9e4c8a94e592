package stateindex

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "TestVectors: rewrite testdata/index.json")

const vectorsPath = "testdata/index.json"

// TestVectors: the committed vectors are what vectors_make_test.go makes today (-update writes
// them), and this package gives every verdict they record; the roots are also checked by the
// definitions (refRoot), and the keys' encodings by KeyKind.
func TestVectors(t *testing.T) {
	want, err := json.MarshalIndent(makeVectors(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(vectorsPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the generator makes: run go test ./translog/stateindex -run TestVectors -update and commit testdata/", vectorsPath)
	}
	var f vectorsFile
	if err := json.Unmarshal(got, &f); err != nil {
		t.Fatal(err)
	}
	checkVectors(t, f)
}

func keyFromVector(t *testing.T, v keyVector) Key {
	t.Helper()
	for kind, name := range kindNames {
		if name == v.Kind {
			return Key{kind, v.Parts}
		}
	}
	t.Fatalf("unknown key kind %q", v.Kind)
	return Key{}
}

func checkVectors(t *testing.T, f vectorsFile) {
	counts := func(cs []proofCase) (ok, bad int) {
		for _, c := range cs {
			if c.OK {
				ok++
			} else {
				bad++
			}
		}
		return
	}
	mOK, mBad := counts(f.Membership)
	aOK, aBad := counts(f.Absence)
	if len(f.Leaves) < 10 || len(f.Roots) != len(f.Leaves)+1 || len(f.Keys) < 10 || mOK < 10 || mBad < 8 || aOK < 10 || aBad < 5 || len(f.Extension) < 5 {
		t.Fatalf("too few vectors: %d leaves, %d roots, %d keys, membership %d/%d, absence %d/%d, %d extensions",
			len(f.Leaves), len(f.Roots), len(f.Keys), mOK, mBad, aOK, aBad, len(f.Extension))
	}
	for _, v := range f.Keys {
		k := keyFromVector(t, v)
		enc, err := k.Encode()
		h, _ := k.Hash()
		if err != nil || !bytes.Equal(enc, v.Encoding) || !bytes.Equal(h[:], v.Hash) {
			t.Errorf("key %v: encoding %x %v, hash %x; want %x, %x", k, enc, err, h, v.Encoding, v.Hash)
		}
	}
	b := NewBuilder(NewMemStore())
	lists := map[Hash][]uint64{}
	for i, r := range f.Roots {
		if r.Size != i {
			t.Fatalf("root %d is of size %d", i, r.Size)
		}
		if i > 0 {
			text := []byte(f.Leaves[i-1])
			if _, err := b.Apply(text); err != nil {
				t.Fatal(err)
			}
			keys, _ := KeysOf(text)
			for _, k := range keys {
				h, _ := k.Hash()
				lists[h] = append(lists[h], uint64(i-1))
			}
		}
		root, ref := b.Root(), refRoot(lists)
		if !bytes.Equal(root[:], r.Root) || ref != root {
			t.Errorf("size %d: root %x (by the definition %x), want %x", i, root, ref, r.Root)
		}
	}
	rootAt := func(size int) []byte { return f.Roots[size].Root }
	for _, c := range f.Membership {
		if c.OK && !bytes.Equal(c.Root, rootAt(c.Size)) {
			t.Errorf("%s: the case's root is not the root at size %d", c.Name, c.Size)
		}
		err := VerifyMembership(Hash(c.Root), keyFromVector(t, c.Key), c.List, c.Proof)
		if (err == nil) != c.OK {
			t.Errorf("membership %s: %v, want ok %v", c.Name, err, c.OK)
		}
	}
	for _, c := range f.Absence {
		if c.OK && !bytes.Equal(c.Root, rootAt(c.Size)) {
			t.Errorf("%s: the case's root is not the root at size %d", c.Name, c.Size)
		}
		err := VerifyAbsence(Hash(c.Root), keyFromVector(t, c.Key), c.Proof)
		if (err == nil) != c.OK {
			t.Errorf("absence %s: %v, want ok %v", c.Name, err, c.OK)
		}
	}
	for _, c := range f.Extension {
		proof := make([]Hash, len(c.Proof))
		for i, h := range c.Proof {
			proof[i] = Hash(h)
		}
		err := VerifyExtension(c.OldCount, Hash(c.OldRoot), c.NewCount, Hash(c.NewRoot), proof)
		if (err == nil) != c.OK {
			t.Errorf("extension %s: %v, want ok %v", c.Name, err, c.OK)
		}
	}
	latestOK := 0
	for _, c := range f.Latest {
		proof := make([]Hash, len(c.ListProof))
		for i, h := range c.ListProof {
			proof[i] = Hash(h)
		}
		err := VerifyLatest(Hash(c.Root), keyFromVector(t, c.Key), c.Count, Hash(c.ListRoot), c.Latest, proof, c.Proof)
		if (err == nil) != c.OK {
			t.Errorf("latest %s: %v, want ok %v", c.Name, err, c.OK)
		}
		if c.OK {
			latestOK++
		}
	}
	if latestOK < 5 || len(f.Latest)-latestOK < 3 {
		t.Errorf("%d latest cases, %d ok", len(f.Latest), latestOK)
	}
	checkDecoding(t, f.Decoding)
	if !slices.ContainsFunc(f.Absence, func(c proofCase) bool { return c.OK && c.Proof[0] == EndOther }) ||
		!slices.ContainsFunc(f.Absence, func(c proofCase) bool { return c.OK && c.Proof[0] == EndEmpty && c.Size > 0 }) {
		t.Error("the absence proofs lack an end of each kind")
	}
}
