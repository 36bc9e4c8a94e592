package ingest_test

import (
	"bytes"
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// publishDigests is publish for a publisher with a digests document: the manifest (signed at
// manifestAt, so that its bytes change only when its keys or registries do) names
// /dedi/dedi.digests.json and lists the files without a digest; the digests document, signed
// at now, commits to each file.
func (p *publisher) publishDigests(t *testing.T, now, manifestAt time.Time) (files map[string][]byte, digests []byte) {
	t.Helper()
	files = map[string][]byte{}
	m := &dedi.Manifest{Domain: p.domain, UpdatedAt: manifestAt, NextUpdate: manifestAt.Add(30 * 24 * time.Hour),
		DigestsURL: "https://" + p.domain + dedi.DigestsPath}
	for _, k := range p.keys {
		m.Keys = append(m.Keys, k.Public())
	}
	d := &dedi.Digests{Domain: p.domain, UpdatedAt: now, NextUpdate: now.Add(p.validFor), Digests: map[string]string{}}
	for _, name := range p.order {
		f := p.files[name]
		f.Registry.UpdatedAt, f.NextUpdate = now, now.Add(p.validFor)
		b, err := dedi.SignFile(f, p.fileKey)
		if err != nil {
			t.Fatal(err)
		}
		p.o.put(p.domain, "/dedi/dedi."+name+".json", b)
		files[name] = b
		d.Digests[name] = dedi.Digest(b)
		m.Files = append(m.Files, dedi.Entry{Registry: name, URL: f.SourceURL})
	}
	mb, err := dedi.SignManifest(m, p.signer)
	if err != nil {
		t.Fatal(err)
	}
	p.o.put(p.domain, dedi.WellKnownPath, mb)
	files["manifest"] = mb
	if digests, err = dedi.SignDigests(d, p.signer); err != nil {
		t.Fatal(err)
	}
	p.o.put(p.domain, dedi.DigestsPath, digests)
	return files, digests
}

// TestDigestsDocumentCrawl: a publisher with a digests document is crawled, verified and
// followed: a content change re-signs only the digests document and the changed file (the
// manifest answers 304), the document is kept to relay, and one that fails makes the files
// wait with its outcome while their accepted copies stay served.
func TestDigestsDocumentCrawl(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "pub.test", c.Now())
		p.registry("keys", rec("a", map[string]any{"id": "a", "n": 1.0}))
		p.registry("more", rec("m", map[string]any{"id": "m"}))
		manifestAt := c.Now()
		sent, digests := p.publishDigests(t, c.Now(), manifestAt)
		if _, err := s.AddDediPublisher(ctx, "pub.test"); err != nil {
			t.Fatal(err)
		}
		svc := newService(s, o, c)
		rep := mustCrawl(t, svc, "pub.test")
		if rep.Status != store.DediOK || rep.Digests != "authentic" || rep.Files["keys"].Outcome != "authentic" || rep.Requests != 4 {
			t.Fatalf("first crawl: %s", describe(rep))
		}
		pub, err := s.DediPublisher(ctx, "pub.test")
		if err != nil || !bytes.Equal(pub.Digests.Bytes, digests) || pub.Digests.DediVersion != "0.1" || pub.Manifest.DediVersion != "0.1" {
			t.Fatalf("the digests document kept: %+v, %v", pub.Digests, err)
		}
		if f := fileState(t, s, "pub.test", "keys"); f.DediVersion != "0.1" {
			t.Fatalf("the file's version recorded: %q", f.DediVersion)
		}

		// A content change: the file and the digests document, not the manifest.
		c.Add(time.Minute)
		p.files["keys"].Records = []dedi.Record{rec("a", map[string]any{"id": "a", "n": 2.0})}
		again, _ := p.publishDigests(t, c.Now(), manifestAt)
		if !bytes.Equal(again["manifest"], sent["manifest"]) {
			t.Fatal("the manifest changed with the content")
		}
		before := o.notMod.Load()
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Status != store.DediOK || rep.Files["keys"].NewVersions != 1 || o.notMod.Load()-before != 1 {
			t.Fatalf("content change: %s (304s %d)", describe(rep), o.notMod.Load()-before)
		}
		a, _ := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{})
		if a.Details["n"] != 2.0 {
			t.Fatalf("a did not follow: %+v", a.Details)
		}

		// The publisher updates between the crawler's fetch of the digests document and of the
		// file: the file does not have the digest listed, the document is fetched once more,
		// and the file is accepted.
		c.Add(time.Minute)
		oldDigests := must(s.DediPublisher(ctx, "pub.test")).Digests.Bytes
		p.files["keys"].Records = []dedi.Record{rec("a", map[string]any{"id": "a", "n": 3.0})}
		t3 := c.Now()
		_, newDigests := p.publishDigests(t, t3, manifestAt)
		var served atomic.Int64
		o.handle("pub.test", dedi.DigestsPath, func(w http.ResponseWriter, r *http.Request) {
			if served.Add(1) == 1 {
				_, _ = w.Write(oldDigests) // the first answer is the one from before the update
				return
			}
			_, _ = w.Write(newDigests)
		})
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Status != store.DediOK || rep.Files["keys"].Outcome != "authentic" || served.Load() != 2 {
			t.Fatalf("refetch on a mismatch: %s, digests fetched %d times", describe(rep), served.Load())
		}
		if a, _ := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{}); a.Details["n"] != 3.0 {
			t.Fatalf("a did not follow: %+v", a.Details)
		}

		// A file that does not match even the document fetched again is refused.
		c.Add(time.Minute)
		served.Store(0)
		o.handle("pub.test", dedi.DigestsPath, nil)
		o.put("pub.test", "/dedi/dedi.more.json", sent["keys"]) // another (authentic) file
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Files["more"].Outcome != string(dedi.DigestMismatch) && rep.Files["more"].Outcome != string(dedi.NotAuthenticated) {
			t.Fatalf("a swapped file: %s", describe(rep))
		}
		if n := o.count("pub.test" + dedi.DigestsPath); n < 2 {
			t.Fatalf("the digests document was fetched %d times", n)
		}

		// The digests document signed by a key the manifest does not list: every referenced
		// file waits with its outcome; the accepted copies stay, live until their next_update.
		c.Add(time.Minute)
		p.publishDigests(t, t3, manifestAt) // the files accepted last, byte for byte (Ed25519 is deterministic)
		stranger, _ := dedi.GenerateKey("stranger")
		bad, err := dedi.SignDigests(&dedi.Digests{Domain: "pub.test", UpdatedAt: c.Now(), NextUpdate: c.Now().Add(time.Hour),
			Digests: map[string]string{"keys": dedi.Digest(sent["keys"])}}, stranger)
		if err != nil {
			t.Fatal(err)
		}
		o.put("pub.test", dedi.DigestsPath, bad)
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Digests != string(dedi.DigestsNotAuthenticated) || rep.Files["keys"].Outcome != string(dedi.DigestsNotAuthenticated) ||
			rep.Status != store.DediFailed || rep.Files["keys"].State != store.OriginLive {
			t.Fatalf("a digests document by a stranger: %s", describe(rep))
		}
		if a, _ := s.GetRecord(ctx, "pub.test", "keys", "a", directory.VersionSel{}); a.Details["n"] != 3.0 {
			t.Fatalf("the accepted copy is not served: %+v", a.Details)
		}

		// The digests document unreachable: the accepted one stands in while fresh.
		c.Add(time.Minute)
		o.handle("pub.test", dedi.DigestsPath, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) })
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Digests != "authentic" || rep.Files["keys"].Outcome != "authentic" {
			t.Fatalf("the accepted digests document standing in: %s", describe(rep))
		}
		c.Add(25 * time.Hour) // past its next_update (and the files')
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Digests != string(dedi.DigestsUnavailable) || rep.Files["keys"].State != store.OriginStale {
			t.Fatalf("the accepted digests document expired: %s", describe(rep))
		}
	})
}

// TestCoreSchemaReadsAsTag: a registry ingested with a core schema named by URL reads as the
// matching svc tag, with the pinned schema its records were checked against.
func TestCoreSchemaReadsAsTag(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "pub.test", c.Now())
		f := p.registry("revocations", rec("r1", map[string]any{"revoked_id": "cred-1", "reason": "lost"}))
		f.Registry.Schema = "https://raw.githubusercontent.com/LF-Decentralized-Trust-labs/decentralized-directory-protocol/main/schemas/Revoke.json"
		p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(ctx, "pub.test"); err != nil {
			t.Fatal(err)
		}
		rep := mustCrawl(t, newService(s, o, c), "pub.test")
		if rep.Status != store.DediOK {
			t.Fatalf("crawl: %s", describe(rep))
		}
		regs, err := s.RegistriesByTag(ctx, "revoke", directory.StateLive)
		if err != nil || len(regs) != 1 || regs[0].RegistryName != "revocations" {
			t.Fatalf("registries of tag revoke: %+v, %v", regs, err)
		}
		if regs[0].Schema["$id"] != "https://dedi.global/revoke.json" {
			t.Fatalf("the registry's schema is not the pinned copy: %v", regs[0].Schema)
		}
	})
}
