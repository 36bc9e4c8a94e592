package translog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

// ErrBadTilePath: a path that is not a C2SP tlog-tiles path of this log's height.
var ErrBadTilePath = errors.New("not a tile path")

// TilePath is a parsed C2SP tlog-tiles path: the hash tile of level Level (logstore.EntriesLevel:
// the entry bundle) numbered N, cut to its first W hashes or entries (leaf.TileWidth: the full tile).
type TilePath struct {
	Level int
	N     int64
	W     int
}

// Full reports whether the path names a full tile (no `.p/W`).
func (p TilePath) Full() bool { return p.W == leaf.TileWidth }

// ParseTilePath parses the part of a C2SP tlog-tiles path after `tile/`: `{L}/{N}[.p/{W}]` for
// a hash tile, `entries/{N}[.p/{W}]` for an entry bundle, N in the x001/x234/067 encoding and
// W in 1..255. Only the canonical spelling of each tile is accepted (as tlog.ParseTilePath,
// which reads it once the height is inserted, `tile/8/...`; C2SP's `entries` is its `data`).
func ParseTilePath(rest string) (TilePath, error) {
	bad := func(why string) (TilePath, error) {
		return TilePath{}, fmt.Errorf("%w: %s", ErrBadTilePath, why)
	}
	level, tail, ok := strings.Cut(rest, "/")
	if !ok || tail == "" {
		return bad("want {L}/{N}[.p/{W}] or entries/{N}[.p/{W}]")
	}
	if level == "entries" {
		level = "data"
	} else if l, err := strconv.Atoi(level); err != nil || l < 0 || l > 63 {
		return bad("the level must be a number from 0 to 63 or \"entries\"")
	}
	t, err := tlog.ParseTilePath("tile/" + strconv.Itoa(leaf.TileHeight) + "/" + level + "/" + tail)
	if err != nil {
		return bad("N must be groups of three digits, all but the last prefixed with x (x001/x234/067), " +
			"in the shortest form, and .p/W a width from 1 to 255")
	}
	if t.L == -1 {
		t.L = logstore.EntriesLevel
	}
	return TilePath{Level: t.L, N: t.N, W: t.W}, nil
}
