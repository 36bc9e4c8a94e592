package stateindex

import (
	"encoding/binary"

	"golang.org/x/mod/sumdb/tlog"
)

// A key's list is the log indices of its leaves, in log order (strictly increasing). Its
// commitment is its length and its RFC 6962 Merkle tree hash, with SHA-256, in which element
// i is the 8 bytes of the index, big-endian: leaf hash SHA-256(0x00 || uint64be(index)), node
// hash SHA-256(0x01 || left || right), as the log's own tree.

// elementHash is the RFC 6962 leaf hash of a list element.
func elementHash(index uint64) Hash {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], index)
	return Hash(tlog.RecordHash(b[:]))
}

func node6962(l, r Hash) Hash { return Hash(tlog.NodeHash(tlog.Hash(l), tlog.Hash(r))) }

// frontier is the compact form of an RFC 6962 tree of n elements: the roots of its perfect
// subtrees, largest (leftmost) first, one per set bit of n. It is all a builder keeps to
// append to a list and give its root: at most 64 hashes.
type frontier []Hash

// push appends the element hash h to the tree of n elements and returns the frontier of n+1.
func (f frontier) push(n uint64, h Hash) frontier {
	for ; n&1 == 1; n >>= 1 {
		h = node6962(f[len(f)-1], h)
		f = f[:len(f)-1]
	}
	return append(f, h)
}

// root returns the tree hash: the subtrees joined from the right (EmptyHash for none; a
// key's list is never empty).
func (f frontier) root() Hash {
	if len(f) == 0 {
		return EmptyHash
	}
	h := f[len(f)-1]
	for i := len(f) - 2; i >= 0; i-- {
		h = node6962(f[i], h)
	}
	return h
}

// ListRoot returns the RFC 6962 root of a list of log indices. It does not check the order
// (checkList does).
func ListRoot(list []uint64) Hash {
	var f frontier
	for i, x := range list {
		f = f.push(uint64(i), elementHash(x))
	}
	return f.root()
}

// checkList refuses an empty list or one that is not strictly increasing.
func checkList(list []uint64) error {
	if len(list) == 0 {
		return refuse("the list is empty (a key without leaves has no list; prove its absence)")
	}
	for i := 1; i < len(list); i++ {
		if list[i] <= list[i-1] {
			return refuse("the list is not strictly increasing: element %d (%d) after %d", i, list[i], list[i-1])
		}
	}
	return nil
}

// listHashes is a list's RFC 6962 tree in tlog's stored-hash layout, for proofs.
type listHashes []tlog.Hash

func (l listHashes) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = l[x]
	}
	return out, nil
}

func hashesOf(list []uint64) (listHashes, error) {
	var l listHashes
	for i, x := range list {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], x)
		hs, err := tlog.StoredHashes(int64(i), b[:], l)
		if err != nil {
			return nil, err
		}
		l = append(l, hs...)
	}
	return l, nil
}

// ProveExtension returns the RFC 6962 consistency proof from the first oldCount elements of
// list to all of it: what a client that knew the list at oldCount needs to check the list now
// (VerifyExtension). It is empty when oldCount is the list's length.
func ProveExtension(list []uint64, oldCount int) ([]Hash, error) {
	if oldCount < 1 || oldCount > len(list) {
		return nil, refuse("cannot prove an extension from %d elements of a list of %d", oldCount, len(list))
	}
	if oldCount == len(list) {
		return []Hash{}, nil
	}
	l, err := hashesOf(list)
	if err != nil {
		return nil, err
	}
	p, err := tlog.ProveTree(int64(len(list)), int64(oldCount), l)
	if err != nil {
		return nil, err
	}
	out := make([]Hash, len(p))
	for i, h := range p {
		out[i] = Hash(h)
	}
	return out, nil
}

// VerifyExtension checks that the list of oldCount elements whose root is oldRoot is a prefix
// of the list of newCount elements whose root is newRoot, by the RFC 6962 consistency proof.
// A key's list only grows: a shorter new list, or a different root for the same length, is
// refused.
func VerifyExtension(oldCount uint64, oldRoot Hash, newCount uint64, newRoot Hash, proof []Hash) error {
	switch {
	case oldCount == 0:
		return refuse("the old list is empty: a key that had no leaf has no list to extend")
	case newCount < oldCount:
		return refuse("the list shrank from %d to %d elements", oldCount, newCount)
	case newCount == oldCount:
		if oldRoot != newRoot || len(proof) != 0 {
			return refuse("two different lists of %d elements", oldCount)
		}
		return nil
	case newCount > 1<<62:
		return refuse("a list of %d elements", newCount)
	}
	p := make(tlog.TreeProof, len(proof))
	for i, h := range proof {
		p[i] = tlog.Hash(h)
	}
	if err := tlog.CheckTree(p, int64(newCount), tlog.Hash(newRoot), int64(oldCount), tlog.Hash(oldRoot)); err != nil {
		return refuse("the list of %d is not a prefix of the list of %d: %v", oldCount, newCount, err)
	}
	return nil
}
