package translog_test

import (
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

func TestCheckLeaves(t *testing.T) {
	leaf := func(count int64, version string) []byte {
		b, err := (storeLeaf("ns1", version, count)).Canonical()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		leaves [][]byte
		want   string
	}{
		{"in order", [][]byte{leaf(1, "0x01"), leaf(2, "0x02"), leaf(3, "0x03")}, ""},
		{"skips one", [][]byte{leaf(1, "0x01"), leaf(3, "0x03")}, "leaf 8: namespace ns1 has version_count 3 after 1 (want 2)"},
		{"repeats", [][]byte{leaf(1, "0x01"), leaf(1, "0x02")}, "version_count 1 after 1"},
		{"starts late", [][]byte{leaf(2, "0x02")}, "version_count 2 after 0"},
		{"record after drafts", [][]byte{recLeaf(2, "0x02"), recLeaf(4, "0x04")}, ""},
		{"record going back", [][]byte{recLeaf(2, "0x02"), recLeaf(2, "0x03")}, "leaf 8: record ns1/r/x has version_count 2 after 2 (want more)"},
		{"not canonical", [][]byte{[]byte(strings.Replace(string(leaf(1, "0x01")), ",", ", ", 1))}, "not a canonical leaf"},
		{"not json", [][]byte{[]byte("nope")}, "leaf 7"},
		{"unknown field", [][]byte{[]byte(`{"extra":1}`)}, "unknown field"},
	} {
		err := translog.CheckLeaves(map[string]int64{}, 7, tc.leaves)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func recLeaf(count int64, version string) []byte {
	b, _ := store.LogLeaf{Kind: "record", NamespaceID: "ns1", RegistryID: "r", RecordID: "x", Version: version, VersionCount: count, Digest: "0x00"}.Canonical()
	return b
}

func storeLeaf(ns, version string, count int64) store.LogLeaf {
	return store.LogLeaf{Kind: "namespace", NamespaceID: ns, Version: version, VersionCount: count, Digest: "0x00"}
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
		got := translog.TileServicePath(tc.tile)
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.tile, got, tc.want)
		}
		p, err := translog.ParseTilePath(strings.TrimPrefix(got, "tile/"))
		wantL := tc.tile.L
		if wantL == -1 {
			wantL = store.LogEntriesLevel
		}
		if err != nil || p.Level != wantL || p.N != tc.tile.N || p.W != tc.tile.W {
			t.Errorf("%q parses as %+v, %v", got, p, err)
		}
	}
}
