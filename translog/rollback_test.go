package translog

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
	"github.com/svc-directory/svc/translog/logstore"
	"github.com/svc-directory/svc/translog/witnesstest"
)

// rolledBack makes the databases of a rollback: ahead holds a log of 20 records, behind one of 3
// (the standby promoted without the log's end), both signed with key and integrated by their
// own integrators; it returns the integrator of ahead and behind's state.
func rolledBack(t *testing.T, d string, key Key) (ahead, behind *store.Store, g *Integrator, before logstore.State) {
	t.Helper()
	ahead, behind = storetest.Open(t, d), storetest.Open(t, d)
	seedEntries(t, ahead, 20)
	seedEntries(t, behind, 3)
	g = NewIntegrator(ahead, key, slog.New(slog.DiscardHandler), nil)
	drain(t, g, 1000)
	drain(t, NewIntegrator(behind, key, slog.New(slog.DiscardHandler), nil), 1000)
	before, err := behind.LogState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if big, _ := ahead.LogState(context.Background()); big.Size <= before.Size || g.RolledBack() || before.RolledBack.Marked() {
		t.Fatalf("sizes %d and %d, marker %+v", big.Size, before.Size, before.RolledBack)
	}
	seedEntries(t, behind, 2) // writes after the failover, waiting to be signed
	return ahead, behind, g, before
}

// A log found behind a checkpoint the integrator signed (the database it writes to is now a
// standby promoted without the log's end): the integrator refuses to sign, and keeps refusing,
// rather than fork the log; the stored checkpoint stays as it was. It records the marker, so
// that an integrator started later refuses too, until svc log restart clears it.
func TestIntegratorRefusesARolledBackLog(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			key := testKey(t)
			ahead, behind, g, before := rolledBack(t, d, key)
			big, _ := ahead.LogState(ctx)

			g.st = behind // the failover
			for range 2 {
				if _, err := g.IntegrateOnce(ctx); !errors.Is(err, ErrRolledBack) {
					t.Fatalf("integrating a rolled-back log: %v", err)
				}
			}
			after, err := behind.LogState(ctx)
			if err != nil || after.Size != before.Size || after.Checkpoint != before.Checkpoint || !g.RolledBack() {
				t.Fatalf("the rolled-back log moved: %+v, was %+v (%v)", after, before, err)
			}
			m := after.RolledBack
			if m.Behind != big.Size || m.Size != before.Size || !strings.Contains(m.Found, "this instance") || m.At.IsZero() {
				t.Fatalf("the marker: %+v, want behind %d, size %d", m, big.Size, before.Size)
			}

			fresh := NewIntegrator(behind, key, slog.New(slog.DiscardHandler), nil) // an instance started after
			if _, err := fresh.IntegrateOnce(ctx); !errors.Is(err, ErrRolledBack) || !fresh.RolledBack() {
				t.Fatalf("a fresh integrator on a marked log: %v", err)
			}
			if again, _ := behind.LogState(ctx); again.Checkpoint != before.Checkpoint {
				t.Fatal("a fresh integrator signed a marked log")
			}

			if _, err := behind.RestartLog(ctx, "localhost:8080/svc/log/2"); err != nil {
				t.Fatal(err)
			}
			if st, _ := behind.LogState(ctx); st.RolledBack.Marked() {
				t.Fatalf("svc log restart left the marker: %+v", st.RolledBack)
			}
			skey, _, err := GenerateKey("localhost:8080/svc/log/2")
			if err != nil {
				t.Fatal(err)
			}
			k2, err := ParseKey(skey)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := NewIntegrator(behind, k2, slog.New(slog.DiscardHandler), nil).IntegrateOnce(ctx); err != nil || n == 0 {
				t.Fatalf("the new log after the restart: %d %v", n, err)
			}
		})
	}
}

// An instance started after the rollback, before any instance found it (no marker, nothing in
// memory): its database cannot tell, but the witness holds the larger log. The integrator asks
// the witness before it signs, refuses and records the marker; the witness is not asked to
// cosign a fork and keeps the larger log. Without the witness the same instance would sign.
func TestFreshInstanceFindsTheRollbackFromTheWitness(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			key := testKey(t)
			ahead, behind, _, before := rolledBack(t, d, key)
			w := witnesstest.New(t, "w.example", key.VerifierKey)
			cfg := []WitnessConfig{{Key: w.VerifierKey, URL: w.URL}}
			on, err := NewWitnesser(ahead, key.VerifierKey, cfg, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := on.WitnessOnce(ctx); err != nil || n != 1 {
				t.Fatalf("witnessing the log before the failover: %d %v", n, err)
			}
			big, _ := ahead.LogState(ctx)
			if w.Latest(key.Signer.Name()) != big.Size {
				t.Fatalf("the witness holds %d, the log %d", w.Latest(key.Signer.Name()), big.Size)
			}

			wr, err := NewWitnesser(behind, key.VerifierKey, cfg, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			g := NewIntegrator(behind, key, slog.New(slog.DiscardHandler), nil).WithOutside(wr.Floor)
			if _, err := g.IntegrateOnce(ctx); !errors.Is(err, ErrRolledBack) {
				t.Fatalf("a fresh integrator on a rolled-back log with a witness: %v", err)
			}
			st, err := behind.LogState(ctx)
			if err != nil || st.Checkpoint != before.Checkpoint || st.Size != before.Size {
				t.Fatalf("the rolled-back log moved: %+v (%v)", st, err)
			}
			if m := st.RolledBack; m.Behind != big.Size || m.Size != before.Size || !strings.Contains(m.Found, "w.example") {
				t.Fatalf("the marker: %+v, want behind %d (the witness's), size %d", m, big.Size, before.Size)
			}
			if n, err := wr.WitnessOnce(ctx); err == nil || n != 0 {
				t.Fatalf("the witness cosigned the rolled-back log: %d %v", n, err)
			}
			if w.Latest(key.Signer.Name()) != big.Size {
				t.Fatalf("the witness went back to %d", w.Latest(key.Signer.Name()))
			}
		})
	}
}

