package leaf

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"time"
)

// KindState is the kind of a state leaf: the log's commitment to the root of its state index
// (docs/state-index.md, "The commitment") over the leaves before it. From the first state
// leaf on, the integrator makes a state leaf the last leaf of every checkpoint it signs, with
// Size = the checkpoint's size - 1: a checkpoint of size S that ends in one commits the index
// of leaves [0, S-1), as of Time on the log's clock.
const KindState = "state"

// StateLeaf is the log leaf that commits the state index's root over the first Size leaves of
// the log, at Time (the log's clock, Unix milliseconds).
type StateLeaf struct {
	Root [32]byte
	Size int64
	Time int64
}

// NewStateLeaf returns the state leaf of the index root over the first size leaves at t,
// checked (Check).
func NewStateLeaf(root [32]byte, size int64, t time.Time) (StateLeaf, error) {
	l := StateLeaf{Root: root, Size: size, Time: t.UnixMilli()}
	return l, l.Check()
}

// Check refuses a negative size or time, or one a JSON number cannot hold exactly (above
// 2^53 - 1).
func (l StateLeaf) Check() error {
	if l.Size < 0 || l.Size >= maxExact {
		return failf("state leaf: size %d is not an integer from 0 to 2^53 - 1", l.Size)
	}
	if l.Time < 0 || l.Time >= maxExact {
		return failf("state leaf: time %d is not a Unix time in milliseconds from 0 to 2^53 - 1", l.Time)
	}
	return nil
}

// At is the leaf's time.
func (l StateLeaf) At() time.Time { return time.UnixMilli(l.Time).UTC() }

// Canonical returns the leaf text: RFC 8785 canonical JSON of {kind "state", root (standard
// padded base64 of the 32 bytes), size, time}.
func (l StateLeaf) Canonical() ([]byte, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	// Members in RFC 8785 order: kind, root, size, time.
	w := jsonWriter{b: make([]byte, 0, 112)}
	w.b = append(w.b, '{')
	w.member("kind", KindState)
	w.member("root", base64.StdEncoding.EncodeToString(l.Root[:]))
	w.name("size")
	w.b = appendInteger(w.b, l.Size)
	w.name("time")
	w.b = appendInteger(w.b, l.Time)
	w.b = append(w.b, '}')
	return w.b, nil
}

// ParseState parses a state leaf and checks it: kind state, a root of 32 bytes, a size and a
// time as Check wants them, no other members, and the text byte for byte as Canonical writes
// it.
func ParseState(text []byte) (StateLeaf, error) {
	var raw struct {
		Kind string `json:"kind"`
		Root string `json:"root"`
		Size *int64 `json:"size"`
		Time *int64 `json:"time"`
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return StateLeaf{}, failf("state leaf %q: %v", text, err)
	}
	if raw.Kind != KindState {
		return StateLeaf{}, failf("leaf %q is not a %s leaf", text, KindState)
	}
	root, err := base64.StdEncoding.Strict().DecodeString(raw.Root)
	if err != nil || len(root) != 32 || raw.Size == nil || raw.Time == nil {
		return StateLeaf{}, failf("state leaf %q: it needs a root of 32 bytes in base64, a size and a time", text)
	}
	l := StateLeaf{Size: *raw.Size, Time: *raw.Time}
	copy(l.Root[:], root)
	canon, err := l.Canonical()
	if err != nil {
		return StateLeaf{}, err
	}
	if !bytes.Equal(canon, text) {
		return StateLeaf{}, failf("leaf %q is not a canonical state leaf", text)
	}
	return l, nil
}
