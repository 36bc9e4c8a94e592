-- +goose Up
-- The transparency log (docs/transparency-log.md). Every public version (namespaces,
-- registries, records that are not drafts) is queued in log_queue by the transaction that
-- writes it; the integrator moves queued leaves into the tree in seq order, one transaction
-- per batch: it numbers them (log_entries), extends the tiles (log_tiles) and signs the new
-- checkpoint (log_state).
CREATE TABLE log_queue (
    seq     INTEGER PRIMARY KEY,
    version TEXT NOT NULL,                        -- the version the leaf is for
    leaf    TEXT NOT NULL                         -- RFC 8785 canonical JSON of the leaf
);

CREATE TABLE log_entries (
    idx     BIGINT PRIMARY KEY,                   -- the leaf's index in the log
    version TEXT NOT NULL UNIQUE
);

-- C2SP tlog-tiles of height 8: level >= 0 are hash tiles, level -1 entry bundles; data is the
-- tile as served at its current width (a partial tile grows until it is full).
CREATE TABLE log_tiles (
    level INTEGER NOT NULL,
    n     BIGINT NOT NULL,
    data  BLOB NOT NULL,
    PRIMARY KEY (level, n)
);

-- One row: the integrated size, the origin the log was started with and its latest signed
-- checkpoint ('' before the first). Integrators lock this row.
CREATE TABLE log_state (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    origin     TEXT NOT NULL,
    size       BIGINT NOT NULL,
    checkpoint TEXT NOT NULL
);
INSERT INTO log_state (id, origin, size, checkpoint) VALUES (1, '', 0, '');

-- Backfill: the public versions that exist already, in creation order. The versions of one
-- entry keep their order even if the clock went back between them (running maximum of
-- created_at per entry); ties go namespaces, registries, records, then by version_count.
-- The leaf is the RFC 8785 form of its fields: keys sorted, no whitespace; every value is an
-- identifier, a hex digest or an integer made by the service, none needs escaping.
INSERT INTO log_queue (version, leaf)
SELECT version, leaf FROM (
    SELECT version, MAX(created_at) OVER (PARTITION BY namespace_id ORDER BY version_count) AS t,
           1 AS rank, version_count,
           '{"digest":"' || digest || '","kind":"namespace","namespace_id":"' || namespace_id ||
           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}' AS leaf
      FROM namespace_versions
    UNION ALL
    SELECT version, MAX(created_at) OVER (PARTITION BY registry_id ORDER BY version_count),
           2, version_count,
           '{"digest":"' || digest || '","kind":"registry","namespace_id":"' || namespace_id ||
           '","registry_id":"' || registry_id ||
           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}'
      FROM registry_versions
    UNION ALL
    SELECT version, MAX(created_at) OVER (PARTITION BY record_id ORDER BY version_count),
           3, version_count,
           '{"digest":"' || digest || '","kind":"record","namespace_id":"' || namespace_id ||
           '","record_id":"' || record_id || '","registry_id":"' || registry_id ||
           '","version":"' || version || '","version_count":' || CAST(version_count AS TEXT) || '}'
      FROM record_versions WHERE state <> 'draft'
) AS v
ORDER BY t, rank, version_count, version;
