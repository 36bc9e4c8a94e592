package leaf

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/tlog"
)

// TileHeight is the height of the log's tiles (C2SP tlog-tiles: 8, 256 hashes or entries a
// tile).
const TileHeight = 8

// TileWidth is how many hashes or entries a full tile holds.
const TileWidth = 1 << TileHeight

// BundlePath is the C2SP tlog-tiles path (after "tile/") of entry bundle n cut to w entries
// (TileWidth: the full bundle): entries/x001/234[.p/W].
func BundlePath(n int64, w int) string {
	p := tlog.Tile{H: TileHeight, L: 0, N: n, W: w}.Path() // tile/8/0/N[.p/W]
	return "entries/" + strings.TrimPrefix(p, "tile/"+strconv.Itoa(TileHeight)+"/0/")
}

// TileServicePath is where a service publishes tile t of this log's height, after its log
// prefix (`tile/{L}/{N}[.p/{W}]`, `tile/entries/...` for level -1).
func TileServicePath(t tlog.Tile) string {
	if t.L == -1 {
		return "tile/" + BundlePath(t.N, t.W)
	}
	return "tile/" + strings.TrimPrefix(t.Path(), "tile/"+strconv.Itoa(TileHeight)+"/")
}

// SplitBundle returns the leaves of an entry bundle (each a big-endian 16-bit length and the
// leaf); want is how many it must hold.
func SplitBundle(data []byte, want int) ([][]byte, error) {
	var out [][]byte
	for off := 0; off < len(data); {
		if off+2 > len(data) {
			return nil, failf("entry bundle is truncated")
		}
		l := int(data[off])<<8 | int(data[off+1])
		if off+2+l > len(data) {
			return nil, failf("entry bundle is truncated")
		}
		out = append(out, data[off+2:off+2+l])
		off += 2 + l
	}
	if len(out) != want {
		return nil, failf("entry bundle holds %d leaves, want %d", len(out), want)
	}
	return out, nil
}

// MonitorState is what a monitor keeps between runs: the last checkpoint it verified, the
// last version_count of every entry it has seen in the log (by key: EntryCounts), the key
// ids of every DeDi publisher's last logged key set, and the holder of every domain whose
// binding the log changed.
type MonitorState struct {
	Checkpoint string              `json:"checkpoint"`
	Entries    EntryCounts         `json:"entries"`
	Keys       map[string][]string `json:"keys,omitempty"`
	// Domains is the holder of every domain whose binding the log changed: its namespace_id,
	// or "" once it was lost (monitordomain.go).
	Domains map[string]string `json:"domains,omitempty"`
}

// KeyChange is a key-change leaf as a monitor reports it: the publisher's domain, its key ids
// before (none for its first) and after, and the leaf's log index.
type KeyChange struct {
	Index     int64
	Domain    string
	Old, New  []string
	UpdatedAt string
}

func (c KeyChange) String() string {
	return fmt.Sprintf("key change of %s at leaf %d: [%s] -> [%s] (manifest updated_at %s)",
		c.Domain, c.Index, strings.Join(c.Old, " "), strings.Join(c.New, " "), c.UpdatedAt)
}

// Check checks the leaves that follow the state's tree in log order: each parses as a
// canonical leaf (of a version, a key change, a domain binding's change, or a state leaf whose
// size is its own index), the version_count of each entry grows by exactly one per leaf (from
// 1), or for records (whose draft versions are not logged) grows, and each domain leaf agrees
// with the bindings before it (checkBinding). It updates the counts, key ids and bindings and
// returns the key and binding changes in log order; first is the log index of leaves[0]. A
// state leaf's root is checked by rebuilding the index (svc log monitor).
func (s *MonitorState) Check(first int64, leaves [][]byte) ([]Change, error) {
	if s.Keys == nil {
		s.Keys = map[string][]string{}
	}
	var changes []Change
	for i, text := range leaves {
		idx := first + int64(i)
		switch KindOf(text) {
		case KindState:
			// A state leaf commits the index of the leaves before it: its size must be its own
			// index.
			st, err := ParseState(text)
			if err != nil {
				return changes, fmt.Errorf("leaf %d: %w", idx, err)
			}
			if st.Size != idx {
				return changes, failf("leaf %d: a state leaf of size %d (a state leaf commits the leaves before it: want %d)", idx, st.Size, idx)
			}
			continue
		case KindDediKeys:
			k, err := ParseKeys(text)
			if err != nil {
				return changes, fmt.Errorf("leaf %d: %w", idx, err)
			}
			ids := k.KeyIDs()
			changes = append(changes, KeyChange{Index: idx, Domain: k.Domain, Old: s.Keys[k.Domain], New: ids, UpdatedAt: k.UpdatedAt})
			s.Keys[k.Domain] = ids
			continue
		case KindDomain:
			d, err := ParseDomain(text)
			if err != nil {
				return changes, fmt.Errorf("leaf %d: %w", idx, err)
			}
			if err := s.checkBinding(idx, d); err != nil {
				return changes, err
			}
			changes = append(changes, BindingChange{Index: idx, Leaf: d})
			continue
		}
		l, err := Parse(text)
		if err != nil {
			return changes, fmt.Errorf("leaf %d: %w", idx, err)
		}
		id := l.EntryID()
		prev := s.Entries.Get(id)
		// Draft record versions are not logged, so a record's logged versions may skip the
		// counts of its drafts; they still only grow.
		if l.Kind == KindRecord && l.VersionCount <= prev {
			return changes, failf("leaf %d: %s has version_count %d after %d (want more)", idx, id, l.VersionCount, prev)
		}
		if l.Kind != KindRecord && l.VersionCount != prev+1 {
			return changes, failf("leaf %d: %s has version_count %d after %d (want %d)", idx, id, l.VersionCount, prev, prev+1)
		}
		s.Entries.Set(id, l.VersionCount)
	}
	return changes, nil
}

// CheckLeafHashes checks that leaves (from log index first on) are the leaves of the tree of c:
// their RFC 6962 leaf hashes equal the tree's, as hashes reads them (a tlog.TileHashReader
// checks each tile it reads against c's root hash). An error of hashes' reader is wrapped, for
// errors.Is: a tile that could not be read is not a tile that does not verify.
func CheckLeafHashes(c Checkpoint, hashes tlog.HashReader, first int64, leaves [][]byte) error {
	idx := make([]int64, len(leaves))
	for i := range leaves {
		idx[i] = tlog.StoredHashIndex(0, first+int64(i))
	}
	got, err := hashes.ReadHashes(idx)
	if err != nil {
		return fmt.Errorf("%w: leaf hashes of %d..%d in tree %d: %w", ErrVerify, first, first+int64(len(leaves))-1, c.Size, err)
	}
	for i, text := range leaves {
		if got[i] != Hash(text) {
			return failf("leaf %d of the entry bundle is not the tree's leaf %d", first+int64(i), first+int64(i))
		}
	}
	return nil
}
