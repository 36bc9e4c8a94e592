package translog

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/logstore"
)

// The verifier refuses a tampered leaf, proof hash, checkpoint text or signature, and a
// tampered consistency proof.
func TestVerifierRefusesTampering(t *testing.T) {
	s := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	key := testKey(t)
	g := NewIntegrator(s, key, nil, nil)
	r := NewReader(s)
	v := verifier{t: t, key: key.VerifierKey, r: r}
	_, versions := seedEntries(t, s, 40)
	if _, err := g.integrate(ctx, 20, nil); err != nil {
		t.Fatal(err)
	}
	_, c1, err := r.Checkpoint(ctx)
	if err != nil {
		t.Fatal(err)
	}
	old1, _, _ := r.Checkpoint(ctx)
	drain(t, g, 1000)
	p, err := r.Inclusion(ctx, versions[25], 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.checkInclusion(p); err != nil {
		t.Fatalf("untampered proof refused: %v", err)
	}
	tamper := map[string]func(Inclusion) Inclusion{
		"leaf": func(p Inclusion) Inclusion {
			p.Leaf = []byte(strings.Replace(string(p.Leaf), `"version_count":1`, `"version_count":2`, 1))
			return p
		},
		"index": func(p Inclusion) Inclusion { p.Index++; return p },
		"proof hash": func(p Inclusion) Inclusion {
			p.Hashes = slices.Clone(p.Hashes)
			p.Hashes[1][0] ^= 1
			return p
		},
		"checkpoint text": func(p Inclusion) Inclusion {
			p.Checkpoint = strings.Replace(p.Checkpoint, "\n"+strconv.FormatInt(p.TreeSize, 10)+"\n", "\n"+strconv.FormatInt(p.TreeSize+1, 10)+"\n", 1)
			return p
		},
		"signature": func(p Inclusion) Inclusion {
			i := strings.LastIndex(p.Checkpoint, " ") + 1
			sig, _ := base64.StdEncoding.DecodeString(strings.TrimSpace(p.Checkpoint[i:]))
			sig[len(sig)-1] ^= 1
			p.Checkpoint = p.Checkpoint[:i] + base64.StdEncoding.EncodeToString(sig) + "\n"
			return p
		},
		"other key": func(p Inclusion) Inclusion {
			n, _ := note.Open([]byte(p.Checkpoint), note.VerifierList(key.Verifier))
			other := testKey(t)
			b, _ := note.Sign(&note.Note{Text: n.Text}, other.Signer)
			p.Checkpoint = string(b)
			return p
		},
	}
	for name, f := range tamper {
		if err := v.checkInclusion(f(p)); err == nil {
			t.Errorf("tampered %s accepted", name)
		}
	}
	_, c2, _ := r.Checkpoint(ctx)
	cp, err := r.Consistency(ctx, c1.Size, c2.Size)
	if err != nil {
		t.Fatal(err)
	}
	if err := tlog.CheckTree(cp, c2.Size, c2.Hash, c1.Size, c1.Hash); err != nil {
		t.Fatalf("untampered consistency refused: %v", err)
	}
	bad := slices.Clone(cp)
	bad[0][3] ^= 1
	if tlog.CheckTree(bad, c2.Size, c2.Hash, c1.Size, c1.Hash) == nil {
		t.Error("tampered consistency proof accepted")
	}
	if _, err := v.open(old1); err != nil {
		t.Fatalf("old checkpoint: %v", err)
	}
}

// An integration that fails at its last step (standing in for a crash: its transaction never
// commits) leaves queue, tiles and checkpoint as they were; the next one integrates every
// leaf once, and a second log key or origin is refused on an existing log.
func TestFailedIntegrationLosesAndDuplicatesNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		key := testKey(t)
		g := NewIntegrator(s, key, nil, nil)
		r := NewReader(s)
		v := verifier{t: t, key: key.VerifierKey, r: r}
		_, versions := seedEntries(t, s, 120)
		if _, err := g.integrate(ctx, 50, nil); err != nil {
			t.Fatal(err)
		}
		before, _ := s.LogState(ctx)
		qBefore, _ := s.LogQueueLength(ctx)
		tile0, _ := s.LogTile(ctx, 0, 0)
		crash := errors.New("crash")
		if _, err := g.integrate(ctx, 50, func(up logstore.Update) error {
			if len(up.Tiles) == 0 || up.Checkpoint == "" {
				t.Fatal("an update without tiles or checkpoint")
			}
			return crash
		}); !errors.Is(err, crash) {
			t.Fatalf("failed integration: %v", err)
		}
		after, _ := s.LogState(ctx)
		qAfter, _ := s.LogQueueLength(ctx)
		tile0After, _ := s.LogTile(ctx, 0, 0)
		if after != before || qAfter != qBefore || string(tile0) != string(tile0After) {
			t.Fatalf("a failed integration changed the log: %+v -> %+v, queue %d -> %d", before, after, qBefore, qAfter)
		}
		// A context cancelled mid-integration (the process gone) changes nothing either.
		cctx, cancel := context.WithCancel(ctx)
		if _, err := g.integrate(cctx, 50, func(logstore.Update) error { cancel(); return nil }); err == nil {
			t.Fatal("an integration whose context ended committed")
		}
		if st, _ := s.LogState(ctx); st != before {
			t.Fatalf("a cancelled integration changed the log: %+v", st)
		}
		// Another key or origin does not continue this log.
		other := NewIntegrator(s, testKey(t), nil, nil)
		if _, err := other.IntegrateOnce(ctx); err == nil || !strings.Contains(err.Error(), "not signed by this log's key") {
			t.Fatalf("another key: %v", err)
		}
		skey, _, _ := GenerateKey("elsewhere.example/svc/log")
		ok, _ := ParseKey(skey)
		if _, err := NewIntegrator(s, ok, nil, nil).IntegrateOnce(ctx); err == nil || !strings.Contains(err.Error(), "origin") {
			t.Fatalf("another origin: %v", err)
		}
		drain(t, g, 1000)
		signed, _, _ := r.Checkpoint(ctx)
		tree, err := v.open(signed)
		if err != nil {
			t.Fatal(err)
		}
		seen := checkOrder(t, v.checkTiles(ctx, tree))
		if len(seen) != len(versions) {
			t.Fatalf("%d leaves for %d versions", len(seen), len(versions))
		}
	})
}

