package translog

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

const creator = "did:web:localhost%3A8080:tester"

func testKey(t *testing.T) Key {
	t.Helper()
	skey, _, err := GenerateKey("localhost:8080/svc/log")
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// --- The independent verifier: golang.org/x/mod/sumdb/tlog and note over what the log serves,
// nothing of this package's own parsing or hashing.

type verifier struct {
	t   *testing.T
	key string // verifier key text
	r   *Reader
}

// open checks the checkpoint's signature and parses its body.
func (v verifier) open(signed string) (tlog.Tree, error) {
	nv, err := note.NewVerifier(v.key)
	if err != nil {
		v.t.Fatal(err)
	}
	n, err := note.Open([]byte(signed), note.VerifierList(nv))
	if err != nil {
		return tlog.Tree{}, err
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) != 4 || lines[0] != nv.Name() || lines[3] != "" {
		return tlog.Tree{}, fmt.Errorf("checkpoint body %q", n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return tlog.Tree{}, err
	}
	h, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(h) != tlog.HashSize {
		return tlog.Tree{}, fmt.Errorf("root hash %q", lines[2])
	}
	tree := tlog.Tree{N: size}
	copy(tree.Hash[:], h)
	return tree, nil
}

type servedTiles struct {
	ctx context.Context
	r   *Reader
}

func (s servedTiles) Height() int { return leaf.TileHeight }
func (s servedTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		d, err := s.r.Tile(s.ctx, t.L, t.N, t.W)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}
func (s servedTiles) SaveTiles([]tlog.Tile, [][]byte) {}

// checkInclusion verifies an inclusion proof against its checkpoint.
func (v verifier) checkInclusion(p Inclusion) error {
	tree, err := v.open(p.Checkpoint)
	if err != nil {
		return err
	}
	if tree.N != p.TreeSize {
		return fmt.Errorf("proof for size %d, checkpoint of %d", p.TreeSize, tree.N)
	}
	return tlog.CheckRecord(p.Hashes, tree.N, tree.Hash, p.Index, tlog.RecordHash(p.Leaf))
}

// checkTiles reads every leaf hash through the served tiles, verified against the tree, and
// the leaves from the entry bundles; it returns the leaves in log order.
func (v verifier) checkTiles(ctx context.Context, tree tlog.Tree) [][]byte {
	v.t.Helper()
	hr := tlog.TileHashReader(tree, servedTiles{ctx, v.r})
	var leaves [][]byte
	for n := int64(0); n*leaf.TileWidth < tree.N; n++ {
		w := int(min(leaf.TileWidth, tree.N-n*leaf.TileWidth))
		data, err := v.r.Tile(ctx, logstore.EntriesLevel, n, w)
		if err != nil {
			v.t.Fatalf("entry bundle %d/%d: %v", n, w, err)
		}
		for len(data) > 0 {
			l := int(data[0])<<8 | int(data[1])
			leaves = append(leaves, data[2:2+l])
			data = data[2+l:]
		}
	}
	if int64(len(leaves)) != tree.N {
		v.t.Fatalf("bundles hold %d leaves, the tree %d", len(leaves), tree.N)
	}
	idx := make([]int64, len(leaves))
	for i := range leaves {
		idx[i] = tlog.StoredHashIndex(0, int64(i))
	}
	if len(idx) > 0 {
		hs, err := hr.ReadHashes(idx)
		if err != nil {
			v.t.Fatalf("tiles do not verify against the checkpoint: %v", err)
		}
		for i, h := range hs {
			if h != tlog.RecordHash(leaves[i]) {
				v.t.Fatalf("leaf %d: bundle and tile disagree", i)
			}
		}
	}
	return leaves
}

type leafFields struct {
	Kind         string `json:"kind"`
	NamespaceID  string `json:"namespace_id"`
	RegistryID   string `json:"registry_id"`
	RecordID     string `json:"record_id"`
	Version      string `json:"version"`
	VersionCount int64  `json:"version_count"`
}

// checkOrder: each version once; the versions of one entry in version order.
func checkOrder(t *testing.T, leaves [][]byte) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	last := map[string]int64{}
	for i, l := range leaves {
		var f leafFields
		if err := json.Unmarshal(l, &f); err != nil {
			t.Fatalf("leaf %d: %v", i, err)
		}
		if seen[f.Version] {
			t.Fatalf("leaf %d: version %s logged twice", i, f.Version)
		}
		seen[f.Version] = true
		id := f.Kind + " " + f.NamespaceID + f.RegistryID + f.RecordID
		if f.Kind == "registry" {
			id = f.Kind + " " + f.RegistryID
		} else if f.Kind == "record" {
			id = f.Kind + " " + f.RecordID
		}
		if f.VersionCount <= last[id] {
			t.Fatalf("leaf %d: %s version %d after %d", i, id, f.VersionCount, last[id])
		}
		last[id] = f.VersionCount
	}
	return seen
}

func drain(t *testing.T, g *Integrator, limit int) {
	t.Helper()
	for {
		n, err := g.integrate(context.Background(), limit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

func seedEntries(t *testing.T, s *store.Store, records int) (directory.Namespace, []string) {
	t.Helper()
	ctx := context.Background()
	u, err := s.EnsureUser(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := s.CreateNamespace(ctx, u, creator, directory.NamespaceInput{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := s.CreateRegistry(ctx, ns.NamespaceID, creator, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom})
	if err != nil {
		t.Fatal(err)
	}
	versions := []string{ns.Version, reg.Version}
	var in []directory.RecordInput
	for i := range records {
		st := ""
		if i%50 == 7 {
			st = directory.StateDraft
		}
		in = append(in, directory.RecordInput{RecordName: fmt.Sprintf("p%05d", i), Details: map[string]any{"n": float64(i)}, State: st})
	}
	for len(in) > 0 {
		part := in[:min(len(in), directory.MaxBatch)]
		in = in[len(part):]
		added, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, part)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range added {
			if part[i].State != directory.StateDraft {
				versions = append(versions, a.Version)
			}
		}
	}
	return ns, versions
}

// The log integrates every queued leaf once, in queue order, across tile boundaries and in
// batches of odd sizes; the independent verifier accepts every inclusion and consistency
// proof against the signed checkpoints, and the tiles and bundles against the tree.
func TestIntegratedLogVerifies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key := testKey(t)
		g := NewIntegrator(s, key, slog.New(slog.DiscardHandler), nil)
		r := NewReader(s)
		v := verifier{t: t, key: key.VerifierKey, r: r}
		if _, _, err := r.Checkpoint(ctx); !errors.Is(err, ErrNoCheckpoint) {
			t.Fatalf("checkpoint before the first integration: %v", err)
		}
		drain(t, g, 7) // the empty tree
		signed, _, err := r.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		trees := []tlog.Tree{}
		tr, err := v.open(signed)
		if err != nil || tr.N != 0 {
			t.Fatalf("empty checkpoint: %v %v", tr, err)
		}
		trees = append(trees, tr)

		ns, versions := seedEntries(t, s, 300)
		queued, err := s.LogQueuedLeaves(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Integrate in uneven batches, keeping each checkpoint.
		for _, limit := range []int{1, 2, 37, 200, 1000} {
			if _, err := g.integrate(ctx, limit, nil); err != nil {
				t.Fatal(err)
			}
			signed, _, err := r.Checkpoint(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := v.open(signed)
			if err != nil {
				t.Fatal(err)
			}
			trees = append(trees, tr)
		}
		// More after a full tile: a second namespace version.
		desc := "more"
		ns2, err := s.UpdateNamespace(ctx, ns.NamespaceID, "", directory.NamespacePatch{Description: &desc})
		if err != nil {
			t.Fatal(err)
		}
		versions = append(versions, ns2.Version)
		more, _ := s.LogQueuedLeaves(ctx)
		queued = append(queued, more...)
		if _, err := r.Inclusion(ctx, ns2.Version, 0); !errors.Is(err, ErrNotIntegrated) {
			t.Fatalf("a waiting version: %v", err)
		}
		drain(t, g, 1000)
		signed, _, err = r.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		final, err := v.open(signed)
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, final)
		if final.N != int64(len(versions)) || len(queued) != len(versions) {
			t.Fatalf("log size %d, %d queued, %d public versions written", final.N, len(queued), len(versions))
		}

		leaves := v.checkTiles(ctx, final)
		for i, l := range leaves {
			if string(l) != string(queued[i].Leaf) {
				t.Fatalf("leaf %d is %s, queued %s", i, l, queued[i].Leaf)
			}
		}
		seen := checkOrder(t, leaves)
		for _, ver := range versions {
			if !seen[ver] {
				t.Fatalf("version %s is not in the log", ver)
			}
		}
		for i, ver := range versions {
			p, err := r.Inclusion(ctx, ver, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.checkInclusion(p); err != nil {
				t.Fatalf("inclusion of %s (%d): %v", ver, i, err)
			}
			if p.Index != int64(i) {
				t.Fatalf("%s at index %d, want %d", ver, p.Index, i)
			}
		}
		for i, a := range trees {
			for _, b := range trees[i:] {
				p, err := r.Consistency(ctx, a.N, b.N)
				if err != nil {
					t.Fatal(err)
				}
				if a.N > 0 {
					if err := tlog.CheckTree(p, b.N, b.Hash, a.N, a.Hash); err != nil {
						t.Fatalf("consistency %d -> %d: %v", a.N, b.N, err)
					}
				}
			}
		}
		// Inclusion in an earlier tree (?size=N): proved against that tree's root, refused for a
		// version that entered the log after it.
		for _, a := range trees[1:] { // size 0 asks for the latest tree
			for _, i := range []int{0, 1, 2, 39, 40, 239, 240, 255, 256, len(versions) - 1} {
				p, err := r.Inclusion(ctx, versions[i], a.N)
				if int64(i) >= a.N {
					if !errors.Is(err, ErrNotIntegrated) {
						t.Fatalf("index %d in the tree of %d: %v", i, a.N, err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if p.TreeSize != a.N || p.Index != int64(i) {
					t.Fatalf("index %d in the tree of %d: proof of %d in %d", i, a.N, p.Index, p.TreeSize)
				}
				if err := tlog.CheckRecord(p.Hashes, a.N, a.Hash, p.Index, tlog.RecordHash(p.Leaf)); err != nil {
					t.Fatalf("index %d in the tree of %d: %v", i, a.N, err)
				}
			}
		}
		if _, err := r.Inclusion(ctx, versions[0], final.N+1); !errors.Is(err, ErrBadSize) {
			t.Fatalf("size beyond the log: %v", err)
		}
		if _, err := r.Consistency(ctx, 5, 4); !errors.Is(err, ErrBadSize) {
			t.Fatalf("from > to: %v", err)
		}
		if _, err := r.Consistency(ctx, 1, final.N+1); !errors.Is(err, ErrBadSize) {
			t.Fatalf("beyond the log: %v", err)
		}
		if _, err := r.Inclusion(ctx, "0xunknown", 0); !errors.Is(err, ErrNotLogged) {
			t.Fatalf("unknown version: %v", err)
		}
		if _, err := r.Tile(ctx, 0, 1, leaf.TileWidth); !errors.Is(err, ErrNoTile) {
			t.Fatalf("a tile beyond the log: %v", err)
		}
		if _, err := r.Tile(ctx, 0, 0, leaf.TileWidth); err != nil {
			t.Fatalf("the first full tile: %v", err)
		}
	})
}
