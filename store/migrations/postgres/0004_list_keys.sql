-- +goose Up
-- Covering indexes for the deferred join of the record query: a page's keys are read from an
-- index alone (index-only scans), then only that page's rows are fetched.
CREATE INDEX records_registry_name_id ON records (registry_id, record_name, record_id);
CREATE INDEX records_registry_id ON records (registry_id, record_id);
