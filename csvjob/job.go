package csvjob

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/recordschema"
	"github.com/svc-directory/svc/store"
)

// Limits of an upload.
const (
	MaxFile = 64 << 20 // bytes
	MaxRows = 1_000_000
)

func newReader(content []byte) *csv.Reader {
	r := csv.NewReader(bytes.NewReader(content))
	r.ReuseRecord = true
	return r // FieldsPerRecord 0: every row has the header's number of cells
}

// Inspect checks an upload before it is queued: a header ParseHeader accepts, 1 to MaxRows
// rows, each a well-formed CSV row with the header's number of cells. It returns the row count
// and the columns the import reads (Layout.Columns). Rows are checked one by one only when the
// job runs (their errors are the job's row errors).
func Inspect(content []byte, schema map[string]any) (int64, []string, error) {
	n, layout, err := inspect(content, schema)
	if err != nil {
		return 0, nil, err
	}
	return n, layout.Columns(), nil
}

func inspect(content []byte, schema map[string]any) (int64, *Layout, error) {
	r := newReader(content)
	header, err := r.Read()
	if err == io.EOF {
		return 0, nil, errors.New("the file is empty")
	}
	if err != nil {
		return 0, nil, fmt.Errorf("the file is not CSV: %v", err)
	}
	layout, err := ParseHeader(header, schema)
	if err != nil {
		return 0, nil, err
	}
	var n int64
	for {
		_, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, nil, fmt.Errorf("the file is not CSV: %v", err)
		}
		if n++; n > MaxRows {
			return 0, nil, fmt.Errorf("the file has more than %d rows", MaxRows)
		}
	}
	if n == 0 {
		return 0, nil, errors.New("the file has a header and no rows")
	}
	return n, layout, nil
}

// Queue is what the worker needs of the store.
type Queue interface {
	ClaimImportJob(ctx context.Context, now, leaseUntil time.Time) (store.ClaimedJob, bool, error)
	ImportBatch(ctx context.Context, jobID string, from, to int64, rows []store.ImportRow, rowErrors []store.JobError, leaseUntil time.Time) (store.Job, error)
	FailImportJob(ctx context.Context, jobID, why string) error
	GetRegistry(ctx context.Context, nsRef, name string, sel directory.VersionSel) (directory.Registry, error)
}

// Worker runs import jobs: one at a time per instance; several instances on one database
// share the jobs (each is leased by one worker, and its batches check where it stands).
type Worker struct {
	q     Queue
	log   *slog.Logger
	now   func() time.Time
	batch int
	lease time.Duration
	// wake, when set (WithWake), makes Run look for jobs at once, no sooner than minGap after
	// its last look.
	wake   <-chan struct{}
	minGap time.Duration
}

// WithWake makes Run look for waiting jobs when wake receives (a job was created:
// store.Listen), no sooner than minGap after its last look, besides every interval.
func (w *Worker) WithWake(wake <-chan struct{}, minGap time.Duration) *Worker {
	w.wake, w.minGap = wake, minGap
	return w
}

// NewWorker builds a worker; now nil is time.Now.
func NewWorker(q Queue, log *slog.Logger, now func() time.Time) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Worker{q: q, log: log, now: now, batch: directory.MaxBatch, lease: 2 * time.Minute}
}

// RunOnce takes one waiting job, if any, and imports it to its end (or until ctx ends or the
// job is taken over). It reports whether it found a job.
func (w *Worker) RunOnce(ctx context.Context) (bool, error) {
	now := w.now()
	job, ok, err := w.q.ClaimImportJob(ctx, now, now.Add(w.lease))
	if err != nil || !ok {
		return false, err
	}
	err = w.run(ctx, job)
	if errors.Is(err, store.ErrJobMoved) {
		w.log.InfoContext(ctx, "import job taken over by another worker", "job", job.ID)
		return true, nil
	}
	return true, err
}

// fail ends the job with why.
func (w *Worker) fail(ctx context.Context, job store.ClaimedJob, why string) error {
	w.log.InfoContext(ctx, "import job failed", "job", job.ID, "why", why)
	return w.q.FailImportJob(ctx, job.ID, why)
}

