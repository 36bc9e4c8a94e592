package stateindex

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// smallIndex is an index of n leaves over keys ids (leaf i names id-(i*7 % keys)).
func smallIndex(t testing.TB, n, keys int) *Builder {
	t.Helper()
	b := NewBuilder(NewMemStore())
	for i := range n {
		if _, err := b.ApplyKeys([]Key{IDKey(fmt.Sprint("id-", i*7%keys))}); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func TestProofsVerify(t *testing.T) {
	for _, keys := range []int{1, 2, 3, 50} {
		b := smallIndex(t, 3*keys, keys)
		root := b.Root()
		for i := range keys {
			k := IDKey(fmt.Sprint("id-", i))
			p, list, err := b.Prove(k)
			if err != nil || p.End != EndLeaf || len(list) != 3 {
				t.Fatalf("%v: %+v %v %v", k, p, list, err)
			}
			if err := VerifyMembership(root, k, list, p.Encode()); err != nil {
				t.Errorf("%d keys, %v: %v", keys, k, err)
			}
			d, err := DecodeProof(p.Encode())
			if err != nil || !slices.Equal(d.Siblings, p.Siblings) || d.End != p.End {
				t.Errorf("decode(encode) = %+v, %v", d, err)
			}
		}
		ends := map[byte]int{}
		for i := range 200 {
			k := IDKey(fmt.Sprint("absent-", i))
			p, list, err := b.Prove(k)
			if err != nil || list != nil || p.End == EndLeaf {
				t.Fatalf("%v: %+v %v %v", k, p, list, err)
			}
			ends[p.End]++
			if err := VerifyAbsence(root, k, p.Encode()); err != nil {
				t.Errorf("%d keys, %v: %v", keys, k, err)
			}
		}
		if keys >= 50 && (ends[EndEmpty] == 0 || ends[EndOther] == 0) {
			t.Errorf("%d keys: absence proofs end %v; want both kinds", keys, ends)
		}
	}
	var empty Builder
	empty.store = NewMemStore()
	p, _, _ := empty.Prove(IDKey("x"))
	if err := VerifyAbsence(EmptyHash, IDKey("x"), p.Encode()); err != nil || p.End != EndEmpty {
		t.Errorf("absence in the empty index: %+v %v", p, err)
	}
}

// TestForgedProofs: every forgery of the list is refused, with ErrProof.
func TestForgedProofs(t *testing.T) {
	b := smallIndex(t, 400, 100) // four leaves per key
	root := b.Root()
	k := IDKey("id-42")
	p, list, err := b.Prove(k)
	if err != nil || len(list) != 4 {
		t.Fatal(list, err)
	}
	enc := p.Encode()
	refused := func(name string, err error) {
		t.Helper()
		if !errors.Is(err, ErrProof) {
			t.Errorf("%s: %v, want ErrProof", name, err)
		}
	}
	// A changed sibling: each non-empty sibling with one bit flipped.
	for i, s := range p.Siblings {
		if s == EmptyHash {
			continue
		}
		f := p
		f.Siblings = slices.Clone(p.Siblings)
		f.Siblings[i][5] ^= 1
		refused(fmt.Sprint("sibling ", i, " changed"), VerifyMembership(root, k, list, f.Encode()))
	}
	// An empty sibling made non-empty, and a non-empty one dropped (its bitmap bit cleared).
	for i, s := range p.Siblings {
		f := p
		f.Siblings = slices.Clone(p.Siblings)
		if s == EmptyHash {
			f.Siblings[i] = Hash{1}
		} else {
			f.Siblings[i] = EmptyHash
		}
		refused(fmt.Sprint("sibling ", i, " emptied or filled"), VerifyMembership(root, k, list, f.Encode()))
	}
	refused("a truncated list", VerifyMembership(root, k, list[:3], enc))
	refused("the list without its first element", VerifyMembership(root, k, list[1:], enc))
	swapped := slices.Clone(list)
	swapped[3] = list[2] - 1 // the latest leaf swapped for an older one
	refused("the latest leaf swapped for an older one", VerifyMembership(root, k, swapped, enc))
	refused("an extra leaf", VerifyMembership(root, k, append(slices.Clone(list), list[3]+1), enc))
	refused("a list out of order", VerifyMembership(root, k, []uint64{list[1], list[0], list[2], list[3]}, enc))
	refused("another key's proof", VerifyMembership(root, IDKey("id-43"), list, enc))
	refused("a membership proof as an absence proof", VerifyAbsence(root, k, enc))
	refused("an empty list", VerifyMembership(root, k, nil, enc))

	// A stale root: the proof at 400 leaves against the root at 401, after the key's next leaf.
	if _, err := b.ApplyKeys([]Key{k}); err != nil {
		t.Fatal(err)
	}
	refused("the old list against the new root", VerifyMembership(b.Root(), k, list, enc))
	p2, list2, _ := b.Prove(k)
	if err := VerifyMembership(b.Root(), k, list2, p2.Encode()); err != nil || len(list2) != 5 {
		t.Fatalf("after the key's next leaf: %v %v", list2, err)
	}
	root = b.Root()

	// Non-membership proofs for a present key: an empty end at the key's leaf's place, another
	// key's leaf standing for it (with its own hash, or a neighbour's), a truncated path.
	kh, _ := k.Hash()
	f := p2
	f.End = EndEmpty
	refused("an empty end where the key's leaf is", VerifyAbsence(root, k, f.Encode()))
	f.End = EndOther
	f.Other = OtherLeaf{KeyHash: kh, Count: 5, ListRoot: ListRoot(list2)}
	refused("an 'other' leaf that is the key's own", VerifyAbsence(root, k, f.Encode()))
	other := kh
	other[31] ^= 1
	f.Other = OtherLeaf{KeyHash: other, Count: 5, ListRoot: ListRoot(list2)}
	refused("an 'other' leaf with the key's list", VerifyAbsence(root, k, f.Encode()))
	for cut := range len(p2.Siblings) {
		f := Proof{End: EndEmpty, Siblings: p2.Siblings[:cut]}
		refused(fmt.Sprint("a path cut at ", cut), VerifyAbsence(root, k, f.Encode()))
	}
	// An absence proof of another, absent key, shown for the present one.
	pa, _, _ := b.Prove(IDKey("absent"))
	refused("another key's absence proof", VerifyAbsence(root, k, pa.Encode()))
}

// TestDecodeRefusesNonCanonical: only the bytes Encode writes decode.
func TestDecodeRefusesNonCanonical(t *testing.T) {
	b := smallIndex(t, 60, 60)
	p, _, _ := b.Prove(IDKey("id-1"))
	enc := p.Encode()
	var pa Proof
	for i := 0; pa.End != EndOther; i++ {
		pa, _, _ = b.Prove(IDKey(fmt.Sprint("absent-", i)))
	}
	encOther := pa.Encode()
	bad := map[string][]byte{
		"empty":               {},
		"unknown end":         append([]byte{3}, enc[1:]...),
		"depth 257":           {0, 1, 1},
		"a byte more":         append(slices.Clone(enc), 0),
		"a byte less":         enc[:len(enc)-1],
		"other leaf cut":      encOther[:len(encOther)-1],
		"a zero sibling":      slices.Concat([]byte{0, 0, 1, 0x80}, make([]byte, 32)),
		"a bit past depth":    {0, 0, 1, 0x40},
		"bitmap missing":      {0, 0, 9, 0},
		"sibling missing":     {0, 0, 1, 0x80},
		"membership as other": append(slices.Clone(enc[:1]), bytes.Repeat([]byte{1}, 10)...),
	}
	for name, b := range bad {
		if _, err := DecodeProof(b); !errors.Is(err, ErrProof) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestRefusalReasons: the checks of a path's form refuse, each for its own reason, proofs that
// no canonical tree holds (they would also fail at the root, as no such node is in the tree).
func TestRefusalReasons(t *testing.T) {
	b := smallIndex(t, 200, 200)
	root := b.Root()
	k := IDKey("id-7")
	p, list, _ := b.Prove(k)
	var other Proof
	var absent Key
	for i := 0; other.End != EndOther || len(other.Siblings) == 0; i++ {
		absent = IDKey(fmt.Sprint("absent-", i))
		other, _, _ = b.Prove(absent)
	}
	want := func(name string, err error, reason string) {
		t.Helper()
		if !errors.Is(err, ErrProof) || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: %v, want %q", name, err, reason)
		}
	}
	deeper := p
	deeper.Siblings = append(slices.Clone(p.Siblings), EmptyHash)
	want("a path one level deeper, beside an empty subtree", VerifyMembership(root, k, list, deeper.Encode()), "deepest sibling")
	off := other
	off.Other.KeyHash[0] ^= 0x80
	want("an 'other' leaf off the key's path", VerifyAbsence(root, absent, off.Encode()), "not on the path")
	zero := other
	zero.Other.Count = 0
	want("an 'other' leaf with an empty list", VerifyAbsence(root, absent, zero.Encode()), "empty list")
}
