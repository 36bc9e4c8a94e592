package stateindex

// Benchmarks at the scale: building the index of a log of 1,000,000 record leaves (one
// key each), and proving and verifying in it. Run with
//
//	go test ./translog/stateindex -run '^$' -bench . -benchtime 1x     (build)
//	go test ./translog/stateindex -run '^$' -bench 'Prove|Verify'      (proofs)
//
// -stateindex.keys sets the number of keys (1,000,000 by default).

import (
	"flag"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/svc-directory/svc/translog/leaf"
)

var benchKeys = flag.Int("stateindex.keys", 1_000_000, "benchmarks: the number of keys (record leaves) of the index")

func benchRecordID(i int) string { return fmt.Sprintf("0193a1b2-0000-7000-8000-%012x", i) }

// benchLeaves are the texts of n record leaves, each of another record.
func benchLeaves(b *testing.B, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		text, err := leaf.Leaf{Kind: leaf.KindRecord, NamespaceID: "did:svc:HmjQXvZmGWGrnMiSxkhJKX", RegistryID: "0193a1b2-0000-7000-8000-00000000000a",
			RecordID: benchRecordID(i), Version: vecHex(fmt.Sprint("v", i)), VersionCount: 1, Digest: vecHex(fmt.Sprint("d", i))}.Canonical()
		if err != nil {
			b.Fatal(err)
		}
		out[i] = text
	}
	return out
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkBuild builds the index of -stateindex.keys record leaves from their texts (parsing
// each) and reports the time per leaf and the heap the built index holds, per key.
func BenchmarkBuild(b *testing.B) {
	texts := benchLeaves(b, *benchKeys)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		before := heapInUse()
		store := NewMemStore()
		bl := NewBuilder(store)
		b.StartTimer()
		for _, text := range texts {
			if _, err := bl.Apply(text); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		nodes, keys := store.Len()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/leaf")
		b.ReportMetric(float64(heapInUse()-before)/float64(keys), "heap-B/key")
		b.ReportMetric(float64(nodes), "nodes")
		runtime.KeepAlive(store)
		b.StartTimer()
	}
}

var (
	benchOnce    sync.Once
	benchBuilder *Builder
)

func benchIndex(b *testing.B) *Builder {
	benchOnce.Do(func() {
		bl := NewBuilder(NewMemStore())
		for i := range *benchKeys {
			if _, err := bl.ApplyKeys([]Key{IDKey(benchRecordID(i))}); err != nil {
				b.Fatal(err)
			}
		}
		benchBuilder = bl
	})
	return benchBuilder
}

// BenchmarkProve proves the membership of keys of the index, and reports the proofs' mean
// size and depth.
func BenchmarkProve(b *testing.B) {
	bl := benchIndex(b)
	var size, depth, max int
	b.ResetTimer()
	for i := range b.N {
		p, _, err := bl.Prove(IDKey(benchRecordID(i % *benchKeys)))
		if err != nil || p.End != EndLeaf {
			b.Fatal(p, err)
		}
		n := len(p.Encode())
		size, depth, max = size+n, depth+len(p.Siblings), maxInt(max, n)
	}
	b.ReportMetric(float64(size)/float64(b.N), "proof-B")
	b.ReportMetric(float64(max), "max-proof-B")
	b.ReportMetric(float64(depth)/float64(b.N), "depth")
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// BenchmarkVerifyMembership verifies membership proofs (a list of one element) at the root of
// the index.
func BenchmarkVerifyMembership(b *testing.B) {
	bl := benchIndex(b)
	type c struct {
		k     Key
		list  []uint64
		proof []byte
	}
	cases := make([]c, 1024)
	for i := range cases {
		k := IDKey(benchRecordID(i * 977 % *benchKeys))
		p, list, err := bl.Prove(k)
		if err != nil {
			b.Fatal(err)
		}
		cases[i] = c{k, list, p.Encode()}
	}
	root := bl.Root()
	b.ResetTimer()
	for i := range b.N {
		x := cases[i%len(cases)]
		if err := VerifyMembership(root, x.k, x.list, x.proof); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyAbsence verifies absence proofs at the root of the index, and reports their
// mean size.
func BenchmarkVerifyAbsence(b *testing.B) {
	bl := benchIndex(b)
	keys := make([]Key, 1024)
	proofs := make([][]byte, len(keys))
	size := 0
	for i := range keys {
		keys[i] = IDKey(fmt.Sprint("absent-", i))
		p, _, err := bl.Prove(keys[i])
		if err != nil {
			b.Fatal(err)
		}
		proofs[i] = p.Encode()
		size += len(proofs[i])
	}
	root := bl.Root()
	b.ResetTimer()
	for i := range b.N {
		if err := VerifyAbsence(root, keys[i%len(keys)], proofs[i%len(keys)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size)/float64(len(keys)), "proof-B")
}
