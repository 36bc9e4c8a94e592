package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/svc-directory/svc/store"
)

// consistencyHeader carries a consistency token: answered by every successful write (the
// primary's WAL position once it committed, on Postgres), and sent back on reads that must
// see that write (docs/deployment.md).
const consistencyHeader = "Svc-Consistency-Token"

// consistency marks the reads of GET (and HEAD) requests as ones a replica may serve, past
// the request's consistency token when it sends one, and has every other request whose write
// committed answer the token of the primary's position after it.
func (s *Server) consistency(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method == http.MethodGet {
			if !s.replicaReads {
				return next(c) // every read goes to the primary: nothing to mark
			}
			// The contract has refused a malformed token where the operation declares one;
			// where it does not (health, the log's checkpoint), the header means nothing.
			var tok store.ConsistencyToken
			if h := req.Header.Get(consistencyHeader); h != "" {
				tok, _ = store.ParseConsistencyToken(h)
			}
			c.SetRequest(req.WithContext(store.ReplicaReads(req.Context(), tok)))
			return next(c)
		}
		ctx := store.TrackCommits(req.Context())
		c.SetRequest(req.WithContext(ctx))
		res := c.Response()
		res.Before(func() {
			// Only a request whose write committed gets a token: one that wrote nothing
			// (a verification, a same-state action) spares the query.
			if res.Status < 200 || res.Status > 299 || !store.Committed(ctx) {
				return
			}
			tok, err := s.store.ConsistencyToken(req.Context())
			if err != nil {
				s.log.WarnContext(req.Context(), "no consistency token for a write", "request_id", requestID(c), "error", err)
				return
			}
			if tok != 0 {
				res.Header().Set(consistencyHeader, tok.String())
			}
		})
		return next(c)
	}
}
