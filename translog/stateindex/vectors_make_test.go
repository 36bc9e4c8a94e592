package stateindex

// The generator of the known-answer vectors in testdata/ (testdata/README.md describes them).
// Leaf texts are translog/leaf's; every root and proof is this package's, and
// TestVectors checks each one also by the definitions (refRoot, refListRoot). Regenerate with
//
//	go test ./translog/stateindex -run TestVectors -update
//
// and commit testdata/ (TestVectors fails while the committed file differs from what this file
// makes).

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/svc-directory/svc/translog/leaf"
)

type (
	vectorsFile struct {
		Comment    string       `json:"comment"`
		Leaves     []string     `json:"leaves"`
		Keys       []keyVector  `json:"keys"`
		Roots      []rootVector `json:"roots"`
		Membership []proofCase  `json:"membership"`
		Absence    []proofCase  `json:"absence"`
		Extension  []extCase    `json:"extension"`
		Latest     []latestCase `json:"latest"`
		Decoding   []decodeCase `json:"decoding"`
	}
	keyVector struct {
		Kind     string   `json:"kind"`
		Parts    []string `json:"parts"`
		Encoding []byte   `json:"encoding"`
		Hash     []byte   `json:"hash"`
	}
	rootVector struct {
		Size int    `json:"size"`
		Root []byte `json:"root"`
	}
	proofCase struct {
		Name  string    `json:"name"`
		Size  int       `json:"size"`
		Root  []byte    `json:"root"`
		Key   keyVector `json:"key"`
		List  []uint64  `json:"list"` // null in absence cases
		Proof []byte    `json:"proof"`
		OK    bool      `json:"ok"`
	}
	extCase struct {
		Name     string   `json:"name"`
		OldCount uint64   `json:"old_count"`
		OldRoot  []byte   `json:"old_root"`
		NewCount uint64   `json:"new_count"`
		NewRoot  []byte   `json:"new_root"`
		Proof    [][]byte `json:"proof"`
		OK       bool     `json:"ok"`
	}
)

func vecHex(s string) string { h := sha256.Sum256([]byte(s)); return "0x" + hex.EncodeToString(h[:]) }

// The vectors' ids.
const (
	vNS1  = "did:svc:HmjQXvZmGWGrnMiSxkhJKX"
	vNS2  = "did:svc:7TzQm4hYx2KcWn9RbVf3Ls"
	vReg  = "0193a1b2-0000-7000-8000-00000000000a"
	vRecA = "0193a1b2-0000-7000-8000-0000000000a1"
	vRecB = "0193a1b2-0000-7000-8000-0000000000b2"
)

