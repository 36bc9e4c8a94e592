// Package logstore is the vocabulary the transparency log (package translog) and its storage
// (package store) share: the log's state, a leaf waiting to be integrated, a stored tile, what
// an integration sees and what it writes, the cosigned checkpoint, and the not-found the storage
// reports. translog declares the storage interfaces it needs in these words and store implements
// them; neither imports the other, and both import this floor package, which imports only the
// standard library.
package logstore

import (
	"errors"
	"time"
)

// ErrNotFound is what the storage's reads wrap when the log holds no such tile or entry.
var ErrNotFound = errors.New("not in the log")

// EntriesLevel is the tile level under which entry bundles are stored (hash tiles have levels
// 0 and up; golang.org/x/mod/sumdb/tlog names the bundles' level -1 too).
const EntriesLevel = -1

// State is the integrated state of the log: the origin it was started with ("" before the
// first checkpoint), how many leaves it holds, its latest signed checkpoint ("" before the
// first), and the marker of a rollback found in it (zero: none).
type State struct {
	Origin     string
	Size       int64
	Checkpoint string
	RolledBack Rollback
}

// Rollback is the marker of a log found rolled back: the stored log held Size leaves, behind a
// checkpoint of Behind leaves that was signed before (a failover to a standby that lacked the
// log's end), as Found says (by whom, from what), at At. While a database holds one, no
// instance signs its log; starting a new log (svc log restart) clears it. Behind 0: none.
type Rollback struct {
	Behind, Size int64
	Found        string
	At           time.Time
}

// Marked reports whether r is a marker (not the zero Rollback).
func (r Rollback) Marked() bool { return r.Behind > 0 }

// Queued is a leaf waiting to be integrated: the version it is of and its text.
type Queued struct {
	Version string
	Leaf    []byte
}

// Tile is a stored tile: a hash tile (Level >= 0) or an entry bundle (Level == EntriesLevel),
// with its data at its current width.
type Tile struct {
	Level int
	N     int64
	Data  []byte
}

// Batch is what an integration sees, inside the storage's transaction: the state, the leaves it
// is to append (at indices State.Size, State.Size+1, ...) and the stored tiles (ReadTile, as of
// the transaction: nil data when there is no such tile).
type Batch struct {
	State    State
	Queued   []Queued
	ReadTile func(level int, n int64) ([]byte, error)
}

// Tile returns the stored tile (nil when there is none), as of the batch's transaction.
func (b *Batch) Tile(level int, n int64) ([]byte, error) { return b.ReadTile(level, n) }

// Update is what an integration writes: the tiles it made or extended, and the new checkpoint
// (of size State.Size+len(Queued)+Appended) signed for Origin.
type Update struct {
	Tiles      []Tile
	Origin     string
	Checkpoint string
	// Appended is how many leaves the integrator appended after the queued ones (a state
	// leaf): the new size is State.Size+len(Queued)+Appended. They are in the tiles, no queue
	// row names them, and no version is theirs.
	Appended int
}

// Empty reports an update that writes nothing: the integrator has nothing to integrate (an
// empty queue and no leaf of its own to append).
func (u Update) Empty() bool { return u.Checkpoint == "" && len(u.Tiles) == 0 && u.Appended == 0 }

// Cosigned is the latest checkpoint a quorum of the log's witnesses cosigned: its tree size and
// its text with the log's signature and the witnesses' cosignatures (Size 0, Text "" before the
// first).
type Cosigned struct {
	Size int64
	Text string
}
