package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/server"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
)

// A key change of a DeDi publisher (a dedi-keys leaf, which has no version to ask
// /svc/log/inclusion/{version} for) is proved over HTTP with the operations the log has: the
// signed checkpoint, the entry bundles that hold the leaf and its index, and the hash tiles
// from which any leaf's RFC 6962 audit path is computed (C2SP tlog-tiles). translog/leaf
// verifies the proof; it refuses it for another key set and for a changed path.
func TestLogProvesKeyChangeOverHTTP(t *testing.T) {
	for _, d := range []string{store.DialectSQLite, store.DialectPostgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			lk, vkey := newLogKey(t)
			h := newHarnessWith(t, d, func(c *server.Config) { c.LogVerifierKey = vkey })
			web := httptest.NewServer(h.e)
			defer web.Close()
			c := httpTiles{t: t, base: web.URL}
			g := translog.NewIntegrator(h.store, lk, nil, nil)

			publish(t, h, h.key("owner@example.com")) // versions before the key change
			if _, err := h.store.AddDediPublisher(ctx, "pub.test"); err != nil {
				t.Fatal(err)
			}
			k1, _ := dedi.GenerateKey("key-1")
			k2, _ := dedi.GenerateKey("key-2")
			m := &dedi.Manifest{Domain: "pub.test", UpdatedAt: time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC), Keys: []dedi.Key{k1.Public()}}
			kl, err := m.KeysLeaf()
			if err != nil {
				t.Fatal(err)
			}
			if err := h.store.RecordDediCrawl(ctx, "pub.test", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true,
				NextCrawl: m.UpdatedAt.Add(time.Hour), Keys: &kl}); err != nil {
				t.Fatal(err)
			}
			if _, err := g.IntegrateOnce(ctx); err != nil {
				t.Fatal(err)
			}

			code, _, signed := c.get("/svc/log/checkpoint")
			if code != http.StatusOK {
				t.Fatalf("checkpoint: %d %s", code, signed)
			}
			cp, err := leaf.OpenCheckpoint(signed, vkey)
			if err != nil {
				t.Fatal(err)
			}
			if cp.Size > leaf.TileWidth {
				t.Fatalf("a tree of %d leaves: the test reads one bundle", cp.Size)
			}
			code, _, bundle := c.get("/svc/log/tile/" + leaf.BundlePath(0, int(cp.Size)))
			if code != http.StatusOK {
				t.Fatalf("entry bundle: %d %s", code, bundle)
			}
			leaves, err := leaf.SplitBundle(bundle, int(cp.Size))
			if err != nil {
				t.Fatal(err)
			}
			idx := int64(-1)
			for i, text := range leaves {
				if leaf.KindOf(text) == leaf.KindDediKeys {
					idx = int64(i)
				}
			}
			if idx <= 0 {
				t.Fatalf("the key change is at leaf %d of %d", idx, len(leaves))
			}

			path, err := tlog.ProveRecord(cp.Size, idx, tlog.TileHashReader(tlog.Tree{N: cp.Size, Hash: cp.Hash}, c))
			if err != nil {
				t.Fatalf("the audit path from the served tiles: %v", err)
			}
			p := leaf.InclusionProof{LogIndex: idx, TreeSize: cp.Size, Leaf: string(leaves[idx]), Checkpoint: string(signed)}
			for _, h := range path {
				p.Hashes = append(p.Hashes, append([]byte(nil), h[:]...))
			}
			if got, err := leaf.VerifyKeysInclusion(p, vkey, kl); err != nil || got != cp {
				t.Fatalf("the key change's proof: %v", err)
			}

			other, err := (&dedi.Manifest{Domain: "pub.test", UpdatedAt: m.UpdatedAt, Keys: []dedi.Key{k2.Public()}}).KeysLeaf()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := leaf.VerifyKeysInclusion(p, vkey, other); err == nil {
				t.Fatal("the proof verifies for a key set that was not logged")
			}
			if len(p.Hashes) == 0 {
				t.Fatal("an empty audit path")
			}
			p.Hashes[0][0] ^= 1
			if _, err := leaf.VerifyKeysInclusion(p, vkey, kl); err == nil {
				t.Fatal("a changed audit path verifies")
			}
		})
	}
}
