package indexstore

import (
	"encoding/binary"
	"errors"

	"github.com/svc-directory/svc/translog/stateindex"
)

// The values of the store:
//
//	node: flag (0 inner, 1 a key's leaf) || hash (32) || key hash (32, a leaf's only)
//	key:  uvarint(n) || the n list elements (the first, then each one's distance from the one
//	      before, uvarints) || uvarint(f) || the f frontier hashes (32 each) || the latest leaf's
//	      text (the rest)

var errCorrupt = errors.New("indexstore: a stored value does not decode (the store is damaged: remove its directory to rebuild it)")

func encodeNode(n stateindex.Node) []byte {
	if !n.Leaf {
		return append([]byte{0}, n.Hash[:]...)
	}
	out := make([]byte, 0, 65)
	out = append(out, 1)
	out = append(out, n.Hash[:]...)
	return append(out, n.Key[:]...)
}

func decodeNode(v []byte) (stateindex.Node, bool, error) {
	var n stateindex.Node
	switch {
	case len(v) == 33 && v[0] == 0:
	case len(v) == 65 && v[0] == 1:
		n.Leaf = true
		copy(n.Key[:], v[33:])
	default:
		return n, false, errCorrupt
	}
	copy(n.Hash[:], v[1:33])
	return n, true, nil
}

func encodeKey(st stateindex.KeyState) []byte {
	out := make([]byte, 0, 2+len(st.List)*3+1+32*len(st.Frontier)+len(st.Latest))
	out = binary.AppendUvarint(out, uint64(len(st.List)))
	prev := uint64(0)
	for _, x := range st.List {
		out = binary.AppendUvarint(out, x-prev)
		prev = x
	}
	out = binary.AppendUvarint(out, uint64(len(st.Frontier)))
	for _, h := range st.Frontier {
		out = append(out, h[:]...)
	}
	return append(out, st.Latest...)
}

func decodeKey(v []byte) (stateindex.KeyState, bool, error) {
	var st stateindex.KeyState
	n, k := binary.Uvarint(v)
	if k <= 0 || n == 0 || n > uint64(len(v)) {
		return st, false, errCorrupt
	}
	v = v[k:]
	st.List = make([]uint64, n)
	prev := uint64(0)
	for i := range st.List {
		d, k := binary.Uvarint(v)
		if k <= 0 || (i > 0 && d == 0) {
			return st, false, errCorrupt
		}
		prev += d
		st.List[i], v = prev, v[k:]
	}
	f, k := binary.Uvarint(v)
	if k <= 0 || f > 64 || uint64(len(v)-k) < 32*f {
		return st, false, errCorrupt
	}
	v = v[k:]
	st.Frontier = make([]stateindex.Hash, f)
	for i := range st.Frontier {
		copy(st.Frontier[i][:], v[:32])
		v = v[32:]
	}
	if len(v) > 0 {
		st.Latest = v
	}
	return st, true, nil
}
