package stateindex

// Overlay is a Store that buffers its puts over a base Store: reads see the buffered puts
// first, then the base; Commit writes them to the base, and dropping the Overlay (or Discard)
// leaves the base as it was. An integrator applies a batch to an Overlay, and commits it only
// once the batch's transaction has committed, so a failed transaction leaves its index as it
// was. An Overlay is not safe for concurrent use, and its base must not change under it.
type Overlay struct {
	base  Store
	nodes map[NodeID]Node
	keys  map[Hash]KeyState
}

// NewOverlay returns an empty overlay over base.
func NewOverlay(base Store) *Overlay {
	return &Overlay{base: base, nodes: map[NodeID]Node{}, keys: map[Hash]KeyState{}}
}

func (o *Overlay) Node(id NodeID) (Node, bool, error) {
	if n, ok := o.nodes[id]; ok {
		return n, true, nil
	}
	return o.base.Node(id)
}

func (o *Overlay) PutNode(id NodeID, n Node) error { o.nodes[id] = n; return nil }

// Key returns the key's state; the lists it returns are copies, so that an append made
// through the overlay never writes into the base's backing arrays.
func (o *Overlay) Key(h Hash) (KeyState, bool, error) {
	if s, ok := o.keys[h]; ok {
		return s, true, nil
	}
	s, ok, err := o.base.Key(h)
	if err != nil || !ok {
		return s, ok, err
	}
	return KeyState{List: append([]uint64(nil), s.List...), Frontier: append([]Hash(nil), s.Frontier...), Latest: s.Latest}, true, nil
}

// KeepsLatest is the base's (LatestKeeper).
func (o *Overlay) KeepsLatest() bool { return keepsLatest(o.base) }

// Puts returns the buffered puts (for a store that writes them at once, with its own state).
func (o *Overlay) Puts() (nodes map[NodeID]Node, keys map[Hash]KeyState) { return o.nodes, o.keys }

func (o *Overlay) PutKey(h Hash, s KeyState) error { o.keys[h] = s; return nil }

// Commit writes the buffered puts to the base and empties the overlay.
func (o *Overlay) Commit() error {
	for id, n := range o.nodes {
		if err := o.base.PutNode(id, n); err != nil {
			return err
		}
	}
	for h, s := range o.keys {
		if err := o.base.PutKey(h, s); err != nil {
			return err
		}
	}
	o.Discard()
	return nil
}

// Discard drops the buffered puts.
func (o *Overlay) Discard() { clear(o.nodes); clear(o.keys) }

// Len returns the numbers of buffered nodes and keys.
func (o *Overlay) Len() (nodes, keys int) { return len(o.nodes), len(o.keys) }
