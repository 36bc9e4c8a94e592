package leaf_test

// The generator of the known-answer vectors in testdata/ (testdata/README.md describes them).
// The leaf texts are this package's; every hash, root and proof is computed by
// golang.org/x/mod/sumdb/tlog and every signature made by golang.org/x/mod/sumdb/note, from
// keys whose seeds are fixed bytes, so the files are the same on every run. Regenerate with
//
//	go test ./translog/leaf -run TestVectors -update
//
// and commit testdata/ (TestVectors fails while the committed files differ from what this
// file makes).

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
)

// Fields are a leaf's fields as the vectors spell them: the members of the leaf, registry_id
// and record_id only where the kind has them (or where a vector shows they are ignored).
type Fields struct {
	Kind         string  `json:"kind"`
	NamespaceID  string  `json:"namespace_id"`
	RegistryID   *string `json:"registry_id,omitempty"`
	RecordID     *string `json:"record_id,omitempty"`
	Version      string  `json:"version"`
	VersionCount int64   `json:"version_count"`
	Digest       string  `json:"digest"`
}

func (f Fields) leaf() leaf.Leaf {
	l := leaf.Leaf{Kind: f.Kind, NamespaceID: f.NamespaceID, Version: f.Version, VersionCount: f.VersionCount, Digest: f.Digest}
	if f.RegistryID != nil {
		l.RegistryID = *f.RegistryID
	}
	if f.RecordID != nil {
		l.RecordID = *f.RecordID
	}
	return l
}

// The files' shapes.
type (
	leavesFile struct {
		Comment string        `json:"comment"`
		Leaves  []leafVector  `json:"leaves"`
		Invalid []invalidLeaf `json:"invalid"`
	}
	leafVector struct {
		Name      string `json:"name"`
		Fields    Fields `json:"fields"`
		Canonical string `json:"canonical"`
		LeafHash  []byte `json:"leaf_hash"`
	}
	invalidLeaf struct {
		Name string `json:"name"`
		Text string `json:"text"`
	}
	treeFile struct {
		Comment     string          `json:"comment"`
		Leaves      []string        `json:"leaves"`
		Roots       []rootVector    `json:"roots"`
		Inclusion   []inclusionPath `json:"inclusion"`
		Consistency []consistency   `json:"consistency"`
	}
	rootVector struct {
		Size     int64  `json:"size"`
		RootHash []byte `json:"root_hash"`
	}
	inclusionPath struct {
		Index  int64    `json:"index"`
		Size   int64    `json:"size"`
		Hashes [][]byte `json:"hashes"`
	}
	consistency struct {
		OldSize int64    `json:"old_size"`
		NewSize int64    `json:"new_size"`
		Hashes  [][]byte `json:"hashes"`
	}
	checkpointsFile struct {
		Comment     string            `json:"comment"`
		Keys        map[string]key    `json:"keys"`
		Checkpoints []checkpointCase  `json:"checkpoints"`
		Inclusion   []inclusionCase   `json:"inclusion_proofs"`
		Consistency []consistencyCase `json:"consistency_proofs"`
	}
	key struct {
		SignerKey   string `json:"signer_key"`
		VerifierKey string `json:"verifier_key"`
	}
	checkpointCase struct {
		Name        string `json:"name"`
		VerifierKey string `json:"verifier_key"`
		Signed      string `json:"signed"`
		OK          bool   `json:"ok"`
		Origin      string `json:"origin,omitempty"`
		Size        *int64 `json:"size,omitempty"`
		RootHash    []byte `json:"root_hash,omitempty"`
	}
	inclusionCase struct {
		Name        string              `json:"name"`
		VerifierKey string              `json:"verifier_key"`
		Expected    Fields              `json:"expected_leaf"`
		Proof       leaf.InclusionProof `json:"proof"`
		OK          bool                `json:"ok"`
	}
	consistencyCase struct {
		Name          string   `json:"name"`
		VerifierKey   string   `json:"verifier_key"`
		OldCheckpoint string   `json:"old_checkpoint"`
		NewCheckpoint string   `json:"new_checkpoint"`
		Hashes        [][]byte `json:"hashes"`
		OK            bool     `json:"ok"`
	}
)

func str(s string) *string { return &s }

// hexOf is a 0x-prefixed SHA-256 of s: a stand-in for a version id or digest.
func hexOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return "0x" + hex.EncodeToString(h[:])
}