// Until enough witnesses have told the size they hold, a fresh integrator does not sign (it
// cannot tell a rollback); once they have and the log is not behind, it signs as before, and
// from then on without asking them again.
func TestIntegratorWaitsForTheWitnessesSizes(t *testing.T) {
	ctx := context.Background()
	key := testKey(t)
	s := storetest.Open(t, store.DialectSQLite)
	seedEntries(t, s, 5)
	drain(t, NewIntegrator(s, key, slog.New(slog.DiscardHandler), nil), 1000)
	w1 := witnesstest.New(t, "w1.example", key.VerifierKey)
	w2 := witnesstest.New(t, "w2.example", key.VerifierKey)
	cfg := []WitnessConfig{{Key: w1.VerifierKey, URL: w1.URL}, {Key: w2.VerifierKey, URL: w2.URL}}
	on, err := NewWitnesser(s, key.VerifierKey, cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := on.WitnessOnce(ctx); err != nil || n != 2 {
		t.Fatalf("witnessing: %d %v", n, err)
	}
	seedEntries(t, s, 3)
	before, _ := s.LogState(ctx)

	// Quorum 2 of 2: one witness that answers is enough to know the largest cosigned size.
	w1.SetMode(witnesstest.Down)
	w2.SetMode(witnesstest.Down)
	wr, err := NewWitnesser(s, key.VerifierKey, cfg, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := NewIntegrator(s, key, slog.New(slog.DiscardHandler), nil).WithOutside(wr.Floor)
	if _, err := g.IntegrateOnce(ctx); !errors.Is(err, ErrRollbackUnknown) {
		t.Fatalf("with every witness down: %v", err)
	}
	if st, _ := s.LogState(ctx); st.Size != before.Size || st.RolledBack.Marked() {
		t.Fatalf("signed without knowing the witnesses' sizes: %+v", st)
	}
	w2.SetMode(witnesstest.Honest)
	if n, err := g.IntegrateOnce(ctx); err != nil || n == 0 {
		t.Fatalf("with one witness of quorum 2 of 2 answering: %d %v", n, err)
	}
	calls := w2.Calls()
	seedEntries(t, s, 1)
	if n, err := g.IntegrateOnce(ctx); err != nil || n == 0 || w2.Calls() != calls {
		t.Fatalf("the next integration: %d %v, %d more calls to the witness", n, err, w2.Calls()-calls)
	}

	// Quorum 1 of 2: both must answer (the one cosigner of the largest may be the silent one).
	wr1, err := NewWitnesser(s, key.VerifierKey, cfg, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	g1 := NewIntegrator(s, key, slog.New(slog.DiscardHandler), nil).WithOutside(wr1.Floor)
	seedEntries(t, s, 1)
	if _, err := g1.IntegrateOnce(ctx); !errors.Is(err, ErrRollbackUnknown) {
		t.Fatalf("quorum 1 of 2 with one witness down: %v", err)
	}
	w1.SetMode(witnesstest.Honest)
	if n, err := g1.IntegrateOnce(ctx); err != nil || n == 0 {
		t.Fatalf("quorum 1 of 2 with both answering: %d %v", n, err)
	}

	// A witness that does not know the log (404: a new log not yet announced to it) holds none
	// of it: it tells, and the log is signed.
	stranger := witnesstest.New(t, "stranger.example")
	ws, err := NewWitnesser(s, key.VerifierKey, []WitnessConfig{{Key: stranger.VerifierKey, URL: stranger.URL}}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	seedEntries(t, s, 1)
	if n, err := NewIntegrator(s, key, slog.New(slog.DiscardHandler), nil).WithOutside(ws.Floor).IntegrateOnce(ctx); err != nil || n == 0 || stranger.Calls() != 1 {
		t.Fatalf("with a witness that does not know the log: %d %v (%d calls)", n, err, stranger.Calls())
	}
}
