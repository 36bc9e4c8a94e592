package csvjob

import (
	"context"
	"io"

	"github.com/svc-directory/svc/store"
)

// FailedRows is the store's walk over a job's failed rows (store.EachFailedRow).
type FailedRows interface {
	EachFailedRow(ctx context.Context, jobID string, fn func(store.FailedRow) error) error
}

// WriteFailedRows writes a job's failed rows to w as CSV in the upload's layout: its columns
// (header, as the upload read them), then ErrorColumn; each row's cells as uploaded, then why
// it was refused. Every cell is neutralised as the export's are (formula.go): a cell is read
// back as the upload read it first, so that the file, fixed and uploaded again, reads the same
// values (the upload ignores the last error column, ParseHeader). The rows are read a page at a
// time and flushed every 1,000, so memory does not grow with the job.
func WriteFailedRows(ctx context.Context, w io.Writer, src FailedRows, jobID string, header []string) error {
	cw, err := newRowWriter(w, append(append([]string(nil), header...), ErrorColumn))
	if err != nil {
		return err
	}
	err = src.EachFailedRow(ctx, jobID, func(f store.FailedRow) error {
		row := make([]string, 0, len(f.Cells)+1)
		for _, c := range f.Cells {
			row = append(row, neutralise(unneutralise(c)))
		}
		return cw.write(append(row, neutralise(f.Message)))
	})
	if err != nil {
		return err
	}
	return cw.close()
}
