package ingest_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog"
	"github.com/svc-directory/svc/translog/leaf"
)

// TestKeyChangesAreLogged (docs/dedi-files.md, "Key changes are logged"): the first accepted
// manifest of a publisher queues one dedi-keys leaf in the crawl's transaction; re-crawling it
// unchanged (a 304) or with only a file changed queues none; a rotated key queues one; the
// leaves are integrated into a signed checkpoint and their inclusion proofs verify; a log
// restart queues them again where they were among the versions.
func TestKeyChangesAreLogged(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "keys.test", c.Now())
		p.registry("people", rec("a", map[string]any{"id": "a"}))
		sent := p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(ctx, "keys.test"); err != nil {
			t.Fatal(err)
		}
		svc := newService(s, o, c)
		queuedKeys := func() []leaf.KeysLeaf {
			t.Helper()
			q, err := s.LogQueuedLeaves(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var out []leaf.KeysLeaf
			for _, e := range q {
				if leaf.KindOf(e.Leaf) != leaf.KindDediKeys {
					continue
				}
				l, err := leaf.ParseKeys(e.Leaf)
				if err != nil || string(e.Version) != l.Digest {
					t.Fatalf("queued key leaf %s: %v (queued as %s)", e.Leaf, err, e.Version)
				}
				out = append(out, l)
			}
			return out
		}

		mustCrawl(t, svc, "keys.test")
		first := queuedKeys()
		if len(first) != 1 || !slices.Equal(first[0].KeyIDs(), []string{"key-1"}) || first[0].Domain != "keys.test" ||
			first[0].UpdatedAt != "2026-09-01T12:00:00.000Z" {
			t.Fatalf("after the first crawl: %+v", first)
		}
		m, err := dedi.ParseManifest(sent["manifest"], dedi.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := m.KeysLeaf(); want.Digest != first[0].Digest || !strings.HasPrefix(want.Digest, "0x") {
			t.Fatalf("digest %s, want %s", first[0].Digest, want.Digest)
		}

		// Unchanged (304), then a file changed under the same keys: no key leaf.
		c.Add(time.Minute)
		mustCrawl(t, svc, "keys.test")
		c.Add(time.Minute)
		p.files["people"].Records = append(p.files["people"].Records, rec("b", map[string]any{"id": "b"}))
		p.publish(t, c.Now())
		if rep := mustCrawl(t, svc, "keys.test"); rep.NewVersions == 0 {
			t.Fatalf("the changed file made no version: %s", describe(rep))
		}
		if got := queuedKeys(); len(got) != 1 {
			t.Fatalf("an unchanged key set queued key leaves: %+v", got)
		}

		// A key added (rotation with overlap): one key leaf.
		c.Add(time.Minute)
		k2, _ := dedi.GenerateKey("key-2")
		p.keys = append(p.keys, k2)
		p.signer, p.fileKey = k2, k2
		p.publish(t, c.Now())
		mustCrawl(t, svc, "keys.test")
		got := queuedKeys()
		if len(got) != 2 || !slices.Equal(got[1].KeyIDs(), []string{"key-1", "key-2"}) {
			t.Fatalf("after the rotation: %+v", got)
		}

		// Waiting, a key change is pending in the log under its digest.
		if pending, err := s.LogPending(ctx, got[1].Digest); err != nil || !pending {
			t.Fatalf("a queued key change is not pending: %v %v", pending, err)
		}
		// Integrated: each key change gets its index, and its inclusion proof verifies.
		skey, vkey, err := translog.GenerateKey("log.keys.test/svc/log")
		if err != nil {
			t.Fatal(err)
		}
		lk, err := translog.ParseKey(skey)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := translog.NewIntegrator(s, lk, nil, nil).IntegrateOnce(ctx); err != nil {
			t.Fatal(err)
		}
		changes, err := s.DediKeyChanges(ctx, "keys.test")
		if err != nil || len(changes) != 2 {
			t.Fatalf("key changes: %+v %v", changes, err)
		}
		r := translog.NewReader(s)
		for i, ch := range changes {
			if ch.Index < 0 || ch.Leaf != string(must(got[i].Canonical())) {
				t.Fatalf("key change %d: %+v", i, ch)
			}
			in, err := r.InclusionAt(ctx, ch.Index)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := leaf.VerifyKeysInclusion(proofOf(in), vkey, got[i]); err != nil {
				t.Fatalf("inclusion of key change %d: %v", i, err)
			}
		}
		if changes[0].Index >= changes[1].Index {
			t.Fatalf("key changes out of order: %+v", changes)
		}

		// A log restart queues every leaf again, the key changes among the versions where they
		// were: the new log's leaves are the old log's, in its order.
		_, cp, err := r.Checkpoint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var logged []string
		for i := range cp.Size {
			text, err := r.Leaf(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			logged = append(logged, string(text))
		}
		if _, err := s.RestartLog(ctx, "log2.keys.test/svc/log"); err != nil {
			t.Fatal(err)
		}
		q, err := s.LogQueuedLeaves(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var requeued []string
		for _, e := range q {
			requeued = append(requeued, string(e.Leaf))
		}
		if !slices.Equal(requeued, logged) {
			t.Fatalf("the restart queued\n%s\nwant the old log's\n%s", strings.Join(requeued, "\n"), strings.Join(logged, "\n"))
		}
		skey2, vkey2, _ := translog.GenerateKey("log2.keys.test/svc/log")
		lk2, _ := translog.ParseKey(skey2)
		if _, err := translog.NewIntegrator(s, lk2, nil, nil).IntegrateOnce(ctx); err != nil {
			t.Fatal(err)
		}
		again, err := s.DediKeyChanges(ctx, "keys.test")
		if err != nil || len(again) != 2 || again[1].Index != changes[1].Index {
			t.Fatalf("key changes after the restart: %+v %v (before: %+v)", again, err, changes)
		}
		in, err := translog.NewReader(s).InclusionAt(ctx, again[1].Index)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := leaf.VerifyKeysInclusion(proofOf(in), vkey2, got[1]); err != nil {
			t.Fatalf("inclusion after the restart: %v", err)
		}
	})
}

func proofOf(in translog.Inclusion) leaf.InclusionProof {
	p := leaf.InclusionProof{LogIndex: in.Index, TreeSize: in.TreeSize, Leaf: string(in.Leaf), Checkpoint: in.Checkpoint}
	for _, h := range in.Hashes {
		p.Hashes = append(p.Hashes, h[:])
	}
	return p
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