func (w *Worker) run(ctx context.Context, job store.ClaimedJob) error {
	reg, err := w.q.GetRegistry(ctx, job.NamespaceID, job.RegistryName, directory.VersionSel{})
	if errors.Is(err, directory.ErrNotFound) {
		return w.fail(ctx, job, "the registry no longer exists")
	}
	if err != nil {
		return err
	}
	schema, err := recordschema.Compile(reg.Schema)
	if err != nil {
		return w.fail(ctx, job, "the registry's schema does not compile: "+err.Error())
	}
	r := newReader(job.Content)
	header, err := r.Read()
	if err != nil {
		return w.fail(ctx, job, "the file is not CSV: "+err.Error())
	}
	layout, err := ParseHeader(header, reg.Schema)
	if err != nil {
		return w.fail(ctx, job, err.Error())
	}
	var row int64
	for ; row < job.ProcessedRows; row++ { // resume after the rows a batch committed
		if _, err := r.Read(); err != nil {
			return w.fail(ctx, job, fmt.Sprintf("the file ends before row %d, where the job stood", job.ProcessedRows))
		}
	}
	for row < job.TotalRows {
		from := row
		var rows []store.ImportRow
		var rowErrs []store.JobError
		for row < job.TotalRows && int64(len(rows)+len(rowErrs)) < int64(w.batch) {
			cells, err := r.Read()
			if err != nil {
				return w.fail(ctx, job, fmt.Sprintf("row %d: the file is not CSV: %v", row+1, err))
			}
			row++
			kept := layout.Cells(cells) // a copy: the reader reuses cells
			in, err := w.recordOf(layout, schema, cells)
			if err != nil {
				rowErrs = append(rowErrs, store.JobError{Row: row, Message: err.Error(), Cells: kept})
				continue
			}
			rows = append(rows, store.ImportRow{Row: row, Input: in, Cells: kept})
		}
		done, err := w.q.ImportBatch(ctx, job.ID, from, row, rows, rowErrs, w.now().Add(w.lease))
		var refused *directory.Error
		if errors.As(err, &refused) && errors.Is(err, directory.ErrInvalid) {
			// Content the row checks let through and the store refused: trying the batch again
			// would refuse it again, so the job stops here, saying why.
			return w.fail(ctx, job, fmt.Sprintf("rows %d to %d: %s", from+1, row, refused.Message))
		}
		if err != nil {
			return err
		}
		if done.State == store.JobFailed {
			w.log.InfoContext(ctx, "import job failed", "job", job.ID, "why", done.Failure)
			return nil
		}
	}
	return nil
}

// recordOf checks one row: its name, its cells' types, the schema, the size limit.
func (w *Worker) recordOf(layout *Layout, schema *recordschema.Schema, cells []string) (directory.RecordInput, error) {
	name, state, details, err := layout.Record(cells)
	if err != nil {
		return directory.RecordInput{}, err
	}
	if directory.CheckNativeName(name) != nil {
		return directory.RecordInput{}, fmt.Errorf("record_name %.60q is not a record name (letters, digits and ._~-, starting with a letter or digit, at most 128)", name)
	}
	if err := schema.Validate(details); err != nil {
		return directory.RecordInput{}, err
	}
	if b, err := proof.Canonicalize(details); err != nil {
		return directory.RecordInput{}, err
	} else if len(b) > directory.MaxDetails {
		return directory.RecordInput{}, fmt.Errorf("details are larger than %d KiB", directory.MaxDetails>>10)
	}
	return directory.RecordInput{RecordName: name, Details: details, State: state}, nil
}

// Run takes jobs every interval until ctx ends.
func (w *Worker) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		began := time.Now()
		for {
			found, err := w.RunOnce(ctx)
			if err != nil && ctx.Err() == nil {
				w.log.ErrorContext(ctx, "import worker", "error", err)
			}
			if !found || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.wake:
			if d := w.minGap - time.Since(began); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
			}
		}
	}
}
