package stateindex

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// refRoot is the index root by the definition, from scratch: the canonical tree of the keys'
// leaves (a subtree of no key is EmptyHash, of one key its leaf hash, of more NodeHash of its
// halves), with no store and no incremental update.
func refRoot(lists map[Hash][]uint64) Hash {
	type kv struct {
		k Hash
		v Hash
	}
	var all []kv
	for k, l := range lists {
		all = append(all, kv{k, LeafHash(k, uint64(len(l)), refListRoot(l))})
	}
	var rec func(items []kv, depth int) Hash
	rec = func(items []kv, depth int) Hash {
		switch len(items) {
		case 0:
			return EmptyHash
		case 1:
			return items[0].v
		}
		var l, r []kv
		for _, it := range items {
			if it.k[depth/8]>>(7-uint(depth%8))&1 == 0 {
				l = append(l, it)
			} else {
				r = append(r, it)
			}
		}
		return NodeHash(rec(l, depth+1), rec(r, depth+1))
	}
	return rec(all, 0)
}

// refListRoot is RFC 6962's MTH of a list by its recursive definition (split at the largest
// power of two below n), hashed with crypto/sha256 directly.
func refListRoot(l []uint64) Hash {
	if len(l) == 1 {
		b := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0}
		for i := range 8 {
			b[1+i] = byte(l[0] >> (56 - 8*uint(i)))
		}
		return sha256.Sum256(b)
	}
	k := 1
	for k*2 < len(l) {
		k *= 2
	}
	a, b := refListRoot(l[:k]), refListRoot(l[k:])
	return sha256.Sum256(slices.Concat([]byte{1}, a[:], b[:]))
}

// randomLog applies n leaves, each naming one of keys keys (some named many times, some twice
// in one leaf), and checks the root after each against refRoot.
func TestBuilderMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := NewBuilder(NewMemStore())
	lists := map[Hash][]uint64{}
	if b.Root() != EmptyHash {
		t.Fatal("the root of an empty index is not EmptyHash")
	}
	for i := range 600 {
		var keys []Key
		for range 1 + r.IntN(3) {
			keys = append(keys, IDKey(fmt.Sprint("id-", r.IntN(150))))
		}
		got, err := b.ApplyKeys(keys)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[Hash]bool{}
		for _, k := range keys {
			h, _ := k.Hash()
			if !seen[h] {
				lists[h] = append(lists[h], uint64(i))
				seen[h] = true
			}
		}
		if want := refRoot(lists); got != want || b.Root() != want || b.Size() != uint64(i+1) {
			t.Fatalf("size %d: root %x, want %x", i+1, got, want)
		}
	}
}

// TestBuilderOrderOfKeys: the root depends on the lists, not on the order keys came in.
func TestBuilderOrderOfKeys(t *testing.T) {
	a, b := NewBuilder(NewMemStore()), NewBuilder(NewMemStore())
	for i := range 200 {
		k1, k2 := IDKey(fmt.Sprint("x", i)), PublisherKey(fmt.Sprint("p", i%7, ".example"))
		ra, _ := a.ApplyKeys([]Key{k1, k2})
		rb, _ := b.ApplyKeys([]Key{k2, k1})
		if ra != rb {
			t.Fatalf("size %d: %x != %x", i+1, ra, rb)
		}
	}
}

// TestKeysAreDistinct: keys whose strings join alike, or of different kinds, encode apart.
func TestKeysAreDistinct(t *testing.T) {
	keys := []Key{IDKey("a"), PublisherKey("a"), DomainKey("a"), RegistryNameKey("a/b", "c"), RegistryNameKey("a", "b/c"),
		RecordNameKey("a", "b", "c"), RecordNameKey("a", "bc", "d"), IDKey("a\x00")}
	seen := map[Hash]Key{}
	for _, k := range keys {
		h, err := k.Hash()
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := seen[h]; ok {
			t.Errorf("%v and %v have one hash", k, o)
		}
		seen[h] = k
	}
	for _, bad := range []Key{IDKey(""), {KindID, []string{"a", "b"}}, {0x09, []string{"a"}}, IDKey("\xff"), RegistryNameKey("a", "")} {
		if _, err := bad.Encode(); err == nil {
			t.Errorf("%#v encodes", bad)
		}
	}
	enc, _ := RecordNameKey("ns", "reg", "é").Encode()
	if want := "\x03\x00\x02ns\x00\x03reg\x00\x02é"; string(enc) != want {
		t.Errorf("encoding %q, want %q", enc, want)
	}
}

func TestListExtension(t *testing.T) {
	list := []uint64{3, 9, 10, 40, 41, 77, 100}
	for old := 1; old <= len(list); old++ {
		p, err := ProveExtension(list, old)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyExtension(uint64(old), ListRoot(list[:old]), uint64(len(list)), ListRoot(list), p); err != nil {
			t.Errorf("extension %d -> %d: %v", old, len(list), err)
		}
		if ListRoot(list[:old]) != refListRoot(list[:old]) {
			t.Errorf("ListRoot of %d differs from RFC 6962's definition", old)
		}
		// The old list with its last element swapped for an older one is not a prefix.
		if old > 1 {
			forged := slices.Clone(list[:old])
			forged[old-1] = forged[old-2] - 1
			if err := VerifyExtension(uint64(old), ListRoot(forged), uint64(len(list)), ListRoot(list), p); err == nil {
				t.Errorf("extension from a forged list of %d verified", old)
			}
		}
	}
	p, _ := ProveExtension(list, 3)
	if err := VerifyExtension(5, ListRoot(list[:5]), 3, ListRoot(list[:3]), p); err == nil {
		t.Error("a list that shrank verified")
	}
	if err := VerifyExtension(3, ListRoot(list[:3]), 3, ListRoot([]uint64{3, 9, 11}), nil); err == nil {
		t.Error("two lists of one length verified")
	}
}
