package leaf_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svc-directory/svc/translog/leaf"
)

var update = flag.Bool("update", false, "TestVectors: rewrite testdata/*.json")

// TestVectors: the committed vectors are what vectors_gen_test.go makes today (-update writes
// them), and this package gives every verdict they record.
func TestVectors(t *testing.T) {
	for name, v := range makeVectors(t) {
		path := filepath.Join("testdata", name)
		want := encode(t, v)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator makes: run go test ./translog/leaf -run TestVectors -update and commit testdata/", path)
		}
	}
	var leaves leavesFile
	var tree treeFile
	var cps checkpointsFile
	var keys keyLeavesFile
	var domains domainLeavesFile
	var states stateLeavesFile
	read(t, "leaves.json", &leaves)
	read(t, "tree.json", &tree)
	read(t, "checkpoints.json", &cps)
	read(t, "keyleaves.json", &keys)
	read(t, "domainleaves.json", &domains)
	read(t, "stateleaves.json", &states)
	t.Run("leaves", func(t *testing.T) { checkLeaves(t, leaves) })
	t.Run("tree", func(t *testing.T) { checkTree(t, tree) })
	t.Run("checkpoints", func(t *testing.T) { checkCheckpoints(t, cps) })
	t.Run("keyleaves", func(t *testing.T) { checkKeyLeaves(t, keys) })
	t.Run("domainleaves", func(t *testing.T) { checkDomainLeaves(t, domains) })
	t.Run("stateleaves", func(t *testing.T) { checkStateLeaves(t, states) })
}

func read(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func checkLeaves(t *testing.T, f leavesFile) {
	if len(f.Leaves) < 10 || len(f.Invalid) < 10 {
		t.Fatalf("%d leaves, %d invalid texts", len(f.Leaves), len(f.Invalid))
	}
	for _, v := range f.Leaves {
		l := v.Fields.leaf()
		text, err := l.Canonical()
		if err != nil || string(text) != v.Canonical {
			t.Errorf("%s: Canonical %s %v, want %s", v.Name, text, err, v.Canonical)
		}
		if h := leaf.Hash([]byte(v.Canonical)); !bytes.Equal(h[:], v.LeafHash) {
			t.Errorf("%s: leaf hash %x, want %x", v.Name, h, v.LeafHash)
		}
		// SHA-256(0x00 || text), by its definition.
		if h := sha256.Sum256(append([]byte{0}, v.Canonical...)); !bytes.Equal(h[:], v.LeafHash) {
			t.Errorf("%s: the vector's leaf hash is not SHA-256(0x00 || leaf)", v.Name)
		}
		got, err := leaf.Parse([]byte(v.Canonical))
		want := l
		if want.Kind != leaf.KindRecord {
			want.RecordID = ""
		}
		if want.Kind == leaf.KindNamespace {
			want.RegistryID = ""
		}
		if err != nil || got != want {
			t.Errorf("%s: Parse %+v %v, want %+v", v.Name, got, err, want)
		}
	}
	for _, v := range f.Invalid {
		if l, err := leaf.Parse([]byte(v.Text)); !errors.Is(err, leaf.ErrVerify) {
			t.Errorf("%s: Parse(%s) = %+v, %v; want ErrVerify", v.Name, v.Text, l, err)
		}
	}
}

// The tree's hashes by RFC 6962's definitions (section 2.1), without golang.org/x/mod/sumdb/tlog
// (which made the vectors).
func leafHash(d string) []byte { h := sha256.Sum256(append([]byte{0}, d...)); return h[:] }
func nodeHash(l, r []byte) []byte {
	h := sha256.Sum256(slices.Concat([]byte{1}, l, r))
	return h[:]
}

// split is k, the largest power of two smaller than n.
func split(n int) int {
	k := 1
	for k*2 < n {
		k *= 2
	}
	return k
}

// mth is MTH(D[0:n]).
func mth(d []string) []byte {
	switch len(d) {
	case 0:
		h := sha256.Sum256(nil)
		return h[:]
	case 1:
		return leafHash(d[0])
	}
	k := split(len(d))
	return nodeHash(mth(d[:k]), mth(d[k:]))
}

// path is PATH(m, D[0:n]).
func path(m int, d []string) [][]byte {
	if len(d) <= 1 {
		return nil
	}
	k := split(len(d))
	if m < k {
		return append(path(m, d[:k]), mth(d[k:]))
	}
	return append(path(m-k, d[k:]), mth(d[:k]))
}

// subproof is SUBPROOF(m, D[0:n], b).
func subproof(m int, d []string, b bool) [][]byte {
	n := len(d)
	if m == n {
		if b {
			return nil
		}
		return [][]byte{mth(d)}
	}
	k := split(n)
	if m <= k {
		return append(subproof(m, d[:k], b), mth(d[k:]))
	}
	return append(subproof(m-k, d[k:], false), mth(d[:k]))
}

func checkTree(t *testing.T, f treeFile) {
	if len(f.Leaves) != 21 || len(f.Roots) != 22 {
		t.Fatalf("%d leaves, %d roots", len(f.Leaves), len(f.Roots))
	}
	for _, l := range f.Leaves {
		if _, err := leaf.Parse([]byte(l)); err != nil {
			t.Errorf("tree leaf: %v", err)
		}
	}
	for _, r := range f.Roots {
		if !bytes.Equal(mth(f.Leaves[:r.Size]), r.RootHash) {
			t.Errorf("root of %d", r.Size)
		}
	}
	for _, p := range f.Inclusion {
		if !slices.EqualFunc(path(int(p.Index), f.Leaves[:p.Size]), p.Hashes, bytes.Equal) {
			t.Errorf("inclusion proof of %d in %d", p.Index, p.Size)
		}
	}
	for _, p := range f.Consistency {
		want := [][]byte{}
		if p.OldSize > 0 && p.OldSize < p.NewSize {
			want = subproof(int(p.OldSize), f.Leaves[:p.NewSize], true)
		}
		if !slices.EqualFunc(want, p.Hashes, bytes.Equal) {
			t.Errorf("consistency proof of %d to %d", p.OldSize, p.NewSize)
		}
	}
}

func checkCheckpoints(t *testing.T, f checkpointsFile) {
	for _, c := range f.Checkpoints {
		got, err := leaf.OpenCheckpoint([]byte(c.Signed), c.VerifierKey)
		if (err == nil) != c.OK {
			t.Errorf("%s: OpenCheckpoint: %v, want ok %v", c.Name, err, c.OK)
			continue
		}
		if c.OK && (got.Origin != c.Origin || got.Size != *c.Size || !bytes.Equal(got.Hash[:], c.RootHash)) {
			t.Errorf("%s: %+v", c.Name, got)
		}
	}
	for _, c := range f.Inclusion {
		_, err := leaf.VerifyInclusion(c.Proof, c.VerifierKey, c.Expected.leaf())
		if (err == nil) != c.OK {
			t.Errorf("%s: VerifyInclusion: %v, want ok %v", c.Name, err, c.OK)
		}
	}
	for _, c := range f.Consistency {
		old, err := leaf.OpenCheckpoint([]byte(c.OldCheckpoint), c.VerifierKey)
		if err == nil {
			var cur leaf.Checkpoint
			if cur, err = leaf.OpenCheckpoint([]byte(c.NewCheckpoint), c.VerifierKey); err == nil {
				err = leaf.VerifyConsistency(old, cur, c.Hashes)
			}
		}
		if (err == nil) != c.OK {
			t.Errorf("%s: %v, want ok %v", c.Name, err, c.OK)
		}
	}
}
