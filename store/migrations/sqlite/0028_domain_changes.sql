-- +goose Up
-- The changes of the domain bindings (docs/transparency-log.md, "Domain leaves"): every time a
-- namespace gains or loses a verified domain, the transaction that changes namespaces.domain
-- queues a transparency-log leaf of kind domain and keeps it here, so that a log restart can
-- queue it again in order. digest is the BLAKE2b-256 of the leaf text, its id in the log
-- queue; log_seq is its queue position, as a version's (migration 0013).
CREATE TABLE domain_changes (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    domain       TEXT NOT NULL,
    namespace_id TEXT NOT NULL,
    method       TEXT NOT NULL,
    change       TEXT NOT NULL,                   -- gained or lost
    digest       TEXT NOT NULL,
    leaf         TEXT NOT NULL,                   -- RFC 8785 canonical JSON of the leaf
    created_at   INTEGER NOT NULL,
    log_seq      BIGINT
);
CREATE INDEX domain_changes_domain ON domain_changes (domain, seq);
CREATE INDEX domain_changes_digest ON domain_changes (digest);
