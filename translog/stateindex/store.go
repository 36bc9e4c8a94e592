package stateindex

// NodeID names a position in the tree: a depth (0 for the root, up to 256) and the path to it,
// the first Depth bits of Prefix (the others zero).
type NodeID struct {
	Depth  uint16
	Prefix Hash
}

// nodeID returns the position at depth on the path of key hash h.
func nodeID(h Hash, depth int) NodeID {
	id := NodeID{Depth: uint16(depth)}
	full := depth / 8
	copy(id.Prefix[:full], h[:full])
	if r := depth % 8; r != 0 {
		id.Prefix[full] = h[full] & ^byte(0xff>>uint(r))
	}
	return id
}

// Node is a stored node: an inner node (Leaf false) or a key's leaf (Leaf true, Key its key
// hash). An empty subtree is not stored.
type Node struct {
	Hash Hash
	Leaf bool
	Key  Hash
}

// KeyState is what the index keeps of one key: its list of log indices (in log order) and the
// frontier of its RFC 6962 tree, which gives the list's root and appends in O(log n); and,
// when its store keeps them (LatestKeeper), the text of its latest leaf, so that a state
// query reads nothing of the log for it.
type KeyState struct {
	List     []uint64
	Frontier []Hash
	Latest   []byte
}

// LatestKeeper is a Store that keeps each key's latest leaf text (KeyState.Latest): a
// builder over it records the text of every leaf it applies with Apply.
type LatestKeeper interface {
	KeepsLatest() bool
}

// keepsLatest reports whether a builder over st records leaf texts.
func keepsLatest(st Store) bool {
	k, ok := st.(LatestKeeper)
	return ok && k.KeepsLatest()
}

// Store holds a builder's nodes and keys. Nodes are put over and never deleted (keys are never
// removed, only added and extended); a later store may keep them in a database.
type Store interface {
	// Node returns the node at id; ok is false for an empty subtree.
	Node(id NodeID) (n Node, ok bool, err error)
	PutNode(id NodeID, n Node) error
	// Key returns the state of the key whose hash is h; ok is false for a key without leaves.
	Key(h Hash) (s KeyState, ok bool, err error)
	PutKey(h Hash, s KeyState) error
}

// MemStore is a Store in memory.
type MemStore struct {
	nodes map[NodeID]Node
	keys  map[Hash]KeyState
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore {
	return &MemStore{nodes: map[NodeID]Node{}, keys: map[Hash]KeyState{}}
}

func (m *MemStore) Node(id NodeID) (Node, bool, error) { n, ok := m.nodes[id]; return n, ok, nil }

func (m *MemStore) PutNode(id NodeID, n Node) error { m.nodes[id] = n; return nil }

func (m *MemStore) Key(h Hash) (KeyState, bool, error) { s, ok := m.keys[h]; return s, ok, nil }

func (m *MemStore) PutKey(h Hash, s KeyState) error { m.keys[h] = s; return nil }

// Len returns the numbers of stored nodes and keys.
func (m *MemStore) Len() (nodes, keys int) { return len(m.nodes), len(m.keys) }
