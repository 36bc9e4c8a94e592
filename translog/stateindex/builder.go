package stateindex

import (
	"fmt"
	"slices"
)

// Builder builds the index of a log: Apply the log's leaves in order, from index 0, and Root
// is the index's root at the size applied so far. Appending a leaf costs one update per key it
// names, each O(depth of the tree) node reads, writes and hashes, whatever the number of keys.
// A Builder is not safe for concurrent use.
type Builder struct {
	store Store
	size  uint64
	root  Hash
	keep  bool // the store keeps each key's latest leaf text (LatestKeeper)
}

// NewBuilder returns the builder of an empty log over an empty store.
func NewBuilder(store Store) *Builder { return &Builder{store: store, keep: keepsLatest(store)} }

// ResumeBuilder returns a builder over a store that holds the index of the first size leaves,
// whose root is root (as a store-backed index would record them).
func ResumeBuilder(store Store, size uint64, root Hash) *Builder {
	return &Builder{store: store, size: size, root: root, keep: keepsLatest(store)}
}

// Size is the number of leaves applied.
func (b *Builder) Size() uint64 { return b.size }

// Root is the index's root at Size: EmptyHash while no key has a leaf.
func (b *Builder) Root() Hash { return b.root }

// Apply adds the leaf of log index Size, whose text is text, and returns the root at the new
// size. A text that is not a leaf of a known kind (KeysOf) is refused and nothing changes: the
// index is a function of a valid log.
func (b *Builder) Apply(text []byte) (Hash, error) {
	keys, err := KeysOf(text)
	if err != nil {
		return b.root, fmt.Errorf("leaf %d: %w", b.size, err)
	}
	return b.applyKeys(keys, text)
}

// ApplyKeys is Apply for a leaf whose keys are known: it appends Size to the list of each key
// (a key named twice is appended once) and returns the root at the new size.
func (b *Builder) ApplyKeys(keys []Key) (Hash, error) { return b.applyKeys(keys, nil) }

// applyKeys is ApplyKeys, recording text as each key's latest leaf when the store keeps them.
func (b *Builder) applyKeys(keys []Key, text []byte) (Hash, error) {
	if !b.keep {
		text = nil
	} else {
		text = slices.Clone(text) // not a view of the caller's buffer (an entry bundle)
	}
	hashes := make([]Hash, 0, len(keys))
	for _, k := range keys {
		h, err := k.Hash()
		if err != nil {
			return b.root, fmt.Errorf("leaf %d: %w", b.size, err)
		}
		if !slices.Contains(hashes, h) {
			hashes = append(hashes, h)
		}
	}
	for _, h := range hashes {
		if err := b.append(h, b.size, text); err != nil {
			return b.root, fmt.Errorf("leaf %d: %w", b.size, err)
		}
	}
	b.size++
	return b.root, nil
}

// append adds index, whose leaf text is text (nil when not kept), to the list of the key whose
// hash is kh, and updates the tree.
func (b *Builder) append(kh Hash, index uint64, text []byte) error {
	st, _, err := b.store.Key(kh)
	if err != nil {
		return err
	}
	st.Frontier = frontier(st.Frontier).push(uint64(len(st.List)), elementHash(index))
	st.List = append(st.List, index)
	st.Latest = text
	if err := b.store.PutKey(kh, st); err != nil {
		return err
	}
	return b.set(kh, LeafHash(kh, uint64(len(st.List)), frontier(st.Frontier).root()))
}

// set puts the leaf of kh, of hash lh, in the tree and hashes the path up to the root.
func (b *Builder) set(kh Hash, lh Hash) error {
	// Walk down to where the key's leaf belongs: an empty subtree, its own leaf, or another
	// key's leaf, which moves down to where the two paths part.
	depth := 0
	for ; ; depth++ {
		n, ok, err := b.store.Node(nodeID(kh, depth))
		if err != nil {
			return err
		}
		if !ok || n.Leaf && n.Key == kh {
			break
		}
		if n.Leaf {
			split := commonPrefix(kh, n.Key) // >= depth: both are under this node
			if err := b.store.PutNode(nodeID(n.Key, split+1), n); err != nil {
				return err
			}
			depth = split + 1
			break
		}
		if depth == 256 {
			return fmt.Errorf("stateindex: an inner node at depth 256")
		}
	}
	h := lh
	if err := b.store.PutNode(nodeID(kh, depth), Node{Hash: lh, Leaf: true, Key: kh}); err != nil {
		return err
	}
	for d := depth - 1; d >= 0; d-- {
		sib := nodeID(kh, d+1)
		sib.Prefix[d/8] ^= 0x80 >> uint(d%8)
		s, _, err := b.store.Node(sib)
		if err != nil {
			return err
		}
		if bit(kh, d) == 0 {
			h = NodeHash(h, s.Hash)
		} else {
			h = NodeHash(s.Hash, h)
		}
		if err := b.store.PutNode(nodeID(kh, d), Node{Hash: h}); err != nil {
			return err
		}
	}
	b.root = h
	return nil
}
