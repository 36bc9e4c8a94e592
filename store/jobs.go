// CSV import jobs (docs/csv.md): the upload, the job's progress and its per-row errors. The
// import itself (parsing, typing, the worker) is package csvjob's.

package store

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// Job states.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// MaxJobErrors is how many row errors a job keeps; the count goes on beyond it.
const MaxJobErrors = 1000

// Job is an import job.
type Job struct {
	ID, UserID, NamespaceID, RegistryName, State, Failure string
	TotalRows, ProcessedRows, ImportedRows, ErrorRows     int64
	CreatedAt, UpdatedAt                                  time.Time
	Header                                                []string // the upload's columns
}

// JobError is a row the import refused: its number, why, and its cells as uploaded (kept
// with the message as the job's failed row, jobfailed.go).
type JobError struct {
	Row     int64 // 1: the first row after the header
	Message string
	Cells   []string
}

type jobRow struct {
	JobID         string `gorm:"column:job_id;primaryKey"`
	UserID        string `gorm:"column:user_id"`
	NamespaceID   string `gorm:"column:namespace_id"`
	RegistryName  string `gorm:"column:registry_name"`
	CreatorDID    string `gorm:"column:creator_did"`
	State         string `gorm:"column:state"`
	TotalRows     int64  `gorm:"column:total_rows"`
	ProcessedRows int64  `gorm:"column:processed_rows"`
	ImportedRows  int64  `gorm:"column:imported_rows"`
	ErrorRows     int64  `gorm:"column:error_rows"`
	Failure       string `gorm:"column:failure"`
	LeaseUntil    int64  `gorm:"column:lease_until"`
	CreatedAt     int64  `gorm:"column:created_at"`
	UpdatedAt     int64  `gorm:"column:updated_at"`
	Header        string `gorm:"column:header"`
}

func (jobRow) TableName() string { return "import_jobs" }

func (r jobRow) job() Job {
	return Job{ID: r.JobID, UserID: r.UserID, NamespaceID: r.NamespaceID, RegistryName: r.RegistryName, State: r.State,
		Failure: r.Failure, TotalRows: r.TotalRows, ProcessedRows: r.ProcessedRows, ImportedRows: r.ImportedRows,
		ErrorRows: r.ErrorRows, CreatedAt: msTime(r.CreatedAt), UpdatedAt: msTime(r.UpdatedAt), Header: decodeCells(r.Header)}
}

// CreateImportJob queues the import of content (totalRows rows after the header, whose
// columns are header) into a registry, by a user who may write it (checked by the caller), as
// creatorDID.
func (s *Store) CreateImportJob(ctx context.Context, userID, namespaceID, registryName, creatorDID string, header []string, totalRows int64, content []byte) (Job, error) {
	now := s.nowMS()
	row := jobRow{JobID: directory.NewUUID(), UserID: userID, NamespaceID: namespaceID, RegistryName: registryName, CreatorDID: creatorDID,
		State: JobQueued, TotalRows: totalRows, CreatedAt: now, UpdatedAt: now, Header: encodeCells(header)}
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			return translate(err, "create job")
		}
		return translate(tx.Exec(`INSERT INTO import_job_files (job_id, content) VALUES (?, ?)`, row.JobID, content).Error, "job file")
	})
	if err != nil {
		return Job{}, err
	}
	return row.job(), nil
}

// Job reads one of the user's jobs with its first MaxJobErrors row errors (directory.ErrNotFound when it
// is not theirs).
func (s *Store) Job(ctx context.Context, userID, id string) (Job, []JobError, error) {
	var r jobRow
	if err := s.db.WithContext(ctx).Where("job_id = ? AND user_id = ?", id, userID).Take(&r).Error; err != nil {
		return Job{}, nil, translate(err, "job")
	}
	rows, err := s.primaryRows(ctx, `SELECT row_number, message FROM import_job_errors WHERE job_id = ?
		ORDER BY row_number LIMIT ?`, id, MaxJobErrors)
	if err != nil {
		return Job{}, nil, translate(err, "job errors")
	}
	defer rows.Close()
	errs := []JobError{}
	for rows.Next() {
		var e JobError
		if err := rows.Scan(&e.Row, &e.Message); err != nil {
			return Job{}, nil, translate(err, "job errors")
		}
		errs = append(errs, e)
	}
	return r.job(), errs, translate(rows.Err(), "job errors")
}

