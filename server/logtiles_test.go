package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
)

// httpTiles is an independent tile client: a tlog.TileReader that fetches the C2SP tiles the
// service serves over HTTP (tlog names them tile/8/L/N[.p/W]; the service serves them under
// /svc/log/tile/L/N[.p/W]).
type httpTiles struct {
	t    *testing.T
	base string
}

func (c httpTiles) Height() int { return 8 }

func (c httpTiles) get(path string) (int, http.Header, []byte) {
	c.t.Helper()
	res, err := http.Get(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return res.StatusCode, res.Header, b
}

func (c httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		rest, ok := strings.CutPrefix(t.Path(), "tile/8/")
		if !ok {
			return nil, fmt.Errorf("tile of height %d", t.H)
		}
		code, _, b := c.get("/svc/log/tile/" + rest)
		if code != http.StatusOK {
			return nil, fmt.Errorf("tile %s: %d %s", rest, code, b)
		}
		out[i] = b
	}
	return out, nil
}

func (c httpTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// bundleLeaves splits an entry bundle into its leaves (big-endian 16-bit length, leaf).
func bundleLeaves(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 2 {
			t.Fatalf("entry bundle ends inside a length")
		}
		n := int(b[0])<<8 | int(b[1])
		if len(b) < 2+n {
			t.Fatalf("entry bundle ends inside a leaf")
		}
		out = append(out, b[2:2+n])
		b = b[2+n:]
	}
	return out
}

// tilePath is the C2SP path of tile n of level l ("entries" for the bundles) at width w.
func tilePath(l string, n int64, w int) string {
	t := tlog.Tile{H: 8, L: 0, N: n, W: w}
	p := strings.TrimPrefix(t.Path(), "tile/8/0/")
	return l + "/" + p
}

