package stateindex

import (
	"slices"
	"strconv"
	"testing"
)

// forgedMembership are membership proofs of record A (four leaves at the full size) that must
// be refused.
func forgedMembership(t testing.TB, builders []*Builder) []proofCase {
	n := len(builders) - 1
	k := IDKey(vRecA)
	p, list, err := builders[n].Prove(k)
	if err != nil || len(list) != 4 {
		t.Fatalf("record A: %v %v", list, err)
	}
	r := builders[n].Root()
	root, kv := r[:], keyVectorOf(t, k)
	c := func(name string, list []uint64, proof []byte) proofCase {
		return proofCase{Name: name, Size: n, Root: root, Key: kv, List: list, Proof: proof}
	}
	changed := p
	changed.Siblings = slices.Clone(p.Siblings)
	last := len(changed.Siblings) - 1
	changed.Siblings[last][0] ^= 0x01
	swapped := slices.Clone(list)
	swapped[3] = list[2] // the latest leaf swapped for an older one (and the list then repeats it)
	older := slices.Clone(list)
	older[3] = list[2] - 1
	p9, list9, _ := builders[9].Prove(k)
	return []proofCase{
		c("a changed sibling", list, changed.Encode()),
		c("a truncated list (the last leaf left out)", list[:3], p.Encode()),
		c("a truncated list (the first leaf left out)", list[1:], p.Encode()),
		c("the latest leaf swapped for the one before it", swapped, p.Encode()),
		c("the latest leaf swapped for an older index", older, p.Encode()),
		c("an extra leaf at the end", append(slices.Clone(list), 99), p.Encode()),
		c("the list at size 9, with its proof, against the root at full size (stale)", list9, p9.Encode()),
		c("the list at full size with the proof at size 9", list, p9.Encode()),
		c("the right key and list with another key's proof", list, mustProve(t, builders[n], IDKey(vRecB)).Encode()),
		c("a proof with the end byte of an absence proof", list, slices.Concat([]byte{EndEmpty}, p.Encode()[1:])),
		c("a proof cut short", list, p.Encode()[:len(p.Encode())-1]),
		c("an empty list", []uint64{}, p.Encode()),
	}
}

// forgedAbsence are absence proofs that must be refused, above all absence proofs of keys
// that are present.
func forgedAbsence(t testing.TB, builders []*Builder) []proofCase {
	n := len(builders) - 1
	r := builders[n].Root()
	root := r[:]
	c := func(name string, k Key, proof []byte) proofCase {
		return proofCase{Name: name, Size: n, Root: root, Key: keyVectorOf(t, k), Proof: proof}
	}
	var out []proofCase
	// Keys present now whose absence proofs at an earlier size were valid.
	for _, k := range []Key{IDKey(vNS2), IDKey(vRecB), PublisherKey("pub.example")} {
		if p := mustProve(t, builders[1], k); p.End != EndLeaf {
			out = append(out, c("a present key ("+k.String()+") with its absence proof at size 1", k, p.Encode()))
		}
	}
	a := IDKey(vRecA)
	pa := mustProve(t, builders[n], a)
	kh, _ := a.Hash()
	asEmpty, asOwn := pa, pa
	asEmpty.End = EndEmpty
	_, listA, _ := builders[n].Prove(a)
	asOwn.End, asOwn.Other = EndOther, OtherLeaf{KeyHash: kh, Count: uint64(len(listA)), ListRoot: ListRoot(listA)}
	out = append(out,
		c("a present key with its membership proof as an absence proof", a, pa.Encode()),
		c("a present key: its path, ending at an empty subtree", a, asEmpty.Encode()),
		c("a present key: its path, ending at an 'other' leaf that is its own key", a, asOwn.Encode()),
		c("a present key: another, absent key's absence proof", a, mustProve(t, builders[n], IDKey("did:svc:absent")).Encode()),
	)
	absent := IDKey("0193a1b2-0000-7000-8000-0000000000c3")
	p := mustProve(t, builders[n], absent)
	if len(p.Siblings) > 0 {
		f := p
		f.Siblings = slices.Clone(p.Siblings)
		f.Siblings[0][31] ^= 0x80
		out = append(out, c("an absent key's proof with a changed sibling", absent, f.Encode()))
		out = append(out, c("an absent key's proof with its path cut one level short", absent, Proof{End: EndEmpty, Siblings: p.Siblings[:len(p.Siblings)-1]}.Encode()))
	}
	k, p := searchKey(t, builders[n], func(p Proof) bool { return slices.Contains(p.Siblings, EmptyHash) })
	return append(out, c("a non-canonical encoding: "+k.String()+"'s proof with its empty siblings written out as zero bytes", k, encodeAll(p)))
}

// searchKey returns the first absent key id:absent-<i> whose proof in b has the property want.
func searchKey(t testing.TB, b *Builder, want func(Proof) bool) (Key, Proof) {
	for i := range 10000 {
		k := IDKey("absent-" + strconv.Itoa(i))
		if p := mustProve(t, b, k); p.End != EndLeaf && want(p) {
			return k, p
		}
	}
	t.Fatal("no key found")
	return Key{}, Proof{}
}

func mustProve(t testing.TB, b *Builder, k Key) Proof {
	p, _, err := b.Prove(k)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// extensionCases: record A's list from each earlier size to the full size, and forgeries.
func extensionCases(t testing.TB, builders []*Builder) []extCase {
	n := len(builders) - 1
	_, list, _ := builders[n].Prove(IDKey(vRecA))
	newRoot := ListRoot(list)
	var out []extCase
	for old := 1; old <= len(list); old++ {
		p, err := ProveExtension(list, old)
		if err != nil {
			t.Fatal(err)
		}
		oldRoot := ListRoot(list[:old])
		out = append(out, extCase{Name: "record A's list from " + itoa(old) + " to " + itoa(len(list)), OldCount: uint64(old), OldRoot: oldRoot[:],
			NewCount: uint64(len(list)), NewRoot: newRoot[:], Proof: hashBytes(p), OK: true})
	}
	p, _ := ProveExtension(list, 3)
	forged := ListRoot([]uint64{list[0], list[1], list[2] + 1})
	m := uint64(len(list))
	out = append(out,
		extCase{Name: "an old list that is not a prefix (its last index changed)", OldCount: 3, OldRoot: forged[:], NewCount: m, NewRoot: newRoot[:], Proof: hashBytes(p)},
		extCase{Name: "a list that shrank", OldCount: m, OldRoot: newRoot[:], NewCount: 3, NewRoot: listRootBytes(list[:3]), Proof: [][]byte{}},
		extCase{Name: "two lists of one length", OldCount: 3, OldRoot: forged[:], NewCount: 3, NewRoot: listRootBytes(list[:3]), Proof: [][]byte{}},
	)
	return out
}

func listRootBytes(l []uint64) []byte { r := ListRoot(l); return r[:] }

// encodeAll is Encode with every sibling written out, the empty ones as 32 zero bytes, and
// every bitmap bit up to the depth set: an encoding a decoder must refuse.
func encodeAll(p Proof) []byte {
	d := len(p.Siblings)
	out := []byte{p.End, byte(d >> 8), byte(d)}
	bitmap := make([]byte, (d+7)/8)
	for i := range d {
		bitmap[i/8] |= 0x80 >> uint(i%8)
	}
	out = append(out, bitmap...)
	for _, s := range p.Siblings {
		out = append(out, s[:]...)
	}
	return out
}

func hashBytes(hs []Hash) [][]byte {
	out := make([][]byte, len(hs))
	for i, h := range hs {
		out[i] = slices.Clone(h[:])
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
