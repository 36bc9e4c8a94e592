package ingest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/svc-directory/svc/dedi"
	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// TestIngestRefusedFileIsItsOutcome: an authentic file that the directory cannot index (one
// record of 70,000 bytes of details) is that file's outcome, invalid, naming the record and
// the rule; the files listed after it are indexed; the publisher reads failed and names the
// file. Once accepted, a refused refresh leaves the accepted copy and the other files move on.
func TestIngestRefusedFileIsItsOutcome(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "pub.test", c.Now())
		p.registry("first", rec("a", map[string]any{"id": "a"}))
		p.registry("big", rec("huge", map[string]any{"id": "huge", "blob": strings.Repeat("x", 70000)}))
		p.registry("last", rec("z", map[string]any{"id": "z"}))
		p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(ctx, "pub.test"); err != nil {
			t.Fatal(err)
		}
		svc := newService(s, o, c)
		rep := mustCrawl(t, svc, "pub.test")
		big := rep.Files["big"]
		if big.Outcome != string(dedi.Invalid) || !strings.Contains(big.Reason, "huge") || !strings.Contains(big.Reason, "64 KiB") {
			t.Fatalf("the refused file: %+v", big)
		}
		if rep.Files["first"].Outcome != "authentic" || rep.Files["last"].Outcome != "authentic" {
			t.Fatalf("the other files: %s", describe(rep))
		}
		if _, err := s.GetRecord(ctx, "pub.test", "last", "z", directory.VersionSel{}); err != nil {
			t.Fatalf("the file after the refused one was not indexed: %v", err)
		}
		if _, err := s.GetRecord(ctx, "pub.test", "big", "huge", directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
			t.Fatalf("a record of the refused file: %v", err)
		}
		pub, err := s.DediPublisher(ctx, "pub.test")
		if err != nil || pub.Status != store.DediFailed || pub.LastOutcome != string(dedi.Invalid) || pub.LastSuccess == nil ||
			!strings.Contains(pub.LastReason, "1 of the 3 files") || !strings.Contains(pub.LastReason, "big (invalid: ") {
			t.Fatalf("publisher: %+v, %v", pub, err)
		}

		// Accepted first, refused on a refresh: the accepted copy stays live, the others move.
		p.files["big"].Records = []dedi.Record{rec("huge", map[string]any{"id": "small"})}
		c.Add(time.Minute)
		p.publish(t, c.Now())
		if rep = mustCrawl(t, svc, "pub.test"); rep.Status != store.DediOK || rep.Outcome != "authentic" || rep.Files["big"].Outcome != "authentic" {
			t.Fatalf("the fixed file: %s", describe(rep))
		}
		p.files["big"].Records = []dedi.Record{rec("huge", map[string]any{"id": "huge", "blob": strings.Repeat("y", 70000)})}
		p.files["last"].Records = []dedi.Record{rec("z", map[string]any{"id": "z", "n": 2.0})}
		c.Add(time.Minute)
		p.publish(t, c.Now())
		rep = mustCrawl(t, svc, "pub.test")
		if rep.Files["big"].Outcome != string(dedi.Invalid) || rep.Files["big"].State != store.OriginLive || rep.Status != store.DediFailed {
			t.Fatalf("the refused refresh: %s", describe(rep))
		}
		if z, err := s.GetRecord(ctx, "pub.test", "last", "z", directory.VersionSel{}); err != nil || z.Details["n"] != 2.0 {
			t.Fatalf("the file after the refused refresh: %+v, %v", z, err)
		}
		if h, err := s.GetRecord(ctx, "pub.test", "big", "huge", directory.VersionSel{}); err != nil || h.Details["id"] != "small" {
			t.Fatalf("the accepted copy of the refused file: %+v, %v", h, err)
		}
		if f := fileState(t, s, "pub.test", "big"); f.LastOutcome != string(dedi.Invalid) || f.State != store.OriginLive || !strings.Contains(f.LastReason, "huge") {
			t.Fatalf("the refused file's row: %s %s %q", f.State, f.LastOutcome, f.LastReason)
		}
	})
}

