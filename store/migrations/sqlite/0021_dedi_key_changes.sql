-- +goose Up
-- The key changes of the DeDi publishers (docs/dedi-files.md, "Key changes are logged"): every
-- accepted manifest whose key set differs from the publisher's last logged one (its first
-- included) is a row here and a leaf of kind dedi-keys in the transparency log, queued by the
-- transaction that records the manifest. The rows outlive their publisher (the log keeps the
-- leaves), so that a log restart can queue them again in order; log_seq is the leaf's queue
-- position, as a version's (migration 0013).
CREATE TABLE dedi_key_changes (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    domain     TEXT NOT NULL,
    digest     TEXT NOT NULL,                     -- the leaf's digest, its id in the log queue
    leaf       TEXT NOT NULL,                     -- RFC 8785 canonical JSON of the leaf
    created_at INTEGER NOT NULL,
    log_seq    BIGINT
);
CREATE INDEX dedi_key_changes_domain ON dedi_key_changes (domain, seq);
