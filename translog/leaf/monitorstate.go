package leaf

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"
	"slices"
)

// entryKeySize is how many bytes of an entry's keyed hash a monitor's state keeps in place of
// the entry's id.
const entryKeySize = 16

// hashKeySize is the size of the state's own key for those hashes.
const hashKeySize = 32

type entryKey [entryKeySize]byte

// EntryCounts is the last logged version_count of every entry a monitor has seen: the monitor
// checks each new leaf against its entry's last count, and needs nothing else of the entries
// it saw. Each entry is known by the first 16 bytes of the HMAC-SHA256 of its id
// (Leaf.EntryID) under a random key of this state's own, made when it first holds an entry:
// whoever writes the log does not know the key, so it cannot choose two ids that share a
// count (which could hide a skipped count), and two ids share one by chance with a
// probability of about n²/2^129. Its JSON is one base64 string: the key, then the entries
// sorted, each its 16 bytes and its count as an unsigned varint (17 bytes an entry of fewer
// than 128 versions, 23 in base64). Not safe for concurrent use.
type EntryCounts struct {
	key []byte
	mac hash.Hash
	m   map[entryKey]int64
}

func (c *EntryCounts) keyOf(id string) entryKey {
	if c.key == nil {
		c.key = make([]byte, hashKeySize)
		_, _ = rand.Read(c.key) // never fails (crypto/rand)
	}
	if c.mac == nil {
		c.mac = hmac.New(sha256.New, c.key)
	}
	c.mac.Reset()
	_, _ = io.WriteString(c.mac, id)
	var k entryKey
	copy(k[:], c.mac.Sum(nil))
	return k
}

// Get is the last count of entry id (0: not seen).
func (c *EntryCounts) Get(id string) int64 {
	if len(c.m) == 0 {
		return 0
	}
	return c.m[c.keyOf(id)]
}

// Set records n as the last count of entry id.
func (c *EntryCounts) Set(id string, n int64) {
	if c.m == nil {
		c.m = map[entryKey]int64{}
	}
	c.m[c.keyOf(id)] = n
}

// Len is how many entries it holds.
func (c *EntryCounts) Len() int { return len(c.m) }

// MarshalJSON writes the key and the entries sorted (the same counts, the same text).
func (c EntryCounts) MarshalJSON() ([]byte, error) {
	key := c.key
	if key == nil { // no entries yet: any key will do
		key = make([]byte, hashKeySize)
		_, _ = rand.Read(key)
	}
	keys := make([]entryKey, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b entryKey) int { return bytes.Compare(a[:], b[:]) })
	raw := make([]byte, 0, hashKeySize+len(keys)*(entryKeySize+1))
	raw = append(raw, key...)
	for _, k := range keys {
		raw = append(raw, k[:]...)
		raw = binary.AppendUvarint(raw, uint64(c.m[k]))
	}
	return json.Marshal(raw) // base64
}

// UnmarshalJSON reads what MarshalJSON writes; no key, entries out of order or repeated, a
// count of 0 or beyond int64, or a truncated entry are refused.
func (c *EntryCounts) UnmarshalJSON(b []byte) error {
	var raw []byte
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("entries: %w", err)
	}
	if len(raw) < hashKeySize {
		return fmt.Errorf("entries: no key")
	}
	key := raw[:hashKeySize]
	m := make(map[entryKey]int64, (len(raw)-hashKeySize)/(entryKeySize+1))
	var prev entryKey
	for off, i := hashKeySize, 0; off < len(raw); i++ {
		if len(raw)-off < entryKeySize+1 {
			return fmt.Errorf("entries: entry %d is truncated", i)
		}
		k := entryKey(raw[off : off+entryKeySize])
		if i > 0 && bytes.Compare(prev[:], k[:]) >= 0 {
			return fmt.Errorf("entries: entry %d is out of order", i)
		}
		n, l := binary.Uvarint(raw[off+entryKeySize:])
		if l <= 0 || n == 0 || n > math.MaxInt64 {
			return fmt.Errorf("entries: entry %d has no valid count", i)
		}
		m[k] = int64(n)
		prev = k
		off += entryKeySize + l
	}
	*c = EntryCounts{key: bytes.Clone(key), m: m}
	return nil
}

// monitorStateV1 is the state file of monitors before entries were kept by key: each entry's
// id and count in a JSON object.
type monitorStateV1 struct {
	Counts map[string]int64 `json:"counts"`
}

// UnmarshalJSON reads a monitor's state, in this form or the earlier one (a "counts" object
// of entry ids, about 120 bytes a leaf), whose counts it keeps by key.
func (s *MonitorState) UnmarshalJSON(b []byte) error {
	type plain MonitorState // without this method
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var old monitorStateV1
	if err := json.Unmarshal(b, &old); err != nil {
		return err
	}
	for id, n := range old.Counts {
		if n <= 0 {
			return fmt.Errorf("counts: %s has count %d", id, n)
		}
		if v.Entries.Get(id) != 0 {
			return fmt.Errorf("counts: %s is also in entries", id)
		}
		v.Entries.Set(id, n)
	}
	*s = MonitorState(v)
	return nil
}