// The tiles and entry bundles over HTTP: an independent client built on x/mod/sumdb/tlog reads
// the served hash tiles (tlog.TileHashReader), checks the tree hash of the signed checkpoint
// (note.Open with the served key) and the inclusion of every leaf, which it reads from the
// served entry bundles; each bundle entry is the leaf the inclusion proof of its version
// shows. Full tiles are immutable, partial ones cached briefly; a malformed path is a 400,
// a tile beyond the log a 404; HEAD answers as GET; the one-segment spelling of OpenAPI
// clients (slashes as %2F) answers as the path does.
func TestLogTiles(t *testing.T) {
	for _, d := range []string{store.DialectSQLite, store.DialectPostgres} {
		t.Run(d, func(t *testing.T) {
			lk, vkey := newLogKey(t)
			h := newHarnessWith(t, d, func(c *server.Config) { c.LogVerifierKey = vkey })
			web := httptest.NewServer(h.e)
			defer web.Close()
			c := httpTiles{t: t, base: web.URL}
			ctx := context.Background()
			g := translog.NewIntegrator(h.store, lk, nil, nil)

			if code, _, b := c.get("/svc/log/tile/0/000.p/1"); code != 404 {
				t.Fatalf("a tile of the empty log: %d %s", code, b)
			}
			key := h.key("owner@example.com")
			id := publish(t, h, key)
			if _, err := g.IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}
			// Enough versions for a full tile of level 0, a partial one after it and a tile of
			// level 1, integrated in two steps so that partial tiles and bundles are extended.
			var recs []string
			for i := 0; i < 300; i++ {
				recs = append(recs, fmt.Sprintf(`{"record_name":"r%03d","details":{"email":"r%d@example.com"}}`, i, i))
			}
			h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-records", key, `{"records":[`+strings.Join(recs[:200], ",")+`]}`)
			if _, err := g.IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}
			h.must(http.StatusCreated, "POST", "/svc/"+id+"/employees/add-records", key, `{"records":[`+strings.Join(recs[200:], ",")+`]}`)
			if _, err := g.IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}

			// The checkpoint, opened with the served key.
			_, _, vk := c.get("/svc/log/key")
			v, err := note.NewVerifier(strings.TrimSpace(string(vk)))
			if err != nil {
				t.Fatal(err)
			}
			_, _, signed := c.get("/svc/log/checkpoint")
			n, err := note.Open(signed, note.VerifierList(v))
			if err != nil {
				t.Fatalf("checkpoint: %v", err)
			}
			lines := strings.Split(n.Text, "\n")
			size, _ := strconv.ParseInt(lines[1], 10, 64)
			root, _ := base64.StdEncoding.DecodeString(lines[2])
			tree := tlog.Tree{N: size}
			copy(tree.Hash[:], root)
			if tree.N < 300 || tree.N >= 512 {
				t.Fatalf("tree of %d leaves", tree.N)
			}
			hr := tlog.TileHashReader(tree, c)
			if th, err := tlog.TreeHash(tree.N, hr); err != nil || th != tree.Hash {
				t.Fatalf("tree hash from the served tiles: %v %v, checkpoint %v", th, err, tree.Hash)
			}

			// The leaves, from the served entry bundles.
			var leaves [][]byte
			for k := int64(0); k*256 < tree.N; k++ {
				w := int(min(256, tree.N-k*256))
				code, hdr, b := c.get("/svc/log/tile/" + tilePath("entries", k, w))
				if code != 200 || hdr.Get("Content-Type") != "application/octet-stream" {
					t.Fatalf("bundle %d: %d %v", k, code, hdr)
				}
				got := bundleLeaves(t, b)
				if len(got) != w {
					t.Fatalf("bundle %d.p/%d holds %d leaves", k, w, len(got))
				}
				leaves = append(leaves, got...)
			}
			seen := map[string]bool{}
			for i, leaf := range leaves {
				p, err := tlog.ProveRecord(tree.N, int64(i), hr)
				if err != nil {
					t.Fatalf("prove %d from the served tiles: %v", i, err)
				}
				if err := tlog.CheckRecord(p, tree.N, tree.Hash, int64(i), tlog.RecordHash(leaf)); err != nil {
					t.Fatalf("leaf %d: %v", i, err)
				}
				var l struct{ Version string }
				if err := json.Unmarshal(leaf, &l); err != nil || seen[l.Version] {
					t.Fatalf("leaf %d %s: %v, or logged twice", i, leaf, err)
				}
				seen[l.Version] = true
				inc := h.must(200, "GET", "/svc/log/inclusion/"+l.Version, "", nil).Body
				if inc["leaf"] != string(leaf) || int(inc["log_index"].(float64)) != i {
					t.Fatalf("bundle leaf %d is %s; the inclusion proof of its version shows %v at %v", i, leaf, inc["leaf"], inc["log_index"])
				}
			}
			// Every record version is one of them (the draft carol is not).
			for _, name := range append([]string{"alice", "bob"}, func() (ns []string) {
				for i := 0; i < 300; i++ {
					ns = append(ns, fmt.Sprintf("r%03d", i))
				}
				return
			}()...) {
				ver := h.must(200, "GET", "/svc/lookup/"+id+"/employees/"+name, "", nil).data()["version"].(string)
				if !seen[ver] {
					t.Fatalf("version %s of %s is not in the served bundles", ver, name)
				}
			}

			// Cache headers, widths, HEAD and the one-segment spelling.
			for _, tc := range []struct {
				path, cache string
				length      int
			}{
				{"0/000", "public, max-age=31536000, immutable", 256 * 32},
				{"0/000.p/17", "public, max-age=60", 17 * 32},
				{tilePath("0", 1, int(tree.N-256)), "public, max-age=60", int(tree.N-256) * 32},
				{"1/000.p/1", "public, max-age=60", 32},
				{"entries/000", "public, max-age=31536000, immutable", -1},
			} {
				code, hdr, b := c.get("/svc/log/tile/" + tc.path)
				if code != 200 || hdr.Get("Cache-Control") != tc.cache || hdr.Get("Content-Type") != "application/octet-stream" ||
					(tc.length >= 0 && len(b) != tc.length) || hdr.Get("Content-Length") != strconv.Itoa(len(b)) {
					t.Fatalf("%s: %d %v, %d bytes", tc.path, code, hdr, len(b))
				}
				code2, hdr2, b2 := c.get("/svc/log/tile/" + strings.ReplaceAll(tc.path, "/", "%2F"))
				if code2 != 200 || !bytes.Equal(b2, b) || hdr2.Get("Cache-Control") != tc.cache {
					t.Fatalf("%s as one segment: %d %v", tc.path, code2, hdr2)
				}
				req, _ := http.NewRequest(http.MethodHead, web.URL+"/svc/log/tile/"+tc.path, nil)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				hb, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 || len(hb) != 0 || res.Header.Get("Content-Length") != strconv.Itoa(len(b)) ||
					res.Header.Get("Cache-Control") != tc.cache {
					t.Fatalf("HEAD %s: %d %v %d bytes", tc.path, res.StatusCode, res.Header, len(hb))
				}
			}
			if _, _, b := c.get("/svc/log/tile/0/000.p/17"); !bytes.HasPrefix(func() []byte { _, _, f := c.get("/svc/log/tile/0/000"); return f }(), b) {
				t.Fatal("a partial tile is not the prefix of the full one")
			}

			// Refusals: malformed paths, and tiles the log does not hold.
			for _, tc := range []struct {
				path   string
				status int
			}{
				{"0/1", 400}, {"0/0000", 400}, {"0/x000/001", 400}, {"0/x001", 400}, {"0/000.p/0", 400},
				{"0/000.p/256", 400}, {"0/000.p/", 400}, {"0/000.p/017", 400}, {"0/000/", 400}, {"0/000/001", 400},
				{"entries", 400}, {"entries/", 400}, {"data/000", 400}, {"x/000", 400}, {"-1/000", 400},
				{"00/000", 400}, {"64/000", 400}, {"0/%2B01", 400}, {"0%2F1", 400}, {"", 404},
				{"0/x" + strings.Repeat("999/x", 20) + "999", 400},
				{"0/001", 404}, {"0/002.p/1", 404}, {"1/000", 404}, {"1/000.p/2", 404}, {"2/000.p/1", 404},
				{"63/000", 404}, {"entries/001", 404}, {"entries/002.p/1", 404}, {tilePath("0", 1, int(tree.N-256)+1), 404},
				{tilePath("entries", 1, int(tree.N-256)+1), 404}, {"0/x999/x999/x999/x999/x999/999", 404}, {"0/x999/x999/x999/x999/x999/x999/999", 400},
			} {
				code, hdr, b := c.get("/svc/log/tile/" + tc.path)
				var e struct{ Code, Message string }
				if err := json.Unmarshal(b, &e); err != nil || code != tc.status || e.Message == "" ||
					(code == 400 && !strings.Contains(e.Message, "tile_path")) || hdr.Get("Cache-Control") != "" {
					t.Errorf("%q: %d %v %s", tc.path, code, hdr, b)
				}
			}
		})
	}
}
