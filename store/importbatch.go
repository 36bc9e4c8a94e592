package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/svc-directory/svc/directory"
)

// Importing a batch of a CSV job's rows: the job's progress (jobs.go) and the records' writes
// (writes.go), composed in one transaction.

// ImportRow is a record of a CSV row, by row number.
type ImportRow struct {
	Row   int64
	Input directory.RecordInput
	Cells []string // as uploaded, kept when the row is refused here
}

// ImportBatch imports the rows from..to-1 of a job in one transaction with its progress: the
// records of rows (each row whose name is taken, in the registry or earlier in the batch, is
// refused as a row error instead), the row errors refused before (rowErrors), and the job's
// counts; the job is done when to reaches its total. It checks that the job is at row from
// (ErrJobMoved otherwise), so that no row is imported twice. A registry that is not live
// fails the job (its message says why).
func (s *Store) ImportBatch(ctx context.Context, jobID string, from, to int64, rows []ImportRow, rowErrors []JobError, leaseUntil time.Time) (Job, error) {
	var out jobRow
	err := s.InTx(ctx, func(t *Tx) error {
		tx := t.db
		var j jobRow
		if err := tx.Raw(`SELECT * FROM import_jobs WHERE job_id = ?`+s.d.forUpdate(), jobID).Take(&j).Error; err != nil {
			return translate(err, "job")
		}
		if j.State != JobRunning || j.ProcessedRows != from {
			return ErrJobMoved
		}
		errs := append([]JobError(nil), rowErrors...)
		var in []directory.RecordInput
		if len(rows) > 0 {
			names := make([]string, 0, len(rows))
			for _, r := range rows {
				names = append(names, r.Input.RecordName)
			}
			var taken []string
			if err := tx.Raw(`SELECT r.record_name FROM records r JOIN registries g ON g.registry_id = r.registry_id
				WHERE g.namespace_id = ? AND g.registry_name = ? AND r.record_name IN ?`, j.NamespaceID, j.RegistryName, names).
				Scan(&taken).Error; err != nil {
				return translate(err, "record names")
			}
			seen := make(map[string]bool, len(rows)+len(taken))
			for _, n := range taken {
				seen[n] = true
			}
			for _, r := range rows {
				if seen[r.Input.RecordName] {
					errs = append(errs, JobError{Row: r.Row, Message: fmt.Sprintf("record_name %q already exists in the registry", r.Input.RecordName), Cells: r.Cells})
					continue
				}
				seen[r.Input.RecordName] = true
				in = append(in, r.Input)
			}
		}
		if len(in) > 0 {
			// The job's owner must still write the registry's records (its role is read after
			// the registry's lock): a job outlives neither its owner's role nor its user.
			if _, err := t.AddRecords(j.NamespaceID, j.RegistryName, Principal{UserID: j.UserID}, j.CreatorDID, in); err != nil {
				var se *directory.Error
				if errors.As(err, &se) && (errors.Is(err, directory.ErrRegistryInactive) || errors.Is(err, directory.ErrRegistryArchived) ||
					errors.Is(err, directory.ErrRegistryRevoked) || errors.Is(err, directory.ErrForbidden)) {
					// The registry stopped taking records, or the job's owner lost the right to
					// write them: the job ends, saying why.
					j.State, j.Failure = JobFailed, se.Message
					return s.saveJob(tx, &j, &out)
				}
				return err // a name taken by a concurrent writer since the check: the batch is tried again
			}
		}
		if err := s.addJobErrors(tx, jobID, j.ErrorRows, errs); err != nil {
			return err
		}
		j.ProcessedRows, j.ImportedRows, j.ErrorRows = to, j.ImportedRows+int64(len(in)), j.ErrorRows+int64(len(errs))
		j.LeaseUntil = leaseUntil.UnixMilli()
		if to >= j.TotalRows {
			j.State = JobDone
		}
		return s.saveJob(tx, &j, &out)
	})
	if err != nil {
		return Job{}, err
	}
	return out.job(), nil
}
