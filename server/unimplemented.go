package server

import (
	"context"

	"svc/gen"
)

// Operations whose issue has not landed yet answer 501 Not implemented.

// QueryRegistries is not implemented yet.
func (s *Server) QueryRegistries(ctx context.Context, _ gen.QueryRegistriesRequestObject) (gen.QueryRegistriesResponseObject, error) {
	return nil, errNotImplemented
}

// QueryRecords is not implemented yet.
func (s *Server) QueryRecords(ctx context.Context, _ gen.QueryRecordsRequestObject) (gen.QueryRecordsResponseObject, error) {
	return nil, errNotImplemented
}

// SearchRecords is not implemented yet.
func (s *Server) SearchRecords(ctx context.Context, _ gen.SearchRecordsRequestObject) (gen.SearchRecordsResponseObject, error) {
	return nil, errNotImplemented
}

// GetRegistriesByTag is not implemented yet.
func (s *Server) GetRegistriesByTag(ctx context.Context, _ gen.GetRegistriesByTagRequestObject) (gen.GetRegistriesByTagResponseObject, error) {
	return nil, errNotImplemented
}
