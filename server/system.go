package server

import (
	"context"
	"time"

	"github.com/svc-directory/svc/gen"
)

// The system operations: liveness, readiness and the directory's statistics.

// Healthz answers while the process runs.
func (s *Server) Healthz(ctx context.Context, _ gen.HealthzRequestObject) (gen.HealthzResponseObject, error) {
	return gen.Healthz200JSONResponse{MessageJSONResponse: gen.MessageJSONResponse{Message: "ok"}}, nil
}

// Drain marks the server as shutting down: /readyz answers 503 from now on, so that load
// balancers stop sending traffic while in-flight requests finish. Requests are still served.
func (s *Server) Drain() { s.draining.Store(true) }

// Readyz answers 200 when the primary database answers and the server is not shutting down,
// 503 otherwise; the 200 counts the replicas, and those reads may go to now.
func (s *Server) Readyz(ctx context.Context, _ gen.ReadyzRequestObject) (gen.ReadyzResponseObject, error) {
	reason := ""
	if s.draining.Load() {
		reason = "shutting down"
	} else {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if err := s.store.Ping(pctx); err != nil {
			s.log.WarnContext(ctx, "not ready", "error", err)
			reason = "database unavailable"
		}
	}
	if reason != "" {
		return gen.Readyz503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody(reason)}, nil
	}
	out := gen.Readyz200JSONResponse{Message: "ready"}
	for _, r := range s.store.Replicas() {
		out.Replicas++
		if r.Usable {
			out.ReplicasReady++
		}
	}
	return out, nil
}

// GetStats answers the platform statistics from the store's counters.
func (s *Server) GetStats(ctx context.Context, _ gen.GetStatsRequestObject) (gen.GetStatsResponseObject, error) {
	st, err := s.store.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return gen.GetStats200JSONResponse{Message: "Platform statistics",
		Data: gen.Stats{Users: st.Users, Namespaces: st.Namespaces, Registries: st.Registries, Records: st.Records}}, nil
}
