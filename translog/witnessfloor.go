package translog

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// The witnesses as the outside floor of the log (rollback.go): a witness keeps the latest
// checkpoint of the log it cosigned, outside the log's database, and tells its size in a
// conflict (C2SP tlog-witness: a 409 carrying it, when the old size sent is not the one it
// holds). So an instance started after the database was rolled back learns from them how large
// the log was, where its database, rolled back too, cannot tell it.

// Floor is the largest tree size a witness holds for the log (Integrator.WithOutside). A
// witness not heard from since this instance started is asked first, by submitting the stored
// checkpoint with the size this instance knows of it (0 at first): it cosigns (when it holds
// that size) or answers a conflict with the size it holds; either tells. Later, a witness's
// size is what the witnessing learned, without asking again. It fails until at least
// len(witnesses) - quorum + 1 witnesses have told their size: with fewer, every witness that
// cosigned the largest cosigned checkpoint (a quorum) could be among those not heard. A log
// without a checkpoint yet asks nothing (a rollback to before the first checkpoint is not
// found).
func (w *Witnesser) Floor(ctx context.Context) (Floor, error) {
	need := len(w.witnesses) - w.quorum + 1
	if w.heard() < need {
		signed, c, err := w.r.Checkpoint(ctx)
		switch {
		case errors.Is(err, ErrNoCheckpoint):
			return Floor{}, nil
		case err != nil:
			return Floor{}, err
		}
		var wg sync.WaitGroup
		for _, ws := range w.witnesses {
			if ws.known.Load() {
				continue
			}
			wg.Go(func() {
				if _, err := w.submit(ctx, ws, signed, c); err != nil && !ws.known.Load() {
					w.log.WarnContext(ctx, "witness did not tell the size it holds", "witness", ws.name, "err", err)
				}
			})
		}
		wg.Wait()
	}
	if n := w.heard(); n < need {
		return Floor{}, fmt.Errorf("%d of the %d witnesses told the size of the log they hold, %d needed", n, len(w.witnesses), need)
	}
	var f Floor
	for _, ws := range w.witnesses {
		if s := ws.size.Load(); ws.known.Load() && s > f.Size {
			f = Floor{Size: s, From: "cosigned by the witness " + ws.name}
		}
	}
	return f, nil
}

// heard is how many witnesses told the size they hold since this instance started.
func (w *Witnesser) heard() int {
	n := 0
	for _, ws := range w.witnesses {
		if ws.known.Load() {
			n++
		}
	}
	return n
}
