package csvjob

import (
	"context"
	"encoding/csv"
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
	cw := csv.NewWriter(w)
	head := make([]string, 0, len(header)+1)
	for _, h := range header {
		head = append(head, neutralise(h))
	}
	if err := cw.Write(append(head, ErrorColumn)); err != nil {
		return err
	}
	n := 0
	err := src.EachFailedRow(ctx, jobID, func(f store.FailedRow) error {
		row := make([]string, 0, len(f.Cells)+1)
		for _, c := range f.Cells {
			row = append(row, neutralise(unneutralise(c)))
		}
		if err := cw.Write(append(row, neutralise(f.Message))); err != nil {
			return err
		}
		if n++; n%1000 == 0 {
			cw.Flush()
			return cw.Error()
		}
		return nil
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
