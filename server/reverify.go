package server

import (
	"context"
	"time"

	"github.com/svc-directory/svc/store"
)

// SweepStats counts what one re-verification sweep did.
type SweepStats struct {
	Checked, OK, Grace, Removed, DomainsRemoved int
}

// retryInterval is how soon a source in its grace period is checked again.
func (c ReverifyConfig) retryInterval() time.Duration {
	r := c.Grace / 24
	if r > time.Hour {
		r = time.Hour
	}
	if r < c.Sweep {
		r = c.Sweep
	}
	return r
}

// SweepOnce checks every source that is due, once: self sources over DNS then HTTP,
// delegated sources by asking whether the attesting namespace still holds a self source.
// Sources are leased first, so that with several instances on one database each due source is
// checked by one of them.
func (s *Server) SweepOnce(ctx context.Context) (SweepStats, error) {
	var st SweepStats
	for {
		srcs, err := s.store.ClaimDueSources(ctx, 10*time.Minute, 50)
		if err != nil || len(srcs) == 0 {
			return st, err
		}
		for _, src := range srcs {
			ok, detail := s.checkSource(ctx, src)
			outcome, err := s.store.RecordCheck(ctx, src, ok, detail, s.reverify.Interval, s.reverify.Grace, s.reverify.retryInterval())
			if err != nil {
				return st, err
			}
			st.Checked++
			if s.metrics != nil {
				s.metrics.reverify.WithLabelValues(outcome).Inc()
			}
			switch outcome {
			case store.OutcomeOK:
				st.OK++
			case store.OutcomeGrace:
				st.Grace++
			case store.OutcomeRemoved:
				st.Removed++
			case store.OutcomeDomainRemoved:
				st.Removed++
				st.DomainsRemoved++
			}
			if outcome != store.OutcomeOK {
				s.log.InfoContext(ctx, "re-verification", "namespace", src.NamespaceID, "domain", src.Domain, "method", src.Method,
					"outcome", outcome, "detail", detail)
			}
		}
	}
}

func (s *Server) checkSource(ctx context.Context, src store.Source) (bool, string) {
	if src.Method == store.MethodDelegated {
		if src.TargetID == "" {
			return false, "the delegated request is gone"
		}
		d, err := s.store.SelfVerifiedDomain(ctx, src.TargetID)
		if err != nil {
			return false, "could not read the attesting namespace: " + err.Error()
		}
		if d == "" {
			return false, "the attesting namespace is no longer self-verified"
		}
		return true, "the attesting namespace is still self-verified"
	}
	if s.checker == nil || src.TXT == "" {
		return false, "no verification value to check"
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res := s.checker.Check(cctx, src.Domain, src.TXT)
	return res.OK, res.Detail
}

// RunReverification sweeps every Sweep until ctx ends.
func (s *Server) RunReverification(ctx context.Context) {
	t := time.NewTicker(s.reverify.Sweep)
	defer t.Stop()
	for {
		if _, err := s.SweepOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "re-verification sweep failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