// TestIngestStoresEveryDeDiName: the names of the hostile file (issue 42), which the DeDi
// draft allows, are stored as they are, each at its exact triple: a record's name in its
// registry, a registry's name in the namespace, the longest names the store holds (1,024
// characters, 2,048 bytes of four-byte characters: Postgres's index rows) too. A look-alike
// of a name is a name of its own. Only a name that the store cannot hold (over 2,048
// bytes) or no URL can address (`..`) refuses its file as invalid, with the name and the rule (a name over 1,024
// characters is not a DeDi file's, and one with U+0000 not JSON the verifier reads: neither
// reaches the index).
func TestIngestStoresEveryDeDiName(t *testing.T) {
	hostile := map[string]string{ // registry → record name
		"img":    "<img src=x onerror=alert(1)>",
		"dots":   "../../etc/passwd",
		"cyr":    "\u0430dmin", // Cyrillic а
		"query":  "a/b?c#d",
		"spaced": " spaced ",
		"rlo":    "ad\u202emin",
		"pct":    "a%2Fb%",
		"long":   strings.Repeat("n", 1024),
		"wide":   strings.Repeat("\U0001F600", 512), // 2,048 bytes
	}
	refused := map[string]string{ // registry → record name, and what the reason says
		"toowide": strings.Repeat("\U0001F600", 513),
		"dotdot":  "..",
	}
	bigRegistry := strings.Repeat("\u65e5", 682) // 2,046 bytes
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c := &clock{t: t0}
		o := newOrigin(t)
		p := newPublisher(t, o, "pub.test", c.Now())
		p.registry("good", rec("admin", map[string]any{"id": "admin"}), rec("\u0430dmin", map[string]any{"id": "cyrillic"}))
		for reg, name := range hostile {
			p.registry(reg, rec("ok", map[string]any{"id": "ok"}), rec(name, map[string]any{"id": reg}))
		}
		for reg, name := range refused {
			p.registry(reg, rec("ok", map[string]any{"id": "ok"}), rec(name, map[string]any{"id": reg}))
		}
		p.registry("<svg onload=alert(1)>", rec("fine", map[string]any{"id": "svg"}))
		p.registry(bigRegistry, rec("fine", map[string]any{"id": "big"}))
		p.publish(t, c.Now())
		if _, err := s.AddDediPublisher(ctx, "pub.test"); err != nil {
			t.Fatal(err)
		}
		rep := mustCrawl(t, newService(s, o, c), "pub.test")
		for _, reg := range []string{"good", "<svg onload=alert(1)>", bigRegistry} {
			if rep.Files[reg].Outcome != "authentic" {
				t.Fatalf("file %.20q: %+v", reg, rep.Files[reg])
			}
		}
		for reg, name := range hostile {
			if f := rep.Files[reg]; f.Outcome != "authentic" {
				t.Errorf("record %.40q: %+v", name, f)
				continue
			}
			r, err := s.GetRecord(ctx, "pub.test", reg, name, directory.VersionSel{})
			if err != nil || r.RecordName != name || r.Details["id"] != reg {
				t.Errorf("record %.40q of %s: %+v, %v", name, reg, r, err)
			}
		}
		for reg, name := range refused {
			f := rep.Files[reg]
			if f.Outcome != string(dedi.Invalid) || !strings.Contains(f.Reason, "record ") || !strings.Contains(f.Reason, "an origin-hosted namespace cannot hold it") {
				t.Errorf("record %.20q: %+v", name, f)
			}
			if _, err := s.GetRecord(ctx, "pub.test", reg, "ok", directory.VersionSel{}); !errors.Is(err, directory.ErrNotFound) {
				t.Errorf("a record of the refused file %s was stored: %v", reg, err)
			}
		}
		for reg, id := range map[string]string{"<svg onload=alert(1)>": "svg", bigRegistry: "big"} {
			if r, err := s.GetRecord(ctx, "pub.test", reg, "fine", directory.VersionSel{}); err != nil || r.RegistryName != reg || r.Details["id"] != id {
				t.Errorf("the record of registry %.20q: %+v, %v", reg, r, err)
			}
			if f, err := s.DediFile(ctx, "pub.test", reg); err != nil || f.Registry != reg {
				t.Errorf("the file of registry %.20q: %+v, %v", reg, f, err)
			}
		}
		// The look-alikes are two records, each at its own name.
		if a, err := s.GetRecord(ctx, "pub.test", "good", "admin", directory.VersionSel{}); err != nil || a.Details["id"] != "admin" {
			t.Fatalf("admin: %+v, %v", a, err)
		}
		if a, err := s.GetRecord(ctx, "pub.test", "good", "\u0430dmin", directory.VersionSel{}); err != nil || a.Details["id"] != "cyrillic" {
			t.Fatalf("the look-alike of admin: %+v, %v", a, err)
		}
		pub, _ := s.DediPublisher(ctx, "pub.test")
		if pub.Status != store.DediFailed || !strings.Contains(pub.LastReason, "2 of the 14 files") {
			t.Fatalf("publisher: %s %s %q", pub.Status, pub.LastOutcome, pub.LastReason)
		}
	})
}
