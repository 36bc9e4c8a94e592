// The failed rows of CSV import jobs (docs/csv.md, "Failed rows"): every row a job refused,
// with its cells as uploaded and why, written in the transaction of the batch that refused it
// (import_job_failed_rows), kept as long as the job. They outlive the uploaded file, which goes
// when the job ends, so that they can be fixed and uploaded again.

package store

import (
	"context"
	"encoding/json"

	"gorm.io/gorm"
)

// FailedRow is a row a job refused: its number (1: the first after the header), its cells in
// the upload's column order, and why.
type FailedRow struct {
	Row     int64
	Cells   []string
	Message string
}

type failedRowRow struct {
	JobID     string `gorm:"column:job_id;primaryKey"`
	RowNumber int64  `gorm:"column:row_number;primaryKey"`
	Cells     string `gorm:"column:cells"`
	Message   string `gorm:"column:message"`
}

func (failedRowRow) TableName() string { return "import_job_failed_rows" }

// failedRowsPage is how many failed rows one read of a download takes, and one insert writes.
const failedRowsPage = 1000

func encodeCells(cells []string) string {
	if cells == nil {
		cells = []string{}
	}
	b, _ := json.Marshal(cells) // strings always marshal
	return string(b)
}

func decodeCells(text string) []string {
	var out []string
	if err := json.Unmarshal([]byte(text), &out); err != nil || out == nil {
		return []string{}
	}
	return out
}

// addFailedRows keeps the refused rows of a batch, in the batch's transaction.
func addFailedRows(tx *gorm.DB, jobID string, errs []JobError) error {
	if len(errs) == 0 {
		return nil
	}
	rows := make([]failedRowRow, len(errs))
	for i, e := range errs {
		rows[i] = failedRowRow{JobID: jobID, RowNumber: e.Row, Cells: encodeCells(e.Cells), Message: e.Message}
	}
	return translate(tx.CreateInBatches(rows, versionBatch).Error, "job failed rows")
}

// FailedRows reads a page (from 1) of pageSize failed rows of one of the user's jobs, by row,
// with their total (directory.ErrNotFound when the job is not theirs).
func (s *Store) FailedRows(ctx context.Context, userID, jobID string, page, pageSize int64) (Job, int64, []FailedRow, error) {
	var r jobRow
	if err := s.db.WithContext(ctx).Where("job_id = ? AND user_id = ?", jobID, userID).Take(&r).Error; err != nil {
		return Job{}, 0, nil, translate(err, "job")
	}
	var total int64
	if err := s.db.WithContext(ctx).Model(&failedRowRow{}).Where("job_id = ?", jobID).Count(&total).Error; err != nil {
		return Job{}, 0, nil, translate(err, "job failed rows")
	}
	var rows []failedRowRow
	if err := s.db.WithContext(ctx).Where("job_id = ?", jobID).Order("row_number").
		Offset(int((page - 1) * pageSize)).Limit(int(pageSize)).Find(&rows).Error; err != nil {
		return Job{}, 0, nil, translate(err, "job failed rows")
	}
	out := make([]FailedRow, len(rows))
	for i, f := range rows {
		out[i] = FailedRow{Row: f.RowNumber, Cells: decodeCells(f.Cells), Message: f.Message}
	}
	return r.job(), total, out, nil
}

// EachFailedRow calls fn with every failed row of a job, by row, reading failedRowsPage rows
// at a time (keyset on the row number), so that memory stays flat however many rows failed.
// fn runs between reads, never while one is open. The caller has checked that the job is the
// user's (FailedRows with a page of one row, say).
func (s *Store) EachFailedRow(ctx context.Context, jobID string, fn func(FailedRow) error) error {
	after := int64(0)
	for {
		var rows []failedRowRow
		if err := s.db.WithContext(ctx).Where("job_id = ? AND row_number > ?", jobID, after).Order("row_number").
			Limit(failedRowsPage).Find(&rows).Error; err != nil {
			return translate(err, "job failed rows")
		}
		for _, f := range rows {
			if err := fn(FailedRow{Row: f.RowNumber, Cells: decodeCells(f.Cells), Message: f.Message}); err != nil {
				return err
			}
			after = f.RowNumber
		}
		if len(rows) < failedRowsPage {
			return nil
		}
	}
}
