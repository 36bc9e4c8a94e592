-- +goose Up
-- Collection reads and search: see the Postgres migration. SQLite matches search_text with a
-- registered Go function (svc_field_match) instead of trigram indexes.
ALTER TABLE records ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
CREATE INDEX records_registry_updated ON records (registry_id, updated_at DESC, record_id);
CREATE INDEX records_registry_state_name ON records (registry_id, state, record_name, record_id);
CREATE INDEX records_namespace_updated ON records (namespace_id, updated_at DESC, record_id);
CREATE INDEX registries_namespace_updated ON registries (namespace_id, updated_at DESC, registry_id);
CREATE INDEX record_versions_registry_created ON record_versions (registry_id, created_at, record_id, version_count);
CREATE INDEX registry_versions_namespace_created ON registry_versions (namespace_id, created_at, registry_id, version_count);
