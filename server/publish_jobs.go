package server

import (
	"context"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/svc-directory/svc/csvjob"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

// CSV import jobs (docs/csv.md): the upload, and the caller's jobs.

// BulkUploadRecords checks an uploaded CSV file and queues its import.
func (s *Server) BulkUploadRecords(ctx context.Context, req gen.BulkUploadRecordsRequestObject) (gen.BulkUploadRecordsResponseObject, error) {
	reg, err := s.entries.RecordsRegistry(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName)
	if err != nil {
		return nil, err
	}
	content, err := uploadedFile(req.Body)
	if err != nil {
		return nil, err
	}
	rows, header, err := csvjob.Inspect(content, reg.Schema)
	if err != nil {
		return nil, problem(http.StatusBadRequest, "Invalid input: file: "+err.Error())
	}
	u := caller(ctx)
	job, err := s.store.CreateImportJob(ctx, u.ID, reg.NamespaceID, req.RegistryName, s.didOf(u), header, rows, content)
	if err != nil {
		return nil, err
	}
	return gen.BulkUploadRecords202JSONResponse{Body: gen.JobResponse{Message: "Import queued", Data: jobOut(job)}}, nil
}

// uploadedFile reads the multipart field file (the contract middleware bounded the body);
// other fields are skipped.
func uploadedFile(r *multipart.Reader) ([]byte, error) {
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			return nil, problem(http.StatusBadRequest, "Invalid input: the multipart/form-data body has no field file")
		}
		if err != nil {
			return nil, problem(http.StatusBadRequest, "Invalid input: the multipart/form-data body is malformed: "+err.Error())
		}
		if part.FormName() != "file" {
			continue
		}
		content, err := io.ReadAll(io.LimitReader(part, csvjob.MaxFile+1))
		if err != nil {
			return nil, problem(http.StatusBadRequest, "Invalid input: the multipart/form-data body is malformed: "+err.Error())
		}
		if len(content) > csvjob.MaxFile {
			return nil, problemf(http.StatusRequestEntityTooLarge, "Request body too large (the file may hold %d MiB)", csvjob.MaxFile>>20)
		}
		return content, nil
	}
}

// ListJobs lists the caller's import jobs.
func (s *Server) ListJobs(ctx context.Context, _ gen.ListJobsRequestObject) (gen.ListJobsResponseObject, error) {
	jobs, err := s.store.Jobs(ctx, caller(ctx).ID)
	if err != nil {
		return nil, err
	}
	out := gen.ListJobs200JSONResponse{Message: "Jobs found", Data: make([]gen.Job, len(jobs))}
	for i, j := range jobs {
		out.Data[i] = jobOut(j)
	}
	return out, nil
}

// GetJob is one of the caller's jobs with its row errors.
func (s *Server) GetJob(ctx context.Context, req gen.GetJobRequestObject) (gen.GetJobResponseObject, error) {
	j, errs, err := s.store.Job(ctx, caller(ctx).ID, req.JobId)
	if err != nil {
		return nil, notFound(err, "Job not found")
	}
	o := jobOut(j)
	d := gen.JobDetail{JobId: o.JobId, NamespaceId: o.NamespaceId, RegistryName: o.RegistryName, State: gen.JobDetailState(o.State),
		TotalRows: o.TotalRows, ProcessedRows: o.ProcessedRows, ImportedRows: o.ImportedRows, ErrorRows: o.ErrorRows,
		Failure: o.Failure, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt, Errors: make([]gen.JobRowError, len(errs))}
	for i, e := range errs {
		d.Errors[i] = gen.JobRowError{Row: e.Row, Message: e.Message}
	}
	return gen.GetJob200JSONResponse{Message: "Job found", Data: d}, nil
}

func jobOut(j store.Job) gen.Job {
	return gen.Job{JobId: j.ID, NamespaceId: j.NamespaceID, RegistryName: j.RegistryName, State: gen.JobState(j.State),
		TotalRows: j.TotalRows, ProcessedRows: j.ProcessedRows, ImportedRows: j.ImportedRows, ErrorRows: j.ErrorRows,
		Failure: j.Failure, CreatedAt: ts(j.CreatedAt), UpdatedAt: ts(j.UpdatedAt)}
}
