package stateindex

import (
	"encoding/binary"
	"slices"
)

// The ends of a proof's path: what the path of the key reaches.
const (
	EndLeaf  byte = 0x00 // the key's own leaf: the key is present (a membership proof)
	EndEmpty byte = 0x01 // an empty subtree: the key is absent
	EndOther byte = 0x02 // another key's leaf, alone in the subtree where the key would be: absent
)

// OtherLeaf is the leaf an EndOther proof reaches: another key's hash and its list's
// commitment.
type OtherLeaf struct {
	KeyHash  Hash
	Count    uint64
	ListRoot Hash
}

// Proof is a proof about one key in the index at one root: the siblings of the nodes on the
// key's path from the root down to where it ends (EmptyHash for an empty sibling), and what it
// ends at. Its encoding (Encode) leaves the empty siblings out.
type Proof struct {
	End      byte
	Siblings []Hash // Siblings[d] is the sibling of the path's node at depth d+1
	Other    OtherLeaf
}

// Encode returns the proof's bytes (docs/state-index.md, "Proofs"):
//
//	end (1 byte) || depth (uint16, big-endian) || bitmap (ceil(depth/8) bytes) ||
//	the non-empty siblings (32 bytes each, from depth 0 down) ||
//	for EndOther: key hash (32) || count (uint64, big-endian) || list root (32)
//
// Bit d of the bitmap (byte d/8, most significant bit first) is set when sibling d is not
// empty; the bits past depth are zero.
func (p Proof) Encode() []byte {
	d := len(p.Siblings)
	out := make([]byte, 3, 3+(d+7)/8+32*d+72)
	out[0] = p.End
	binary.BigEndian.PutUint16(out[1:3], uint16(d))
	bitmap := make([]byte, (d+7)/8)
	for i, s := range p.Siblings {
		if s != EmptyHash {
			bitmap[i/8] |= 0x80 >> uint(i%8)
		}
	}
	out = append(out, bitmap...)
	for _, s := range p.Siblings {
		if s != EmptyHash {
			out = append(out, s[:]...)
		}
	}
	if p.End == EndOther {
		out = append(out, p.Other.KeyHash[:]...)
		out = binary.BigEndian.AppendUint64(out, p.Other.Count)
		out = append(out, p.Other.ListRoot[:]...)
	}
	return out
}

// DecodeProof parses a proof's bytes. It refuses any encoding that Encode would not write: an
// unknown end, a depth beyond 256, a bitmap bit past the depth, a sibling of 32 zero bytes
// written out, a missing or extra byte.
func DecodeProof(b []byte) (Proof, error) {
	if len(b) < 3 {
		return Proof{}, refuse("a proof of %d bytes (at least 3)", len(b))
	}
	p := Proof{End: b[0]}
	if p.End > EndOther {
		return Proof{}, refuse("unknown proof end 0x%02x", p.End)
	}
	d := int(binary.BigEndian.Uint16(b[1:3]))
	if d > 256 {
		return Proof{}, refuse("a path of depth %d (at most 256)", d)
	}
	rest := b[3:]
	if len(rest) < (d+7)/8 {
		return Proof{}, refuse("the proof ends in its bitmap")
	}
	bitmap, rest := rest[:(d+7)/8], rest[(d+7)/8:]
	if d%8 != 0 && bitmap[len(bitmap)-1]&(0xff>>uint(d%8)) != 0 {
		return Proof{}, refuse("bitmap bits past the depth %d are set", d)
	}
	p.Siblings = make([]Hash, d)
	for i := range d {
		if bitmap[i/8]&(0x80>>uint(i%8)) == 0 {
			continue
		}
		if len(rest) < 32 {
			return Proof{}, refuse("the proof ends in sibling %d", i)
		}
		copy(p.Siblings[i][:], rest[:32])
		rest = rest[32:]
		if p.Siblings[i] == EmptyHash {
			return Proof{}, refuse("sibling %d is written out as 32 zero bytes (an empty sibling is a clear bitmap bit)", i)
		}
	}
	if p.End == EndOther {
		if len(rest) < 72 {
			return Proof{}, refuse("the proof ends in the other key's leaf")
		}
		copy(p.Other.KeyHash[:], rest[:32])
		p.Other.Count = binary.BigEndian.Uint64(rest[32:40])
		copy(p.Other.ListRoot[:], rest[40:72])
		rest = rest[72:]
	}
	if len(rest) != 0 {
		return Proof{}, refuse("%d bytes after the proof", len(rest))
	}
	return p, nil
}

// Prove returns the proof about key in the index at the builder's root, and a copy of the
// key's list (nil when it is absent): a membership proof (End EndLeaf) or an absence proof.
func (b *Builder) Prove(key Key) (Proof, []uint64, error) {
	p, st, err := b.ProveKey(key)
	return p, st.List, err
}

// ProveKey is Prove, with the key's whole state (its list, the frontier of the list's tree,
// and its latest leaf's text when the store keeps it); the state is the zero KeyState for an
// absent key.
func (b *Builder) ProveKey(key Key) (Proof, KeyState, error) {
	kh, err := key.Hash()
	if err != nil {
		return Proof{}, KeyState{}, err
	}
	var p Proof
	for depth := 0; ; depth++ {
		n, ok, err := b.store.Node(nodeID(kh, depth))
		if err != nil {
			return Proof{}, KeyState{}, err
		}
		if !ok {
			p.End = EndEmpty
			return p, KeyState{}, nil
		}
		if n.Leaf && n.Key == kh {
			st, _, err := b.store.Key(kh)
			if err != nil {
				return Proof{}, KeyState{}, err
			}
			p.End = EndLeaf
			st.List = slices.Clone(st.List)
			return p, st, nil
		}
		if n.Leaf {
			st, _, err := b.store.Key(n.Key)
			if err != nil {
				return Proof{}, KeyState{}, err
			}
			p.End = EndOther
			p.Other = OtherLeaf{KeyHash: n.Key, Count: uint64(len(st.List)), ListRoot: frontier(st.Frontier).root()}
			return p, KeyState{}, nil
		}
		sib := nodeID(kh, depth+1)
		sib.Prefix[depth/8] ^= 0x80 >> uint(depth%8)
		s, _, err := b.store.Node(sib)
		if err != nil {
			return Proof{}, KeyState{}, err
		}
		p.Siblings = append(p.Siblings, s.Hash)
	}
}
