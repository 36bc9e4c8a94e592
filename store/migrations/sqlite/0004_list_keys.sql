-- +goose Up
-- See the Postgres migration (SQLite has no INCLUDE; the plain composite indexes serve).
CREATE INDEX records_registry_id ON records (registry_id, record_id);
