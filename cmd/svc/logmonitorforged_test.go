package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
)

// forgedLog serves, under /svc/log/, a log of leaves signed with the log's own key: its
// checkpoint, hash tiles, entry bundles and consistency proofs, as the service would.
func forgedLog(t *testing.T, lk translog.Key, leaves [][]byte) *httptest.Server {
	t.Helper()
	var stored []tlog.Hash
	hr := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			out[i] = stored[x]
		}
		return out, nil
	})
	for i, l := range leaves {
		hs, err := tlog.StoredHashes(int64(i), l, hr)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, hs...)
	}
	n := int64(len(leaves))
	root, err := tlog.TreeHash(n, hr)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := note.Sign(&note.Note{Text: leaf.Checkpoint{Origin: lk.Signer.Name(), Size: n, Hash: root}.Format()}, lk.Signer)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"checkpoint": signed}
	for _, tile := range tlog.NewTiles(leaf.TileHeight, 0, n) {
		data, err := tlog.ReadTileData(tile, hr)
		if err != nil {
			t.Fatal(err)
		}
		files[leaf.TileServicePath(tile)] = data
	}
	for b := int64(0); b*leaf.TileWidth < n; b++ {
		var bundle []byte
		end := min(n, (b+1)*leaf.TileWidth)
		for _, l := range leaves[b*leaf.TileWidth : end] {
			bundle = append(bundle, byte(len(l)>>8), byte(len(l)))
			bundle = append(bundle, l...)
		}
		files["tile/"+leaf.BundlePath(b, int(end-b*leaf.TileWidth))] = bundle
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strings.TrimPrefix(r.URL.Path, "/svc/log/")
		if p == "consistency" {
			from, _ := strconv.ParseInt(r.URL.Query().Get("from"), 10, 64)
			proof, err := tlog.ProveTree(n, from, hr)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"hashes": proof})
			return
		}
		b, ok := files[p]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestLogMonitorForgedCounts: a log signed with its own key whose leaves give an entry's
// version_count twice, or skip one across two runs (the count kept in the state file), is
// refused with exit 1 and "FAILED:" naming the leaf, the entry and the counts.
func TestLogMonitorForgedCounts(t *testing.T) {
	skey, vkey, err := translog.GenerateKey("example.test/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	lk, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	ns := func(count int64, version string) []byte {
		b, err := leaf.Leaf{Kind: "namespace", NamespaceID: "ns1", Version: version, VersionCount: count, Digest: "0x00"}.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	monitor := func(srv *httptest.Server, state string) (int, string) {
		code, out, _ := svc(t, "log", "monitor", "--url", srv.URL, "--log-key", vkey, "--state", state)
		return code, out
	}
	dir := t.TempDir()
	twice := forgedLog(t, lk, [][]byte{ns(1, "0x01"), ns(1, "0x02")})
	if code, out := monitor(twice, filepath.Join(dir, "a.json")); code != 1 || out != "FAILED: leaf 1: namespace ns1 has version_count 1 after 1 (want 2)\n" {
		t.Fatalf("a count given twice: exit %d %q", code, out)
	}
	state := filepath.Join(dir, "b.json")
	if code, out := monitor(forgedLog(t, lk, [][]byte{ns(1, "0x01")}), state); code != 0 {
		t.Fatalf("first run: exit %d %q", code, out)
	}
	kept, _ := os.ReadFile(state)
	if code, out := monitor(forgedLog(t, lk, [][]byte{ns(1, "0x01"), ns(3, "0x03")}), state); code != 1 || out != "FAILED: leaf 1: namespace ns1 has version_count 3 after 1 (want 2)\n" {
		t.Fatalf("a count skipped after the state file's: exit %d %q", code, out)
	}
	if now, _ := os.ReadFile(state); string(now) != string(kept) {
		t.Fatal("the state file changed")
	}
	if code, out := monitor(forgedLog(t, lk, [][]byte{ns(1, "0x01"), ns(2, "0x02")}), state); code != 0 || !strings.HasPrefix(out, "OK: log example.test/svc/log size 2 (1 new leaves)") {
		t.Fatalf("the next count: exit %d %q", code, out)
	}
}