// leafCases are the leaf vectors: one of each kind as the service writes them, and edge values.
func leafCases() []leafVector {
	ns, reg, rec := "did:svc:HmjQXvZmGWGrnMiSxkhJKX", "9cLkRrK4tQp2Ug7Wd8Ts1e", "3vNQ8yEJxWmAcP5hZk2FbD"
	return []leafVector{
		{Name: "namespace", Fields: Fields{Kind: "namespace", NamespaceID: ns, Version: hexOf("v1"), VersionCount: 1, Digest: hexOf("d1")}},
		{Name: "registry", Fields: Fields{Kind: "registry", NamespaceID: ns, RegistryID: str(reg), Version: hexOf("v2"), VersionCount: 2, Digest: hexOf("d2")}},
		{Name: "record", Fields: Fields{Kind: "record", NamespaceID: ns, RegistryID: str(reg), RecordID: str(rec), Version: hexOf("v3"), VersionCount: 3, Digest: hexOf("d3")}},
		{Name: "namespace: registry_id and record_id are not members of a namespace leaf",
			Fields: Fields{Kind: "namespace", NamespaceID: ns, RegistryID: str(reg), RecordID: str(rec), Version: hexOf("v4"), VersionCount: 4, Digest: hexOf("d4")}},
		{Name: "registry: record_id is not a member of a registry leaf",
			Fields: Fields{Kind: "registry", NamespaceID: ns, RegistryID: str(reg), RecordID: str(rec), Version: hexOf("v5"), VersionCount: 5, Digest: hexOf("d5")}},
		{Name: "record: the largest version_count (2^53 - 1, the largest integer every JSON reader keeps exact)",
			Fields: Fields{Kind: "record", NamespaceID: ns, RegistryID: str(reg), RecordID: str(rec), Version: hexOf("v6"), VersionCount: 1<<53 - 1, Digest: hexOf("d6")}},
		{Name: "record: empty strings are written as they are",
			Fields: Fields{Kind: "record", NamespaceID: "", RegistryID: str(""), RecordID: str(""), Version: "", VersionCount: 1, Digest: ""}},
		{Name: "namespace: '\"' and '\\' are escaped; '/' is not",
			Fields: Fields{Kind: "namespace", NamespaceID: `a"b\c/d`, Version: hexOf("v7"), VersionCount: 1, Digest: hexOf("d7")}},
		{Name: "registry: control characters are \\b \\t \\n \\f \\r or \\u00xx in lowercase hex",
			Fields: Fields{Kind: "registry", NamespaceID: "\x00\x01\x08\x09\x0a\x0b\x0c\x0d\x1f", RegistryID: str("x\x1ey"), Version: hexOf("v8"), VersionCount: 1, Digest: hexOf("d8")}},
		{Name: "record: DEL, U+2028, U+2029, non-ASCII and a character beyond the BMP are written as UTF-8, not escaped",
			Fields: Fields{Kind: "record", NamespaceID: "\x7f\u2028\u2029", RegistryID: str("é ü ß 中文"), RecordID: str("😀 <&> \u00a0"), Version: hexOf("v9"), VersionCount: 10, Digest: hexOf("d9")}},
	}
}

