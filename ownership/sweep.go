package ownership

import (
	"context"
	"time"

	"github.com/svc-directory/svc/store"
)

// Outcomes of a re-verification check.
const (
	OutcomeOK            = "ok"             // the source is (again) active
	OutcomeGrace         = "grace"          // the check failed; the source is in its grace period
	OutcomeRemoved       = "removed"        // the grace period ran out; the source is gone
	OutcomeDomainRemoved = "domain_removed" // ... and it was the last one: the namespace lost the domain
)

// Leasing of due sources: a sweep takes up to sweepBatch at a time, each for sweepLease.
const (
	sweepBatch = 50
	sweepLease = 10 * time.Minute
	checkLimit = 30 * time.Second
)

// SweepStats counts what one re-verification sweep did.
type SweepStats struct {
	Checked, OK, Grace, Removed, DomainsRemoved int
}

// retryInterval is how soon a source in its grace period is checked again.
func (v *Service) retryInterval() time.Duration {
	r := v.cfg.Grace / 24
	if r > time.Hour {
		r = time.Hour
	}
	if r < v.cfg.Sweep {
		r = v.cfg.Sweep
	}
	return r
}

// SweepOnce checks every source that is due, once: self sources over DNS then HTTP,
// delegated sources by asking whether the attesting namespace still holds a self source.
// Sources are leased first, so that with several instances on one database each due source is
// checked by one of them.
func (v *Service) SweepOnce(ctx context.Context) (SweepStats, error) {
	var st SweepStats
	for {
		now := v.now()
		srcs, err := v.store.ClaimDueSources(ctx, now, now.Add(sweepLease), sweepBatch)
		if err != nil || len(srcs) == 0 {
			return st, err
		}
		for _, src := range srcs {
			ok, detail := v.checkSource(ctx, src)
			outcome, err := v.RecordCheck(ctx, src, ok, detail)
			if err != nil {
				return st, err
			}
			st.Checked++
			if v.cfg.Outcome != nil {
				v.cfg.Outcome(outcome)
			}
			switch outcome {
			case OutcomeOK:
				st.OK++
			case OutcomeGrace:
				st.Grace++
			case OutcomeRemoved:
				st.Removed++
			case OutcomeDomainRemoved:
				st.Removed++
				st.DomainsRemoved++
			}
			if outcome != OutcomeOK {
				v.log.InfoContext(ctx, "re-verification", "namespace", src.NamespaceID, "domain", src.Domain, "method", src.Method,
					"outcome", outcome, "detail", detail)
			}
		}
		if v.cfg.Swept != nil {
			v.cfg.Swept() // is_verified and domain may have changed
		}
	}
}

// checkSource checks one source: a self source by its generated value, a delegated source by
// the attesting namespace's own verification.
func (v *Service) checkSource(ctx context.Context, src store.Source) (bool, string) {
	if src.Method == store.MethodDelegated {
		if src.TargetID == "" {
			return false, "the delegated request is gone"
		}
		d, err := v.store.SelfVerifiedDomain(ctx, src.TargetID)
		if err != nil {
			return false, "could not read the attesting namespace: " + err.Error()
		}
		if d == "" {
			return false, "the attesting namespace is no longer self-verified"
		}
		return true, "the attesting namespace is still self-verified"
	}
	if v.checker == nil || src.TXT == "" {
		return false, "no verification value to check"
	}
	cctx, cancel := context.WithTimeout(ctx, checkLimit)
	defer cancel()
	res := v.checker.Check(cctx, src.Domain, src.TXT)
	return res.OK, res.Detail
}

// RecordCheck decides and stores what a check of src means: a success makes the source active
// until its next check; the first failure starts its grace period (checked again every retry
// interval, never past the end of the grace); a failure past the grace removes the source (and
// a delegated source's request), and the namespace loses the domain with its last source. A
// source removed meanwhile (remove-namespace-verification) counts as removed.
func (v *Service) RecordCheck(ctx context.Context, src store.Source, ok bool, detail string) (string, error) {
	outcome := OutcomeOK
	err := v.store.InTx(ctx, func(tx *store.Tx) error {
		cur, found, err := tx.LockSource(src.ID)
		if err != nil {
			return err
		}
		if !found {
			outcome = OutcomeRemoved
			return nil
		}
		now := v.now().Truncate(time.Millisecond)
		switch {
		case ok:
			return tx.RecordSourceCheck(cur.ID, store.SourceCheck{Status: store.SourceActive, CheckedAt: now,
				NextCheckAt: now.Add(v.cfg.Interval)})
		case cur.Status == store.SourceActive:
			outcome = OutcomeGrace
			until := now.Add(v.cfg.Grace)
			return tx.RecordSourceCheck(cur.ID, store.SourceCheck{Status: store.SourceGrace, CheckedAt: now,
				NextCheckAt: earlier(now.Add(v.retryInterval()), until), GraceUntil: &until, LastError: detail})
		case cur.GraceUntil != nil && now.Before(*cur.GraceUntil):
			outcome = OutcomeGrace
			return tx.RecordSourceCheck(cur.ID, store.SourceCheck{Status: cur.Status, CheckedAt: now,
				NextCheckAt: earlier(now.Add(v.retryInterval()), *cur.GraceUntil), GraceUntil: cur.GraceUntil, LastError: detail})
		default:
			outcome = OutcomeRemoved
			if err := tx.DeleteSource(cur.ID); err != nil {
				return err
			}
			if cur.Method == store.MethodDelegated && cur.RequestID != "" {
				if err := tx.RemoveRequest(cur.RequestID); err != nil {
					return err
				}
			}
			released, _, err := tx.ReleaseDomain(cur.NamespaceID, cur.Domain, cur.Method)
			if released {
				outcome = OutcomeDomainRemoved
			}
			return err
		}
	})
	return outcome, err
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Run sweeps every Sweep interval until ctx ends.
func (v *Service) Run(ctx context.Context) {
	t := time.NewTicker(v.cfg.Sweep)
	defer t.Stop()
	for {
		if _, err := v.SweepOnce(ctx); err != nil && ctx.Err() == nil {
			v.log.WarnContext(ctx, "re-verification sweep failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
