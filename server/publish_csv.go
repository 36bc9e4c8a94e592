package server

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"

	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/gen"
)

// An import job's failed rows, and a registry's sample file (docs/csv.md).

// GetJobFailedEntries pages the rows one of the caller's jobs refused.
func (s *Server) GetJobFailedEntries(ctx context.Context, req gen.GetJobFailedEntriesRequestObject) (gen.GetJobFailedEntriesResponseObject, error) {
	page, size := pageOf(req.Params.Page, req.Params.PageSize)
	j, total, rows, err := s.store.FailedRows(ctx, caller(ctx).ID, req.JobId, int64(page), int64(size))
	if err != nil {
		return nil, notFound(err, "Job not found")
	}
	d := gen.FailedEntriesData{JobId: j.ID, Header: j.Header, TotalEntries: total, TotalPages: pages(total, size),
		PageNumber: int64(page), PageSize: int64(size), FailedEntries: make([]gen.FailedEntry, len(rows))}
	for i, r := range rows {
		cells := make(map[string]string, len(r.Cells))
		for c, v := range r.Cells {
			if c < len(j.Header) {
				cells[j.Header[c]] = v
			}
		}
		d.FailedEntries[i] = gen.FailedEntry{Row: r.Row, Error: r.Message, Cells: cells}
	}
	return gen.GetJobFailedEntries200JSONResponse{Message: "Failed entries found", Data: d}, nil
}

// DownloadJobFailedEntriesCsv streams the rows one of the caller's jobs refused as CSV, in
// the upload's layout with a last column error.
func (s *Server) DownloadJobFailedEntriesCsv(ctx context.Context, req gen.DownloadJobFailedEntriesCsvRequestObject) (gen.DownloadJobFailedEntriesCsvResponseObject, error) {
	j, _, _, err := s.store.FailedRows(ctx, caller(ctx).ID, req.JobId, 1, 1) // the job is the caller's
	if err != nil {
		return nil, notFound(err, "Job not found")
	}
	pr, pw := io.Pipe()
	go func() {
		// The answer ends with the request; a reader that stopped reading releases the writer.
		<-ctx.Done()
		_ = pr.CloseWithError(ctx.Err())
	}()
	go func() {
		err := csvjob.WriteFailedRows(ctx, pw, s.store, j.ID, j.Header)
		if err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "failed rows download cut short", "job", j.ID, "error", err)
		}
		_ = pw.CloseWithError(err)
	}()
	return gen.DownloadJobFailedEntriesCsv200TextcsvResponse{Body: pr}, nil
}

// DownloadSampleCsv is a registry's CSV template: its header and one example row.
func (s *Server) DownloadSampleCsv(ctx context.Context, req gen.DownloadSampleCsvRequestObject) (gen.DownloadSampleCsvResponseObject, error) {
	reg, err := s.lookupRegistry(ctx, req.Namespace, req.RegistryName, nil, nil)
	if err != nil {
		return nil, err
	}
	header, row, err := csvjob.Sample(reg.Schema)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(header) // a bytes.Buffer does not fail
	_ = w.Write(row)
	w.Flush()
	return gen.DownloadSampleCsv200TextcsvResponse{Body: &b, ContentLength: int64(b.Len())}, nil
}
