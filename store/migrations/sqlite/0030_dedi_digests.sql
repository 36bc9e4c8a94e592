-- +goose Up
-- The DeDi digests document (docs/dedi-files.md, "The digests document"): the last one accepted
-- from each publisher, as fetched, to verify its files against and to relay; and the
-- dedi_version each accepted document declared, recorded and shown.
ALTER TABLE dedi_publishers ADD COLUMN manifest_dedi_version TEXT NOT NULL DEFAULT '';
ALTER TABLE dedi_publishers ADD COLUMN digests_url TEXT NOT NULL DEFAULT '';
ALTER TABLE dedi_publishers ADD COLUMN digests_etag TEXT NOT NULL DEFAULT '';
ALTER TABLE dedi_publishers ADD COLUMN digests_modified TEXT NOT NULL DEFAULT '';
ALTER TABLE dedi_publishers ADD COLUMN digests_bytes BLOB;
ALTER TABLE dedi_publishers ADD COLUMN digests_sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE dedi_publishers ADD COLUMN digests_kid TEXT NOT NULL DEFAULT '';
ALTER TABLE dedi_publishers ADD COLUMN digests_fetched_at BIGINT;
ALTER TABLE dedi_publishers ADD COLUMN digests_updated_at BIGINT;
ALTER TABLE dedi_publishers ADD COLUMN digests_next_update BIGINT;
ALTER TABLE dedi_publishers ADD COLUMN digests_dedi_version TEXT NOT NULL DEFAULT '';
ALTER TABLE dedi_files ADD COLUMN dedi_version TEXT NOT NULL DEFAULT '';
