package translog

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// A log found behind a checkpoint the integrator signed (the database it writes to is now a
// standby promoted without the log's end): the integrator refuses to sign, and keeps refusing,
// rather than fork the log; the stored checkpoint stays as it was. An integrator that never
// saw the larger log signs: the detection is the running instances' (docs/deployment.md).
func TestIntegratorRefusesARolledBackLog(t *testing.T) {
	ctx := context.Background()
	key := testKey(t)
	ahead, behind := storetest.Open(t, store.DialectPostgres), storetest.Open(t, store.DialectPostgres)
	seedEntries(t, ahead, 20)
	seedEntries(t, behind, 3)
	g := NewIntegrator(ahead, key, slog.New(slog.DiscardHandler), nil)
	drain(t, g, 1000)
	drain(t, NewIntegrator(behind, key, slog.New(slog.DiscardHandler), nil), 1000)
	before, err := behind.LogState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if big, _ := ahead.LogState(ctx); big.Size <= before.Size || g.RolledBack() {
		t.Fatalf("sizes %d and %d", big.Size, before.Size)
	}

	g.st = behind // the failover
	seedEntries(t, behind, 2)
	for range 2 {
		if _, err := g.IntegrateOnce(ctx); !errors.Is(err, ErrRolledBack) {
			t.Fatalf("integrating a rolled-back log: %v", err)
		}
	}
	if after, _ := behind.LogState(ctx); after != before || !g.RolledBack() {
		t.Fatalf("the rolled-back log moved: %+v, was %+v", after, before)
	}
	if n, err := NewIntegrator(behind, key, slog.New(slog.DiscardHandler), nil).IntegrateOnce(ctx); err != nil || n == 0 {
		t.Fatalf("a fresh integrator: %d %v", n, err)
	}
}
