-- +goose Up
-- The DeDi server's sources (docs/dedi-files.md, "The server's side"): the publishers it
-- crawls, with the last accepted manifest, and each of their files as fetched (the exact bytes,
-- to relay), and the discovery lists that name more publishers.
CREATE TABLE dedi_publishers (
    domain               TEXT PRIMARY KEY,
    namespace_id         TEXT REFERENCES namespaces (namespace_id), -- the origin-hosted namespace, once indexed
    status               TEXT NOT NULL DEFAULT 'pending'
                         CHECK (status IN ('pending', 'ok', 'failed', 'conflict')),
    last_success_at      BIGINT,                      -- the last crawl that accepted the manifest
    last_outcome         TEXT NOT NULL DEFAULT '',  -- an outcome word of package dedi, or conflict/unreachable
    last_reason          TEXT NOT NULL DEFAULT '',
    next_crawl_at        BIGINT NOT NULL,             -- due then (a claim moves it to its lease's end)
    manifest_url         TEXT NOT NULL DEFAULT '',
    manifest_etag        TEXT NOT NULL DEFAULT '',
    manifest_modified    TEXT NOT NULL DEFAULT '',  -- Last-Modified as received
    manifest_bytes       BYTEA,                      -- the last accepted manifest, as fetched
    manifest_sha256      TEXT NOT NULL DEFAULT '',
    manifest_kid         TEXT NOT NULL DEFAULT '',
    manifest_fetched_at  BIGINT,
    manifest_updated_at  BIGINT,
    manifest_next_update BIGINT,
    created_at           BIGINT NOT NULL
);
CREATE INDEX dedi_publishers_due ON dedi_publishers (next_crawl_at);

CREATE TABLE dedi_files (
    domain         TEXT NOT NULL REFERENCES dedi_publishers (domain) ON DELETE CASCADE,
    registry_name  TEXT NOT NULL,
    url            TEXT NOT NULL DEFAULT '',        -- '' for a file inline in the manifest
    state          TEXT NOT NULL CHECK (state IN ('live', 'inactive', 'stale', 'withdrawn')),
    last_outcome   TEXT NOT NULL DEFAULT '',
    last_reason    TEXT NOT NULL DEFAULT '',
    etag           TEXT NOT NULL DEFAULT '',
    last_modified  TEXT NOT NULL DEFAULT '',
    bytes          BYTEA NOT NULL,                   -- the last accepted file, as fetched
    sha256         TEXT NOT NULL,                   -- sha-256:<hex> of bytes
    kid            TEXT NOT NULL,
    fetched_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,                   -- registry.updated_at of the accepted file
    next_update    BIGINT NOT NULL,
    record_count   BIGINT NOT NULL,
    PRIMARY KEY (domain, registry_name)
);

CREATE TABLE dedi_lists (
    url          TEXT PRIMARY KEY,
    head         TEXT NOT NULL DEFAULT '',          -- the list's "# head:" when last read
    last_outcome TEXT NOT NULL DEFAULT '',
    fetched_at   BIGINT,
    created_at   BIGINT NOT NULL
);
