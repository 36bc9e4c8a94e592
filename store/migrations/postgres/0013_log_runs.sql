-- +goose Up
-- The log's version-to-index map, at a few bytes a version (docs/transparency-log.md). A
-- public version's write now takes its queue position (log_queue.seq, never reused) into its
-- row as log_seq; an integration appends its leaves in seq order and records each run of
-- consecutive seqs it numbered as one row of log_runs: seq_start..seq_end became the indices
-- idx_start.. . A version's index is then found through its row and the run that holds its
-- seq. Versions integrated before this migration keep their rows in log_entries.
ALTER TABLE namespace_versions ADD COLUMN log_seq BIGINT;
ALTER TABLE registry_versions ADD COLUMN log_seq BIGINT;
ALTER TABLE record_versions ADD COLUMN log_seq BIGINT;

CREATE TABLE log_runs (
    seq_start BIGINT PRIMARY KEY,
    seq_end   BIGINT NOT NULL,
    idx_start BIGINT NOT NULL
);

-- The versions waiting in the queue now take their seq the same way.
UPDATE namespace_versions v SET log_seq = q.seq FROM log_queue q WHERE q.version = v.version;
UPDATE registry_versions v SET log_seq = q.seq FROM log_queue q WHERE q.version = v.version;
UPDATE record_versions v SET log_seq = q.seq FROM log_queue q WHERE q.version = v.version;