// Writers on two store handles and integrators on both, all at once: afterwards every public
// version written is in the log exactly once, each entry's versions in order.
func TestConcurrentWritersAndIntegrators(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s1, dbURL := storetest.OpenURL(t, d)
			s2, err := store.Open(ctx, dbURL, nil, store.Options{MaxOpenConns: 10})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s2.Close() })
			key := testKey(t)
			ns, versions := seedEntries(t, s1, 20)
			var mu sync.Mutex
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for _, s := range []*store.Store{s1, s2} {
				g := NewIntegrator(s, key, nil, nil)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := g.integrate(ctx, 25, nil); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			var writers sync.WaitGroup
			for w, s := range []*store.Store{s1, s2, s1, s2} {
				writers.Add(1)
				go func() {
					defer writers.Done()
					for i := range 15 {
						// Two writers share each record: updates of one entry race.
						name := fmt.Sprintf("p%05d", (w%2)*10+i%5)
						rec, err := s.UpdateRecord(ctx, ns.NamespaceID, "people", name, "", directory.RecordPatch{Details: map[string]any{"w": float64(w), "i": float64(i)}})
						if err != nil {
							t.Error(err)
							return
						}
						added, err := s.AddRecords(ctx, ns.NamespaceID, "people", creator, []directory.RecordInput{
							{RecordName: fmt.Sprintf("w%d-%d", w, i), Details: map[string]any{"n": 1.0}}})
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						versions = append(versions, rec.Version, added[0].Version)
						mu.Unlock()
					}
				}()
			}
			writers.Wait()
			close(stop)
			wg.Wait()
			g := NewIntegrator(s1, key, nil, nil)
			drain(t, g, 1000)
			r := NewReader(s1)
			v := verifier{t: t, key: key.VerifierKey, r: r}
			signed, _, _ := r.Checkpoint(ctx)
			tree, err := v.open(signed)
			if err != nil {
				t.Fatal(err)
			}
			seen := checkOrder(t, v.checkTiles(ctx, tree))
			if len(seen) != len(versions) {
				t.Fatalf("%d leaves, %d public versions written", len(seen), len(versions))
			}
			for _, ver := range versions {
				if !seen[ver] {
					t.Fatalf("version %s is not in the log", ver)
				}
			}
		})
	}
}

// An inclusion proof shows the leaf the log holds. The reader builds it from the version's row
// (no entry bundle to read) only when the tree holds exactly that leaf: a row changed after it
// was logged gets the logged leaf, whose digest is then not the row's.
func TestInclusionShowsTheLoggedLeaf(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			s, dbURL := storetest.OpenURL(t, d)
			key := testKey(t)
			r := NewReader(s)
			v := verifier{t: t, key: key.VerifierKey, r: r}
			ns, versions := seedEntries(t, s, 300)
			drain(t, NewIntegrator(s, key, nil, nil), 1000)
			target := versions[len(versions)-1] // record p00299
			before, err := r.Inclusion(ctx, target, 0)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := s.GetRecord(ctx, ns.NamespaceID, "people", "p00299", directory.VersionSel{})
			if err != nil || rec.Version != target {
				t.Fatalf("record p00299 at %s (%v), want %s", rec.Version, err, target)
			}
			if !strings.Contains(string(before.Leaf), rec.Digest) {
				t.Fatalf("leaf %s does not hold the record's digest %s", before.Leaf, rec.Digest)
			}
			forged := strings.Repeat("ab", 32)
			storetest.Exec(t, dbURL, `UPDATE record_versions SET digest = '`+forged+`' WHERE version = '`+target+`'`)
			after, err := r.Inclusion(ctx, target, 0)
			if err != nil {
				t.Fatal(err)
			}
			if string(after.Leaf) != string(before.Leaf) || strings.Contains(string(after.Leaf), forged) {
				t.Fatalf("after the row changed the proof shows %s, logged %s", after.Leaf, before.Leaf)
			}
			if err := v.checkInclusion(after); err != nil {
				t.Fatal(err)
			}
		})
	}
}