// Jobs lists the user's jobs, newest first (at most 100).
func (s *Store) Jobs(ctx context.Context, userID string) ([]Job, error) {
	var rows []jobRow
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, job_id DESC").Limit(100).Find(&rows).Error; err != nil {
		return nil, translate(err, "jobs")
	}
	out := make([]Job, len(rows))
	for i, r := range rows {
		out[i] = r.job()
	}
	return out, nil
}

// ClaimedJob is a job a worker holds: what it imports, as whom, and from which row on.
type ClaimedJob struct {
	Job
	CreatorDID string
	Content    []byte
}

// ClaimImportJob takes the oldest job that is queued, or running with its worker's lease run
// out (the worker died), and leases it until leaseUntil. ok is false when none waits.
func (s *Store) ClaimImportJob(ctx context.Context, now, leaseUntil time.Time) (ClaimedJob, bool, error) {
	var out ClaimedJob
	var found bool
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var rows []jobRow
		if err := tx.Raw(`SELECT * FROM import_jobs WHERE (state = ? OR (state = ? AND lease_until <= ?))
			ORDER BY created_at, job_id LIMIT 1`+s.d.forUpdateSkipLocked(), JobQueued, JobRunning, now.UnixMilli()).Scan(&rows).Error; err != nil {
			return translate(err, "open jobs")
		}
		if len(rows) == 0 {
			return nil
		}
		r := rows[0]
		if err := tx.Exec(`UPDATE import_jobs SET state = ?, lease_until = ?, updated_at = ? WHERE job_id = ?`,
			JobRunning, leaseUntil.UnixMilli(), now.UnixMilli(), r.JobID).Error; err != nil {
			return translate(err, "lease job")
		}
		var content []byte
		if err := tx.Raw(`SELECT content FROM import_job_files WHERE job_id = ?`, r.JobID).Row().Scan(&content); err != nil {
			return translate(err, "job file")
		}
		r.State = JobRunning
		out, found = ClaimedJob{Job: r.job(), CreatorDID: r.CreatorDID, Content: content}, true
		return nil
	})
	return out, found, err
}

// ErrJobMoved: the job's progress is not where the worker left it (another worker took it
// over after this one's lease ran out); the worker stops.
var ErrJobMoved = errors.New("store: the job moved on without this worker")

// FailImportJob ends a job that cannot go on, saying why.
func (s *Store) FailImportJob(ctx context.Context, jobID, why string) error {
	return s.tx(ctx, func(tx *gorm.DB) error {
		var j jobRow
		if err := tx.Raw(`SELECT * FROM import_jobs WHERE job_id = ?`+s.d.forUpdate(), jobID).Take(&j).Error; err != nil {
			return translate(err, "job")
		}
		j.State, j.Failure = JobFailed, why
		var out jobRow
		return s.saveJob(tx, &j, &out)
	})
}

// saveJob writes j's progress; a job that ended gives up its file.
func (s *Store) saveJob(tx *gorm.DB, j, out *jobRow) error {
	j.UpdatedAt = s.nowMS()
	if err := tx.Exec(`UPDATE import_jobs SET state = ?, processed_rows = ?, imported_rows = ?, error_rows = ?, failure = ?,
		lease_until = ?, updated_at = ? WHERE job_id = ?`, j.State, j.ProcessedRows, j.ImportedRows, j.ErrorRows, j.Failure,
		j.LeaseUntil, j.UpdatedAt, j.JobID).Error; err != nil {
		return translate(err, "job progress")
	}
	if j.State == JobDone || j.State == JobFailed {
		if err := tx.Exec(`DELETE FROM import_job_files WHERE job_id = ?`, j.JobID).Error; err != nil {
			return translate(err, "job file")
		}
	}
	*out = *j
	return nil
}

