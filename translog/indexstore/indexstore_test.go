package indexstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/stateindex"
)

func hexOf(s string) string { h := sha256.Sum256([]byte(s)); return "0x" + hex.EncodeToString(h[:]) }

// recordLeaves returns the leaf texts of n versions of records of one registry: each leaf a
// new record or the next version of one already there (about a third), at random.
func recordLeaves(n int, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 1))
	counts := map[int]int64{}
	var out [][]byte
	for i := 0; i < n; i++ {
		rec := len(counts)
		if rec > 0 && r.IntN(3) == 0 {
			rec = r.IntN(len(counts))
		}
		counts[rec]++
		l := leaf.Leaf{Kind: leaf.KindRecord, NamespaceID: "did:svc:HmjQXvZmGWGrnMiSxkhJKX", RegistryID: "0193a1b2-0000-7000-8000-00000000000a",
			RecordID: fmt.Sprintf("0193a1b2-0000-7000-8000-%012x", rec), Version: "0x" + hexOf(fmt.Sprint("v", i))[2:34],
			VersionCount: counts[rec], Digest: hexOf(fmt.Sprint("d", i))}
		text, err := l.Canonical()
		if err != nil {
			panic(err) // the ids and hashes are valid UTF-8
		}
		out = append(out, text)
	}
	return out
}

func open(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(dir, Options{CacheBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The index built on disk, through overlays committed every few leaves (and the store closed
// and opened again between some of them), has the in-memory index's root at every commit, the
// same proofs and lists for every key, and each key's latest leaf text.
func TestSameIndexAsInMemory(t *testing.T) {
	leaves := recordLeaves(3000, 7)
	dir := t.TempDir()
	disk := open(t, dir)
	defer func() { disk.Close() }()
	mem := stateindex.NewBuilder(stateindex.NewMemStore())
	f := stateindex.NewFollower(disk)
	for i := 0; i < len(leaves); {
		ov := stateindex.NewOverlay(disk)
		of := stateindex.ResumeFollower(ov, f.Size(), f.Root(), f.LastState)
		for end := min(len(leaves), i+1+i%97); i < end; i++ {
			if err := of.Apply(leaves[i]); err != nil {
				t.Fatal(err)
			}
			if _, err := mem.Apply(leaves[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := disk.Commit(ov, Meta{Size: of.Size(), Root: of.Root()}); err != nil {
			t.Fatal(err)
		}
		if n, k := ov.Len(); n+k != 0 {
			t.Fatalf("the overlay kept %d nodes and %d keys after its commit", n, k)
		}
		if of.Root() != mem.Root() {
			t.Fatalf("at %d leaves the disk index's root is %x, in memory %x", i, of.Root(), mem.Root())
		}
		if i%5 == 0 { // close and open again: it resumes from its Meta
			disk.Close()
			disk = open(t, dir)
		}
		m, ok := disk.Meta()
		if !ok || m.Size != uint64(i) || m.Root != mem.Root() {
			t.Fatalf("meta %+v %v at %d leaves", m, ok, i)
		}
		f = stateindex.ResumeFollower(disk, m.Size, m.Root, false)
	}
	for rec := 0; ; rec++ {
		key := stateindex.IDKey(fmt.Sprintf("0193a1b2-0000-7000-8000-%012x", rec))
		dp, dst, err := f.ProveKey(key)
		if err != nil {
			t.Fatal(err)
		}
		mp, mlist, err := mem.Prove(key)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(dp.Encode(), mp.Encode()) || !slices.Equal(dst.List, mlist) {
			t.Fatalf("record %d: the disk index proves %x %v, the memory one %x %v", rec, dp.Encode(), dst.List, mp.Encode(), mlist)
		}
		if len(mlist) == 0 {
			if rec < 100 {
				t.Fatalf("only %d records", rec)
			}
			break
		}
		if last := mlist[len(mlist)-1]; !bytes.Equal(dst.Latest, leaves[last]) {
			t.Fatalf("record %d: latest leaf text %q, want leaf %d %q", rec, dst.Latest, last, leaves[last])
		}
		if err := stateindex.VerifyMembership(mem.Root(), key, dst.List, dp.Encode()); err != nil {
			t.Fatal(err)
		}
	}
}

// The store is written only through Commit: a direct put is refused. A store of another
// format, or whose meta cannot be read, is wiped when opened; Wipe empties it.
func TestStoreRefusesAndWipes(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	if err := s.PutNode(stateindex.NodeID{}, stateindex.Node{}); err == nil {
		t.Fatal("a direct PutNode was taken")
	}
	if err := s.PutKey(stateindex.Hash{}, stateindex.KeyState{}); err == nil {
		t.Fatal("a direct PutKey was taken")
	}
	ov := stateindex.NewOverlay(s)
	f := stateindex.NewFollower(ov)
	for _, l := range recordLeaves(10, 1) {
		if err := f.Apply(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Commit(ov, Meta{Size: 10, Root: f.Root()}); err != nil {
		t.Fatal(err)
	}
	// Another format's meta: wiped at the next open.
	if err := s.db.Set(metaKey, []byte(`{"format":99,"size":10}`), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, dir)
	if _, ok := s.Meta(); ok {
		t.Fatal("a store of another format kept its meta")
	}
	if _, ok, _ := s.Node(stateindex.NodeID{}); ok {
		t.Fatal("a store of another format kept its nodes")
	}
	s.Close()
}

// A damaged value is an error that says so, never a node or a key.
func TestDecodeRefusesDamage(t *testing.T) {
	for _, v := range [][]byte{nil, {0}, append([]byte{2}, make([]byte, 32)...), append([]byte{1}, make([]byte, 32)...)} {
		if _, _, err := decodeNode(v); err == nil {
			t.Fatalf("node %x decoded", v)
		}
	}
	good := encodeKey(stateindex.KeyState{List: []uint64{3, 9}, Frontier: []stateindex.Hash{{1}}, Latest: []byte("x")})
	if st, ok, err := decodeKey(good); err != nil || !ok || !slices.Equal(st.List, []uint64{3, 9}) || string(st.Latest) != "x" {
		t.Fatalf("%+v %v %v", st, ok, err)
	}
	for _, v := range [][]byte{nil, {0}, {2, 3, 0}, {1, 3, 65}, good[:5]} {
		if _, _, err := decodeKey(v); err == nil {
			t.Fatalf("key %x decoded", v)
		}
	}
}
