package translog

import (
	"context"
	"errors"
	"fmt"

	"github.com/svc-directory/svc/translog/logstore"
)

// Finding the log rolled back (docs/deployment.md, "Losing the primary"). After a failover to
// a standby that lacked the end of the log, the stored log is smaller than a checkpoint that was
// signed, served and perhaps cosigned; signing on from it would give a different tree of a size
// already signed: a fork. The integrator compares the stored size, before it signs, with the
// largest tree it knows was signed:
//   - the largest it signed or found stored itself (in memory: a running instance);
//   - the outside floor (WithOutside): the largest tree the log's witnesses cosigned, which
//     lies outside the database and so survives its rollback and the instances' restarts;
//   - the marker in the database (logstore.Rollback), which the first integrator that found
//     the rollback recorded: every instance, those started later included, refuses while it
//     exists, until an operator starts a new log (svc log restart).
//
// On finding a rollback the integrator refuses to sign from then on (until it is restarted
// after svc log restart) and records the marker.

// ErrRolledBack: the stored log is behind a checkpoint signed before, so the integrator refuses
// to sign until an operator starts a new log (svc log restart) and restarts the instances.
var ErrRolledBack = errors.New("translog: the log was rolled back")

// ErrRollbackUnknown: the outside floor could not be read (too few witnesses answered), so the
// integrator cannot tell whether the log was rolled back and does not sign yet; it asks again
// at its next integration.
var ErrRollbackUnknown = errors.New("translog: cannot tell whether the log was rolled back")

// Floor is the largest tree size of the log known outside its database, and who holds it.
type Floor struct {
	Size int64
	From string
}

// WithOutside makes the integrator read the outside floor (Witnesser.Floor) before each
// integration, and refuse to sign while it cannot; it returns g.
func (g *Integrator) WithOutside(floor func(context.Context) (Floor, error)) *Integrator {
	g.outside = floor
	return g
}

// RolledBack reports whether the integrator found the log rolled back and refuses to sign.
func (g *Integrator) RolledBack() bool { return g.found.Load() != nil }

// floor is the largest tree known signed, from memory and from outside.
func (g *Integrator) floor(ctx context.Context) (Floor, error) {
	f := Floor{Size: g.highest.Load(), From: "signed or found stored by this instance"}
	if g.outside == nil {
		return f, nil
	}
	o, err := g.outside(ctx)
	if err != nil {
		return f, fmt.Errorf("%w: %v; it signs nothing until it can", ErrRollbackUnknown, err)
	}
	if o.Size > f.Size {
		f = o
	}
	return f, nil
}

// checkRollback refuses a stored log that is marked rolled back, or behind floor, or one found
// rolled back before; otherwise it remembers the stored size as seen. A log of another origin
// (a new log started while this instance runs with the old key) is no rollback of this one:
// extend refuses it.
func (g *Integrator) checkRollback(st logstore.State, floor Floor) error {
	if st.Origin != "" && st.Origin != g.Origin() {
		return nil
	}
	r := g.found.Load()
	switch {
	case st.RolledBack.Marked():
		g.marked.Store(true)
		if r == nil {
			r = &st.RolledBack
			g.found.CompareAndSwap(nil, r)
		}
	case r == nil && st.Size < floor.Size:
		r = &logstore.Rollback{Behind: floor.Size, Size: st.Size, Found: floor.From, At: g.now().UTC()}
		g.found.CompareAndSwap(nil, r)
	}
	g.m.rolledBack(r != nil)
	if r != nil {
		return fmt.Errorf("%w: the stored log has %d leaves, behind the checkpoint of %d (%s, found %s; a failover to a standby that lacked them): it refuses to sign rather than fork; run svc log restart and restart the instances",
			ErrRolledBack, st.Size, r.Behind, r.Found, r.At.Format("2006-01-02T15:04:05Z"))
	}
	g.saw(st.Size) // committed: a later integration that finds less finds a rollback
	return nil
}

// mark records the rollback the integrator found in the database, unless it is marked there
// already; a failure is logged and tried again at the next integration.
func (g *Integrator) mark(ctx context.Context) {
	r := g.found.Load()
	if r == nil || g.marked.Load() {
		return
	}
	recorded, err := g.st.MarkLogRolledBack(ctx, *r)
	g.marked.Store(err == nil)
	switch {
	case err != nil:
		g.log.ErrorContext(ctx, "transparency log: recording the rollback marker failed", "err", err)
	case recorded:
		g.log.ErrorContext(ctx, "transparency log: rolled back; every instance refuses to sign until svc log restart",
			"size", r.Size, "behind", r.Behind, "found", r.Found)
	}
}

// saw raises the largest tree the integrator has signed or seen to n.
func (g *Integrator) saw(n int64) {
	for {
		h := g.highest.Load()
		if n <= h || g.highest.CompareAndSwap(h, n) {
			return
		}
	}
}
