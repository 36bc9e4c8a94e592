-- +goose Up
-- CSV import jobs (docs/csv.md): an uploaded file, kept until its job ends, imported in
-- batches; each batch commits its records together with the job's progress, so that a job
-- resumed after a restart continues at the first row not yet imported.
CREATE TABLE import_jobs (
    job_id         TEXT PRIMARY KEY,                 -- UUIDv7
    user_id        TEXT NOT NULL REFERENCES users (id),
    namespace_id   TEXT NOT NULL REFERENCES namespaces (namespace_id),
    registry_name  TEXT NOT NULL,
    creator_did    TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    total_rows     BIGINT NOT NULL,
    processed_rows BIGINT NOT NULL DEFAULT 0,          -- rows done, imported or refused
    imported_rows  BIGINT NOT NULL DEFAULT 0,
    error_rows     BIGINT NOT NULL DEFAULT 0,
    failure        TEXT NOT NULL DEFAULT '',         -- why a failed job stopped
    lease_until    BIGINT NOT NULL DEFAULT 0,          -- a running job's worker holds it until then
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX import_jobs_user ON import_jobs (user_id, created_at);
CREATE INDEX import_jobs_open ON import_jobs (state, lease_until);

CREATE TABLE import_job_files (
    job_id  TEXT PRIMARY KEY REFERENCES import_jobs (job_id),
    content BYTEA NOT NULL
);

CREATE TABLE import_job_errors (
    job_id     TEXT NOT NULL REFERENCES import_jobs (job_id),
    row_number BIGINT NOT NULL,                        -- 1 is the first row after the header
    message    TEXT NOT NULL,
    PRIMARY KEY (job_id, row_number)
);
