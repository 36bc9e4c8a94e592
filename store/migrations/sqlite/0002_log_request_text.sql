-- +goose Up
-- verification_logs.request is already TEXT on SQLite; this migration keeps the numbering of
-- both dialects in step.
SELECT 1;
