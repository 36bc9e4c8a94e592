package stateindex

import (
	"golang.org/x/mod/sumdb/tlog"
)

// The compact form of a membership proof, for a key of a long list: instead of the whole
// list, its length, its root and its last element, with the RFC 6962 inclusion proof of that
// element in the list's tree. It shows that the key's list has count elements and that the
// latest of them is latest, in about log2(count) more hashes.

// ProveLatest returns the RFC 6962 inclusion proof of the last element of list in the list's
// tree (empty for a list of one).
func ProveLatest(list []uint64) ([]Hash, error) {
	if len(list) == 0 {
		return nil, refuse("an empty list has no latest element")
	}
	l, err := hashesOf(list)
	if err != nil {
		return nil, err
	}
	p, err := tlog.ProveRecord(int64(len(list)), int64(len(list)-1), l)
	if err != nil {
		return nil, err
	}
	out := make([]Hash, len(p))
	for i, h := range p {
		out[i] = Hash(h)
	}
	return out, nil
}

// VerifyLatest checks that in the index of root, key's list has count elements, its RFC 6962
// root is listRoot, and its last element is latest: listProof is that element's inclusion
// proof in the list's tree (ProveLatest) and proof the key's encoded membership proof.
func VerifyLatest(root Hash, key Key, count uint64, listRoot Hash, latest uint64, listProof []Hash, proof []byte) error {
	kh, err := key.Hash()
	if err != nil {
		return refuse("%v", err)
	}
	if count == 0 || count > 1<<62 {
		return refuse("a list of %d elements", count)
	}
	p := make(tlog.RecordProof, len(listProof))
	for i, h := range listProof {
		p[i] = tlog.Hash(h)
	}
	if err := tlog.CheckRecord(p, int64(count), tlog.Hash(listRoot), int64(count-1), tlog.Hash(elementHash(latest))); err != nil {
		return refuse("log index %d is not element %d of the list of %s: %v", latest, count, key, err)
	}
	mp, err := DecodeProof(proof)
	if err != nil {
		return err
	}
	if mp.End != EndLeaf {
		return refuse("the proof of %s is an absence proof, not a membership proof", key)
	}
	got, err := mp.root(kh, LeafHash(kh, count, listRoot))
	if err != nil {
		return err
	}
	if got != root {
		return refuse("the path of %s with a list of %d (latest %d) leads to root %x, not %x", key, count, latest, got, root)
	}
	return nil
}