// vectorLeaves is a small directory's log: two namespaces, a registry, two records (one
// updated four times), a DeDi publisher's two key changes, a domain gained, lost and
// gained by another namespace, and two state leaves (which name no key).
func vectorLeaves(t testing.TB) []string {
	var out []string
	add := func(l interface{ Canonical() ([]byte, error) }) {
		b, err := l.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	version := func(kind, ns, reg, rec string, count int64) leaf.Leaf {
		n := len(out)
		return leaf.Leaf{Kind: kind, NamespaceID: ns, RegistryID: reg, RecordID: rec, Version: vecHex(fmt.Sprint("version ", n)),
			VersionCount: count, Digest: vecHex(fmt.Sprint("digest ", n))}
	}
	at := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	domain := func(ns, method, change string, minutes int) leaf.DomainLeaf {
		return leaf.DomainLeaf{Domain: "example.org", NamespaceID: ns, Method: method, Change: change, Time: leaf.DomainTime(at.Add(time.Duration(minutes) * time.Minute))}
	}
	keys := func(updated string, kids ...string) leaf.KeysLeaf {
		l := leaf.KeysLeaf{Domain: "pub.example", UpdatedAt: updated, Digest: vecHex("key set " + updated)}
		for _, k := range kids {
			l.Keys = append(l.Keys, leaf.Key{Kid: k, Kty: "OKP", Crv: "Ed25519", X: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})
		}
		return l
	}
	// state commits the index of the leaves so far, as the integrator's state leaves do.
	state := func(minutes int) leaf.StateLeaf {
		b := NewBuilder(NewMemStore())
		for _, text := range out {
			if _, err := b.Apply([]byte(text)); err != nil {
				t.Fatal(err)
			}
		}
		return leaf.StateLeaf{Root: b.Root(), Size: int64(len(out)), Time: at.Add(time.Duration(minutes) * time.Minute).UnixMilli()}
	}
	add(version(leaf.KindNamespace, vNS1, "", "", 1))
	add(version(leaf.KindRegistry, vNS1, vReg, "", 1))
	add(version(leaf.KindRecord, vNS1, vReg, vRecA, 1))
	add(domain(vNS1, leaf.MethodSelfDNS, leaf.DomainGained, 1))
	add(version(leaf.KindRecord, vNS1, vReg, vRecB, 1))
	add(version(leaf.KindRecord, vNS1, vReg, vRecA, 2))
	add(keys("2026-11-22T08:00:00.000Z", "key-2026"))
	add(state(2))
	add(version(leaf.KindNamespace, vNS2, "", "", 1))
	add(version(leaf.KindRecord, vNS1, vReg, vRecA, 4)) // version 3 was a draft
	add(version(leaf.KindNamespace, vNS1, "", "", 2))
	add(domain(vNS1, leaf.MethodSelfDNS, leaf.DomainLost, 30))
	add(domain(vNS2, leaf.MethodSelfHTTP, leaf.DomainGained, 31))
	add(keys("2026-12-01T09:30:00.000Z", "key-2026", "key-2027"))
	add(version(leaf.KindRecord, vNS1, vReg, vRecA, 5))
	add(version(leaf.KindRegistry, vNS1, vReg, "", 2))
	add(version(leaf.KindRecord, vNS1, vReg, vRecB, 2))
	add(state(40))
	return out
}

// vectorKeys are the keys the vectors prove: each key of the log, and absent ones (a name key,
// which no leaf names yet, among them).
func vectorKeys() (present, absent []Key) {
	present = []Key{IDKey(vNS1), IDKey(vNS2), IDKey(vReg), IDKey(vRecA), IDKey(vRecB), PublisherKey("pub.example"), DomainKey("example.org")}
	absent = []Key{IDKey("0193a1b2-0000-7000-8000-0000000000c3"), IDKey("did:svc:absent"), PublisherKey("example.org"),
		DomainKey("pub.example"), RegistryNameKey(vNS1, "people"), RecordNameKey(vNS1, "people", "alice")}
	return present, absent
}

func keyVectorOf(t testing.TB, k Key) keyVector {
	enc, err := k.Encode()
	if err != nil {
		t.Fatal(err)
	}
	h, _ := k.Hash()
	return keyVector{Kind: k.Kind.String(), Parts: k.Parts, Encoding: enc, Hash: h[:]}
}

func makeVectors(t testing.TB) vectorsFile {
	f := vectorsFile{Comment: "The state index of a small log: its leaves (in log order, leaf i has index i), the keys (kind, parts, " +
		"encoding, SHA-256 hash), the index root at every size, membership and absence proofs (ok: true) and forged ones (ok: false), " +
		"list extensions, compact latest-element proofs, and proof encodings a decoder accepts or refuses. Bytes are standard base64. See README.md and docs/state-index.md. " +
		"Generated by `go test ./translog/stateindex -run TestVectors -update`.",
		Leaves: vectorLeaves(t)}
	present, absent := vectorKeys()
	for _, k := range slices.Concat(present, absent) {
		f.Keys = append(f.Keys, keyVectorOf(t, k))
	}
	b := NewBuilder(NewMemStore())
	builders := []*Builder{}
	f.Roots = append(f.Roots, rootVector{0, EmptyHash[:]})
	for i, text := range f.Leaves {
		r, err := b.Apply([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		f.Roots = append(f.Roots, rootVector{i + 1, r[:]})
	}
	// Builders of each prefix, for proofs at earlier sizes.
	for n := 0; n <= len(f.Leaves); n++ {
		pb := NewBuilder(NewMemStore())
		for _, text := range f.Leaves[:n] {
			if _, err := pb.Apply([]byte(text)); err != nil {
				t.Fatal(err)
			}
		}
		builders = append(builders, pb)
	}
	prove := func(n int, k Key) (Proof, []uint64, []byte) {
		p, list, err := builders[n].Prove(k)
		if err != nil {
			t.Fatal(err)
		}
		r := builders[n].Root()
		return p, list, r[:]
	}
	full := len(f.Leaves)
	for _, n := range []int{full, 9, 1} {
		for _, k := range present {
			p, list, root := prove(n, k)
			if p.End != EndLeaf {
				continue
			}
			f.Membership = append(f.Membership, proofCase{Name: fmt.Sprintf("%s at size %d", k, n), Size: n, Root: root, Key: keyVectorOf(t, k), List: list, Proof: p.Encode(), OK: true})
		}
		for _, k := range slices.Concat(absent, present) {
			p, _, root := prove(n, k)
			if p.End == EndLeaf {
				continue
			}
			f.Absence = append(f.Absence, proofCase{Name: fmt.Sprintf("%s at size %d", k, n), Size: n, Root: root, Key: keyVectorOf(t, k), Proof: p.Encode(), OK: true})
		}
	}
	k, p := searchKey(t, builders[full], func(p Proof) bool { return p.End == EndEmpty })
	f.Absence = append(f.Absence, proofCase{Name: fmt.Sprintf("%s at size %d (its path ends at an empty subtree)", k, full), Size: full,
		Root: f.Roots[full].Root, Key: keyVectorOf(t, k), Proof: p.Encode(), OK: true})
	f.Absence = append(f.Absence, proofCase{Name: "any key in the empty index (size 0)", Size: 0, Root: EmptyHash[:], Key: keyVectorOf(t, IDKey(vNS1)), Proof: Proof{End: EndEmpty}.Encode(), OK: true})
	f.Membership = append(f.Membership, forgedMembership(t, builders)...)
	f.Absence = append(f.Absence, forgedAbsence(t, builders)...)
	f.Extension = extensionCases(t, builders)
	f.Latest = latestCases(t, builders)
	f.Decoding = decodingCases(t, builders[full])
	return f
}
