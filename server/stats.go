package server

import (
	"context"

	"github.com/svc-directory/svc/gen"
)

// GetStats answers the platform statistics from the store's counters.
func (s *Server) GetStats(ctx context.Context, _ gen.GetStatsRequestObject) (gen.GetStatsResponseObject, error) {
	st, err := s.store.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return gen.GetStats200JSONResponse{Message: "Platform statistics",
		Data: gen.Stats{Users: st.Users, Namespaces: st.Namespaces, Registries: st.Registries, Records: st.Records}}, nil
}
