package stateindex

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"testing"
)

// decodeCase is a proof's bytes and whether DecodeProof accepts them: what the SDKs' decoders
// must refuse exactly as this one does (docs/state-index.md, "Proofs").
type decodeCase struct {
	Name  string `json:"name"`
	Proof []byte `json:"proof"`
	OK    bool   `json:"ok"`
}

// decodingCases: canonical encodings of each end (a multi-byte bitmap and the deepest path
// among them), and each encoding the writer would not make, derived from real proofs.
func decodingCases(t testing.TB, b *Builder) []decodeCase {
	member := mustProve(t, b, IDKey(vRecA)).Encode()
	_, other := searchKey(t, b, func(p Proof) bool { return p.End == EndOther && len(p.Siblings) > 0 })
	_, empty := searchKey(t, b, func(p Proof) bool { return p.End == EndEmpty })
	h := Hash(sha256.Sum256([]byte("a sibling")))
	deep := Proof{End: EndEmpty, Siblings: make([]Hash, 9)}
	deep.Siblings[8] = h
	full := Proof{End: EndLeaf, Siblings: make([]Hash, 256)}
	full.Siblings[255] = h
	cat := func(bs ...[]byte) []byte { return slices.Concat(bs...) }
	set := func(b []byte, i int, v byte) []byte { c := slices.Clone(b); c[i] = v; return c }
	d := int(member[1])<<8 | int(member[2])
	if d == 0 || d%8 == 0 {
		t.Fatalf("record A's path is %d deep: the vectors need a bitmap with unused bits", d)
	}
	return []decodeCase{
		{"a membership proof", member, true},
		{"an absence proof ending at another key's leaf", other.Encode(), true},
		{"an absence proof ending at an empty subtree", empty.Encode(), true},
		{"the proof of the empty index (depth 0)", []byte{EndEmpty, 0, 0}, true},
		{"a path of depth 9 (a bitmap of two bytes, its one sibling the deepest)", deep.Encode(), true},
		{"a path of depth 256 (the greatest), one sibling", full.Encode(), true},
		{"no bytes", []byte{}, false},
		{"two bytes", []byte{EndLeaf, 0}, false},
		{"an unknown end (0x03)", set(member, 0, 0x03), false},
		{"an unknown end (0xff)", set(member, 0, 0xff), false},
		{"a depth of 257", cat([]byte{EndEmpty, 0x01, 0x01}, make([]byte, 33)), false},
		{"a depth of 65535", []byte{EndEmpty, 0xff, 0xff}, false},
		{"a proof that ends in its bitmap", deep.Encode()[:4], false},
		{"a bitmap bit past the depth", set(member, 3, member[3]|0x80>>uint(d)), false},
		{"the last bitmap bit past the depth", set(member, 3, member[3]|0x01), false},
		{"an empty sibling written out as 32 zero bytes", encodeAll(Proof{End: EndLeaf, Siblings: []Hash{{}, h}}), false},
		{"a proof that ends in a sibling", member[:len(member)-1], false},
		{"a proof that ends in the other key's leaf", other.Encode()[:len(other.Encode())-1], false},
		{"a byte after a membership proof", cat(member, []byte{0}), false},
		{"a byte after the empty index's proof", []byte{EndEmpty, 0, 0, 0}, false},
		{"another key's leaf after a membership proof", cat(member, other.Encode()[len(other.Encode())-72:]), false},
		{"another key's leaf after a proof ending at an empty subtree", cat(empty.Encode(), other.Encode()[len(other.Encode())-72:]), false},
		{"a byte after an absence proof ending at another key's leaf", cat(other.Encode(), []byte{0}), false},
	}
}

// checkDecoding: DecodeProof gives each case's verdict, and what it accepts encodes back.
func checkDecoding(t *testing.T, cs []decodeCase) {
	ok := 0
	for _, c := range cs {
		p, err := DecodeProof(c.Proof)
		if (err == nil) != c.OK {
			t.Errorf("decoding %s: %v, want ok %v", c.Name, err, c.OK)
		}
		if err == nil {
			ok++
			if !bytes.Equal(p.Encode(), c.Proof) {
				t.Errorf("decoding %s: encodes back as %x", c.Name, p.Encode())
			}
		}
	}
	if ok < 5 || len(cs)-ok < 15 {
		t.Errorf("%d decoding cases, %d ok", len(cs), ok)
	}
}
