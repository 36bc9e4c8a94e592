-- +goose Up
-- The failed rows of CSV import jobs (docs/csv.md, "Failed rows"): each refused row's cells,
-- in the upload's column order, and why it was refused, written in the transaction of the
-- batch that refused it, so that the rows can be paged and downloaded as a CSV file to fix
-- and upload again after the uploaded file itself is gone. Kept as long as the job is.
ALTER TABLE import_jobs ADD COLUMN header TEXT NOT NULL DEFAULT '[]'; -- the upload's columns, a JSON array of strings

CREATE TABLE import_job_failed_rows (
    job_id     TEXT NOT NULL REFERENCES import_jobs (job_id),
    row_number INTEGER NOT NULL,                        -- 1 is the first row after the header
    cells      TEXT NOT NULL,                         -- a JSON array of strings, as uploaded
    message    TEXT NOT NULL,
    PRIMARY KEY (job_id, row_number)
);
