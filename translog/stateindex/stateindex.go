// Package stateindex is the log's verifiable state index (docs/state-index.md): a
// deterministic function of the log's leaves, in order, that maps each key a leaf names (an
// entry's id, a DeDi publisher's domain, a namespace's domain) to the append-only list of the
// log indices of its leaves, and commits to all of them in one root. A proof from the index
// shows that a key's list is exactly these n indices (so the n-th is the latest) or that the
// key has no leaf at all.
//
// The structure is a sparse Merkle tree of depth 256 over SHA-256 of each key's encoding, in
// which a subtree that holds a single key is that key's leaf (a "leaf shortcut"), so a tree of
// n keys is about log2(n) levels deep where it is full. A key's leaf commits to the key, the
// length of its list and the RFC 6962 root of the list, so a client that knew a list of n can
// check a later list of m against it with an RFC 6962 consistency proof.
//
// The package is pure: the standard library and golang.org/x/mod only, no database, no
// network. The builder keeps its nodes behind Store, which MemStore implements in memory.
// testdata/ holds known-answer vectors (testdata/README.md).
package stateindex

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// Hash is a SHA-256 output: a key hash, a node's hash, a list's root.
type Hash [32]byte

// EmptyHash is the hash of an empty subtree, and the root of an index without keys: 32 zero
// bytes (not the hash of anything).
var EmptyHash Hash

// The first byte of the map's hash inputs. They differ from RFC 6962's 0x00 (leaf) and 0x01
// (node), which the key lists' trees use, so no hash of one tree can stand for the other's.
const (
	leafPrefix = 0x02
	nodePrefix = 0x03
)

// LeafHash is the hash of a key's leaf: SHA-256(0x02 || keyHash || uint64be(count) ||
// listRoot), where count is the length of the key's list and listRoot its RFC 6962 root.
func LeafHash(keyHash Hash, count uint64, listRoot Hash) Hash {
	var b [1 + 32 + 8 + 32]byte
	b[0] = leafPrefix
	copy(b[1:33], keyHash[:])
	binary.BigEndian.PutUint64(b[33:41], count)
	copy(b[41:], listRoot[:])
	return sha256.Sum256(b[:])
}

// NodeHash is the hash of an inner node: SHA-256(0x03 || left || right), an empty child
// given as EmptyHash.
func NodeHash(left, right Hash) Hash {
	var b [1 + 64]byte
	b[0] = nodePrefix
	copy(b[1:33], left[:])
	copy(b[33:], right[:])
	return sha256.Sum256(b[:])
}

// bit returns bit i of h, the most significant bit of h[0] being bit 0: the side (0 left, 1
// right) that a key's path takes below depth i.
func bit(h Hash, i int) byte { return h[i/8] >> (7 - uint(i%8)) & 1 }

// commonPrefix returns the number of leading bits a and b share (256 when they are equal).
func commonPrefix(a, b Hash) int {
	for i := range a {
		if x := a[i] ^ b[i]; x != 0 {
			n := 0
			for x&0x80 == 0 {
				x <<= 1
				n++
			}
			return i*8 + n
		}
	}
	return 256
}

// ErrProof marks a proof that does not verify; its message says why.
var ErrProof = errors.New("state index proof does not verify")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrProof, fmt.Sprintf(format, args...))
}
