-- +goose Up
-- Collection reads and search (issue: query, tag query and search at a million records).
-- search_text holds the latest version's details as lowercased entries
-- "\x1e<path>\x1f<value>" ... "\x1e" (one per scalar; array elements under the array's path),
-- maintained by the store; trigram indexes make partial, case-insensitive matching fast.
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
ALTER TABLE records ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
CREATE INDEX records_search_text_trgm ON records USING gin (search_text public.gin_trgm_ops);
CREATE INDEX records_name_trgm ON records USING gin (lower(record_name) public.gin_trgm_ops);
CREATE INDEX records_registry_updated ON records (registry_id, updated_at DESC, record_id);
CREATE INDEX records_registry_state_name ON records (registry_id, state, record_name, record_id);
CREATE INDEX records_namespace_updated ON records (namespace_id, updated_at DESC, record_id);
CREATE INDEX registries_namespace_updated ON registries (namespace_id, updated_at DESC, registry_id);
CREATE INDEX record_versions_registry_created ON record_versions (registry_id, created_at, record_id, version_count);
CREATE INDEX registry_versions_namespace_created ON registry_versions (namespace_id, created_at, registry_id, version_count);
