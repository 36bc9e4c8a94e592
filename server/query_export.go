package server

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/gen"
)

// The CSV export of a registry's records (docs/csv.md).

// ExportRecordsAsCsv streams a registry's records as CSV: the header from a first walk of the
// registry, then the rows from a second, a page at a time.
func (s *Server) ExportRecordsAsCsv(ctx context.Context, req gen.ExportRecordsAsCsvRequestObject) (gen.ExportRecordsAsCsvResponseObject, error) {
	reg, err := s.queryableRegistry(ctx, req.Namespace, req.RegistryName)
	if err != nil {
		return nil, err
	}
	withDrafts, err := s.seesDrafts(ctx, reg.NamespaceID)
	if err != nil {
		return nil, err
	}
	header, err := csvjob.ExportHeader(ctx, s.store, reg.RegistryID, withDrafts)
	if errors.Is(err, csvjob.ErrNotAColumn) {
		return nil, problem(http.StatusConflict, "Conflict: the registry cannot be exported as CSV: "+err.Error())
	}
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		// The answer ends with the request; a reader that stopped reading releases the writer.
		<-ctx.Done()
		_ = pr.CloseWithError(ctx.Err())
	}()
	go func() {
		err := csvjob.Export(ctx, pw, s.store, reg.RegistryID, withDrafts, reg.Schema, header)
		if err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "export cut short", "registry", reg.RegistryID, "error", err)
		}
		_ = pw.CloseWithError(err)
	}()
	return gen.ExportRecordsAsCsv200TextcsvResponse{Body: pr}, nil
}
