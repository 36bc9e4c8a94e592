package stateindex

// VerifyMembership checks that in the index of root, key's list is exactly list (strictly
// increasing log indices, at least one), so its last element is the key's latest leaf. proof
// is the encoded membership proof (Proof.Encode).
func VerifyMembership(root Hash, key Key, list []uint64, proof []byte) error {
	kh, err := key.Hash()
	if err != nil {
		return refuse("%v", err)
	}
	if err := checkList(list); err != nil {
		return err
	}
	p, err := DecodeProof(proof)
	if err != nil {
		return err
	}
	if p.End != EndLeaf {
		return refuse("the proof of %s is an absence proof, not a membership proof", key)
	}
	got, err := p.root(kh, LeafHash(kh, uint64(len(list)), ListRoot(list)))
	if err != nil {
		return err
	}
	if got != root {
		return refuse("the path of %s with a list of %d (latest %d) leads to root %x, not %x", key, len(list), list[len(list)-1], got, root)
	}
	return nil
}

// VerifyAbsence checks that in the index of root, key has no leaf. proof is the encoded
// absence proof (Proof.Encode).
func VerifyAbsence(root Hash, key Key, proof []byte) error {
	kh, err := key.Hash()
	if err != nil {
		return refuse("%v", err)
	}
	p, err := DecodeProof(proof)
	if err != nil {
		return err
	}
	var end Hash
	switch p.End {
	case EndLeaf:
		return refuse("the proof of %s is a membership proof, not an absence proof", key)
	case EndEmpty:
		end = EmptyHash
	case EndOther:
		o := p.Other
		if o.KeyHash == kh {
			return refuse("the absence proof of %s ends at that key's own leaf", key)
		}
		if commonPrefix(o.KeyHash, kh) < len(p.Siblings) {
			return refuse("the other key's leaf is not on the path of %s", key)
		}
		if o.Count == 0 {
			return refuse("the other key's leaf has an empty list")
		}
		end = LeafHash(o.KeyHash, o.Count, o.ListRoot)
	}
	got, err := p.root(kh, end)
	if err != nil {
		return err
	}
	if got != root {
		return refuse("the absence proof of %s leads to root %x, not %x", key, got, root)
	}
	return nil
}

// root folds the path from its end up: the node at depth d is NodeHash of its children, the
// path's on the side that bit d of kh says. It refuses a path that is not in canonical form: a
// subtree of one key is that key's leaf, so the deepest sibling of a path is never empty.
func (p Proof) root(kh, end Hash) (Hash, error) {
	d := len(p.Siblings)
	if d > 0 && p.Siblings[d-1] == EmptyHash {
		return Hash{}, refuse("the deepest sibling (depth %d) is empty: a subtree of one key is that key's leaf", d-1)
	}
	h := end
	for i := d - 1; i >= 0; i-- {
		if bit(kh, i) == 0 {
			h = NodeHash(h, p.Siblings[i])
		} else {
			h = NodeHash(p.Siblings[i], h)
		}
	}
	return h, nil
}
