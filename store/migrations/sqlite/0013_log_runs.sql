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

-- A rowid key is reused once the queue is empty: AUTOINCREMENT never gives a seq twice.
CREATE TABLE log_queue_next (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    version TEXT NOT NULL,
    leaf    TEXT NOT NULL
);
INSERT INTO log_queue_next (seq, version, leaf) SELECT seq, version, leaf FROM log_queue;
DROP TABLE log_queue;
ALTER TABLE log_queue_next RENAME TO log_queue;

-- The versions waiting in the queue now take their seq the same way.
UPDATE namespace_versions SET log_seq = (SELECT q.seq FROM log_queue q WHERE q.version = namespace_versions.version)
 WHERE version IN (SELECT version FROM log_queue);
UPDATE registry_versions SET log_seq = (SELECT q.seq FROM log_queue q WHERE q.version = registry_versions.version)
 WHERE version IN (SELECT version FROM log_queue);
UPDATE record_versions SET log_seq = (SELECT q.seq FROM log_queue q WHERE q.version = record_versions.version)
 WHERE version IN (SELECT version FROM log_queue);