// invalidCases are texts that are not canonical leaves: Parse refuses each.
func invalidCases(valid string) []invalidLeaf {
	ns := `{"digest":"0x00","kind":"namespace","namespace_id":"n","version":"0x01","version_count":%s}`
	return []invalidLeaf{
		{"whitespace between members", strings.Replace(valid, ",", ", ", 1)},
		{"members out of order", `{"kind":"namespace","digest":"0x00","namespace_id":"n","version":"0x01","version_count":1}`},
		{"an unknown member", `{"digest":"0x00","extra":1,"kind":"namespace","namespace_id":"n","version":"0x01","version_count":1}`},
		{"an unknown kind", `{"digest":"0x00","kind":"entry","namespace_id":"n","version":"0x01","version_count":1}`},
		{"version_count 0", fmt.Sprintf(ns, "0")},
		{"version_count negative", fmt.Sprintf(ns, "-1")},
		{"version_count 1.0", fmt.Sprintf(ns, "1.0")},
		{"version_count 1e0", fmt.Sprintf(ns, "1e0")},
		{"version_count as a string", fmt.Sprintf(ns, `"1"`)},
		{"version_count 2^53 + 1 (not a double)", fmt.Sprintf(ns, "9007199254740993")},
		{"a namespace leaf with registry_id", `{"digest":"0x00","kind":"namespace","namespace_id":"n","registry_id":"r","version":"0x01","version_count":1}`},
		{"a record leaf without record_id", `{"digest":"0x00","kind":"record","namespace_id":"n","registry_id":"r","version":"0x01","version_count":1}`},
		{"a record leaf without version", `{"digest":"0x00","kind":"record","namespace_id":"n","record_id":"x","registry_id":"r","version_count":1}`},
		{"an escape where none is needed (\\u0041 for A)", `{"digest":"0x00","kind":"namespace","namespace_id":"\u0041","version":"0x01","version_count":1}`},
		{"an escaped solidus", `{"digest":"0x00","kind":"namespace","namespace_id":"a\/b","version":"0x01","version_count":1}`},
		{"an uppercase hex escape", `{"digest":"0x00","kind":"namespace","namespace_id":"\u001F","version":"0x01","version_count":1}`},
		{"\\u000a for a newline", `{"digest":"0x00","kind":"namespace","namespace_id":"\u000a","version":"0x01","version_count":1}`},
		{"a trailing newline", valid + "\n"},
		{"not JSON", "leaf"},
		{"an array", "[]"},
	}
}

// zeros is a reader of one byte repeated: the seed of a test key.
type repeated byte

func (r repeated) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// testKey is a note key of name whose Ed25519 seed is 32 bytes of seed.
func testKey(t testing.TB, name string, seed byte) (key, note.Signer) {
	t.Helper()
	skey, vkey, err := note.GenerateKey(repeated(seed), name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return key{SignerKey: skey, VerifierKey: vkey}, s
}

// memTree is a tree of leaves in memory, hashed by tlog.
type memTree struct {
	leaves [][]byte
	hashes []tlog.Hash
}

func (m *memTree) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = m.hashes[x]
	}
	return out, nil
}

func (m *memTree) add(t testing.TB, text []byte) {
	hs, err := tlog.StoredHashes(int64(len(m.leaves)), text, m)
	if err != nil {
		t.Fatal(err)
	}
	m.leaves, m.hashes = append(m.leaves, text), append(m.hashes, hs...)
}

func (m *memTree) root(t testing.TB, n int64) tlog.Hash {
	h, err := tlog.TreeHash(n, m)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (m *memTree) inclusion(t testing.TB, idx, n int64) [][]byte {
	p, err := tlog.ProveRecord(n, idx, m)
	if err != nil {
		t.Fatal(err)
	}
	return hashBytes(p)
}

func (m *memTree) consistency(t testing.TB, old, n int64) [][]byte {
	if old == 0 || old == n {
		return [][]byte{}
	}
	p, err := tlog.ProveTree(n, old, m)
	if err != nil {
		t.Fatal(err)
	}
	return hashBytes(p)
}

func hashBytes(hs []tlog.Hash) [][]byte {
	out := make([][]byte, len(hs))
	for i, h := range hs {
		out[i] = bytes.Clone(h[:])
	}
	return out
}

// treeLeaves are the leaves of the vectors' tree: a small directory's log, in log order.
func treeLeaves(t testing.TB) []leaf.Leaf {
	t.Helper()
	ns := "did:svc:7TzQm4hYx2KcWn9RbVf3Ls"
	var out []leaf.Leaf
	counts := map[string]int64{}
	add := func(kind, reg, rec string) {
		id := kind + "/" + reg + "/" + rec
		counts[id]++
		n := len(out)
		out = append(out, leaf.Leaf{Kind: kind, NamespaceID: ns, RegistryID: reg, RecordID: rec,
			Version: hexOf(fmt.Sprint("tree version ", n)), VersionCount: counts[id], Digest: hexOf(fmt.Sprint("tree digest ", n))})
	}
	add("namespace", "", "")
	add("registry", "people", "")
	for i := range 6 {
		add("record", "people", fmt.Sprintf("person-%d", i%4))
	}
	add("namespace", "", "")
	add("registry", "places", "")
	for i := range 11 {
		add("record", []string{"people", "places"}[i%2], fmt.Sprintf("entry-%d", i%3))
	}
	return out
}
