package stateindex

import (
	"fmt"
	"slices"
	"testing"
)

// latestCase is a compact membership proof (VerifyLatest).
type latestCase struct {
	Name      string    `json:"name"`
	Size      int       `json:"size"`
	Root      []byte    `json:"root"`
	Key       keyVector `json:"key"`
	Count     uint64    `json:"count"`
	ListRoot  []byte    `json:"list_root"`
	Latest    uint64    `json:"latest"`
	ListProof [][]byte  `json:"list_proof"`
	Proof     []byte    `json:"proof"`
	OK        bool      `json:"ok"`
}

// latestCases: the compact proof of each present key at the full size, and forgeries of
// record A's.
func latestCases(t testing.TB, builders []*Builder) []latestCase {
	n := len(builders) - 1
	r := builders[n].Root()
	present, _ := vectorKeys()
	var out, forged []latestCase
	var a latestCase
	for _, k := range present {
		p, list, err := builders[n].Prove(k)
		if err != nil || p.End != EndLeaf {
			t.Fatal(k, err)
		}
		lp, err := ProveLatest(list)
		if err != nil {
			t.Fatal(err)
		}
		lr := ListRoot(list)
		c := latestCase{Name: fmt.Sprintf("%s at size %d: %d leaves, the latest %d", k, n, len(list), list[len(list)-1]), Size: n, Root: r[:],
			Key: keyVectorOf(t, k), Count: uint64(len(list)), ListRoot: lr[:], Latest: list[len(list)-1], ListProof: hashBytes(lp), Proof: p.Encode(), OK: true}
		out = append(out, c)
		if k.Parts[0] == vRecA {
			a = c
			a.OK = false
			a.ListProof = slices.Clone(c.ListProof)
			_, listA, _ := builders[n].Prove(k)
			swapped, short, changed := a, a, a
			swapped.Name, swapped.Latest = "record A with its latest leaf swapped for the one before it", listA[len(listA)-2]
			short.Name, short.Count = "record A with a count one short", a.Count-1
			changed.Name, changed.ListProof = "record A with a changed list proof", [][]byte{append([]byte{a.ListProof[0][0] ^ 1}, a.ListProof[0][1:]...)}
			changed.ListProof = append(changed.ListProof, a.ListProof[1:]...)
			forged = append(forged, swapped, short, changed)
		}
	}
	return append(out, forged...)
}
