package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/leaf"
)

// TestDediKeyChangeIsTheCrawlsTransaction: the key change is queued by the transaction that
// records the accepted manifest. A key set that cannot be logged (here, not valid UTF-8, or of
// another domain) fails the whole record: neither the manifest nor a leaf is stored. A key
// set differing only in the order of its keys is not a change.
func TestDediKeyChangeIsTheCrawlsTransaction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if _, err := s.AddDediPublisher(ctx, "pub.example"); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		k1 := leaf.Key{Kid: "k1", Kty: "OKP", Crv: "Ed25519", X: "x1"}
		k2 := leaf.Key{Kid: "k2", Kty: "OKP", Crv: "Ed25519", X: "x2"}
		record := func(domain string, keys ...leaf.Key) error {
			kl := leaf.KeysLeaf{Domain: domain, Keys: keys, UpdatedAt: "2026-09-01T12:00:00.000Z", Digest: "0x01"}
			return s.RecordDediCrawl(ctx, "pub.example", store.DediCrawl{Status: store.DediOK, Outcome: "authentic", Success: true,
				NextCrawl: now.Add(time.Minute), Manifest: &store.DediManifest{Bytes: []byte(`{}`), FetchedAt: now, UpdatedAt: now, NextUpdate: now},
				Keys: &kl})
		}
		for name, err := range map[string]error{
			"a kid not valid UTF-8": record("pub.example", leaf.Key{Kid: "\xff", X: "x"}),
			"another domain":        record("other.example", k1),
		} {
			if err == nil {
				t.Fatalf("%s: recorded", name)
			}
			if p, _ := s.DediPublisher(ctx, "pub.example"); p.Manifest.Bytes != nil || p.Status != store.DediPending {
				t.Fatalf("%s: the manifest was recorded without its key change: %+v", name, p)
			}
			if n, _ := s.LogQueueLength(ctx); n != 0 {
				t.Fatalf("%s: %d leaves queued", name, n)
			}
		}
		for _, keys := range [][]leaf.Key{{k2, k1}, {k1, k2}} {
			if err := record("pub.example", keys...); err != nil {
				t.Fatal(err)
			}
		}
		changes, err := s.DediKeyChanges(ctx, "pub.example")
		if n, _ := s.LogQueueLength(ctx); err != nil || len(changes) != 1 || n != 1 || changes[0].Index != -1 {
			t.Fatalf("key changes %+v %v, %d queued", changes, err, n)
		}
	})
}
