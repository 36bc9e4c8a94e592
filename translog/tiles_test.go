package translog

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

// ParseTilePath reads the canonical C2SP tile paths of height 8 and refuses every other
// spelling with ErrBadTilePath.
func TestParseTilePath(t *testing.T) {
	for path, want := range map[string]TilePath{
		"0/000":                          {Level: 0, N: 0, W: 256},
		"0/x001/234.p/17":                {Level: 0, N: 1234, W: 17},
		"3/x001/x234/067":                {Level: 3, N: 1234067, W: 256},
		"entries/000.p/1":                {Level: logstore.EntriesLevel, N: 0, W: 1},
		"entries/x002/000":               {Level: logstore.EntriesLevel, N: 2000, W: 256},
		"63/999.p/255":                   {Level: 63, N: 999, W: 255},
		"0/x999/x999/x999/x999/x999/999": {Level: 0, N: 999999999999999999, W: 256},
	} {
		got, err := ParseTilePath(path)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", path, got, err, want)
		}
		if got.Full() != (want.W == leaf.TileWidth) {
			t.Errorf("%q: Full %v", path, got.Full())
		}
	}
	for _, path := range []string{
		"", "0", "0/", "/000", "0/1", "0/0000", "0/x000/001", "0/x001", "0/000.p/0", "0/000.p/256",
		"0/000.p/017", "0/000.p/", "0/000/", "entries", "data/000", "-1/000", "00/000", "+0/000",
		"64/000", "0/+01", "0/-01", "0/x999/x999/x999/x999/x999/x999/999", "tile/8/0/000", "0/000.p/1/2",
	} {
		if p, err := ParseTilePath(path); !errors.Is(err, ErrBadTilePath) {
			t.Errorf("%q: %+v %v", path, p, err)
		}
	}
}

// TestTileServicePath: the paths the monitor asks for are the service's canonical tile paths.
func TestTileServicePath(t *testing.T) {
	for _, tc := range []struct {
		tile tlog.Tile
		want string
	}{
		{tlog.Tile{H: 8, L: 0, N: 0, W: 5}, "tile/0/000.p/5"},
		{tlog.Tile{H: 8, L: 1, N: 1234067, W: 256}, "tile/1/x001/x234/067"},
		{tlog.Tile{H: 8, L: -1, N: 1, W: 3}, "tile/entries/001.p/3"},
		{tlog.Tile{H: 8, L: -1, N: 1000, W: 256}, "tile/entries/x001/000"},
	} {
		got := leaf.TileServicePath(tc.tile)
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.tile, got, tc.want)
		}
		p, err := ParseTilePath(strings.TrimPrefix(got, "tile/"))
		wantL := tc.tile.L
		if wantL == -1 {
			wantL = logstore.EntriesLevel
		}
		if err != nil || p.Level != wantL || p.N != tc.tile.N || p.W != tc.tile.W {
			t.Errorf("%q parses as %+v, %v", got, p, err)
		}
	}
}
