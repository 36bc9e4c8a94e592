-- +goose Up
-- On SQLite this version adds the full-text index of search; Postgres searches through the
-- trigram indexes of migration 3 and needs nothing here. The file keeps both dialects at the
-- same schema version.
SELECT 1;