// addJobErrors keeps the row errors, up to MaxJobErrors per job (kept counts those already kept),
// and every refused row as a failed row.
func (s *Store) addJobErrors(tx *gorm.DB, jobID string, kept int64, errs []JobError) error {
	if err := addFailedRows(tx, jobID, errs); err != nil {
		return err
	}
	room := MaxJobErrors - kept
	for _, e := range errs {
		if room <= 0 {
			return nil
		}
		if err := tx.Exec(`INSERT INTO import_job_errors (job_id, row_number, message) VALUES (?, ?, ?)`, jobID, e.Row, e.Message).Error; err != nil {
			return translate(err, "job errors")
		}
		room--
	}
	return nil
}

// exportPage is how many records one read of an export takes.
const exportPage = 1000

// ExportedRecord is what an export shows of a record: its name, the state it reads as
// (directory.Record.EffectiveState: revoked in a revoked registry, expired past its valid_till,
// stale or withdrawn with its origin's file) and its details.
type ExportedRecord struct {
	Name, State string
	Details     map[string]any
}

// EachRecordDetails calls fn with every latest record of a registry, by name, reading
// exportPage records at a time (keyset on the registry's name index), so that memory stays
// flat however large the registry is. Drafts are left out unless withDrafts (the namespace's
// owner and delegates: drafts are private). fn runs between reads, never while one is open, so
// that a slow reader of the export holds no database cursor.
func (s *Store) EachRecordDetails(ctx context.Context, registryID string, withDrafts bool, fn func(r ExportedRecord) error) error {
	// The registry's state, and for an origin-hosted registry its file's (stale or withdrawn
	// records read as that).
	var registryState, originState string
	if err := s.primaryRow(ctx, `SELECT g.state, COALESCE(f.state, '') FROM registries g
		LEFT JOIN dedi_publishers p ON p.namespace_id = g.namespace_id
		LEFT JOIN dedi_files f ON f.domain = p.domain AND f.registry_name = g.registry_name
		WHERE g.registry_id = ?`, []any{registryID}, &registryState, &originState); err != nil {
		return translate(err, "export")
	}
	drafts := " AND state <> 'deleted'" // a deleted record is missing (directory.Gone)
	if !withDrafts {
		drafts += " AND state <> 'draft'"
	}
	type rec struct {
		name, details, state string
		validTill            *int64
	}
	page := make([]rec, 0, exportPage)
	after := ""
	for {
		page = page[:0]
		rows, err := s.primaryRows(ctx, `SELECT record_name, details, state, valid_till FROM records
			WHERE registry_id = ? AND record_name > ?`+drafts+` ORDER BY record_name LIMIT ?`, registryID, after, exportPage)
		if err != nil {
			return translate(err, "export")
		}
		for rows.Next() {
			var r rec
			if err := rows.Scan(&r.name, &r.details, &r.state, &r.validTill); err != nil {
				rows.Close()
				return translate(err, "export")
			}
			page = append(page, r)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return translate(err, "export")
		}
		now := s.now()
		for _, r := range page {
			details, err := directory.DecodeObject(r.details)
			if err != nil {
				return err
			}
			state := directory.Record{State: r.state, RegistryState: registryState, OriginState: originState,
				ValidTill: msTimePtr(r.validTill)}.EffectiveState(now)
			if err := fn(ExportedRecord{Name: r.name, State: state, Details: details}); err != nil {
				return err
			}
			after = r.name
		}
		if len(page) < exportPage {
			return nil
		}
	}
}
