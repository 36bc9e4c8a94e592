package server

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/svc-directory/svc/gen"
)

// The system operations: liveness, readiness and the directory's statistics.

// Healthz answers while the process runs.
func (s *Server) Healthz(ctx context.Context, _ gen.HealthzRequestObject) (gen.HealthzResponseObject, error) {
	return s.healthz, nil
}

// healthzOK is /healthz's answer, encoded once (newHealthzOK) as the generated response type
// encodes it on every call.
type healthzOK []byte

func newHealthzOK() (healthzOK, error) {
	b, err := json.Marshal(gen.Healthz200JSONResponse{MessageJSONResponse: gen.MessageJSONResponse{Message: "ok"}})
	return append(b, '\n'), err // json.Encoder's line
}

func (b healthzOK) VisitHealthzResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	return err
}

// Drain marks the server as shutting down: /readyz answers 503 from now on, so that load
// balancers stop sending traffic while in-flight requests finish. Requests are still served.
func (s *Server) Drain() { s.draining.Store(true) }

// Readyz separates "can read" from "can write": by default it answers 200 while the instance
// can serve reads (the primary, or a replica within the lag bound, answers), with need=write
// only while the primary answers; 503 otherwise and once the server drains. A load balancer
// that checks it keeps the instance for reads while the primary is lost; writes that reach it
// then answer 503 with Retry-After (errNoPrimary).
func (s *Server) Readyz(ctx context.Context, req gen.ReadyzRequestObject) (gen.ReadyzResponseObject, error) {
	if s.draining.Load() {
		return gen.Readyz503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody("shutting down")}, nil
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	r := s.store.Ready(pctx)
	if r.Err != nil {
		s.log.WarnContext(ctx, "the primary database does not answer", "error", r.Err)
	}
	needWrite := req.Params.Need != nil && *req.Params.Need == gen.Write
	switch {
	case !r.CanRead:
		return gen.Readyz503JSONResponse{ServiceUnavailableJSONResponse: unavailableBody("database unavailable")}, nil
	case needWrite && !r.CanWrite:
		b := unavailableBody("primary database unavailable: this instance serves reads only")
		b.Body.Code = gen.ErrorCodePrimaryUnavailable
		return gen.Readyz503JSONResponse{ServiceUnavailableJSONResponse: b}, nil
	}
	out := gen.Readyz200JSONResponse{Message: "ready", Writable: r.CanWrite}
	if !r.CanWrite {
		out.Message = "ready to read (the primary database does not answer)"
	}
	for _, t := range s.store.Replicas() {
		out.Replicas++
		if t.Usable {
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
