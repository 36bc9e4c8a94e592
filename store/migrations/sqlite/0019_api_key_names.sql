-- +goose Up
-- Self-service API keys (POST /svc/api-keys): a key has a name its user gave it, the first 12
-- characters of the key (the key itself is never stored, only its SHA-256), and when a request
-- last authenticated with it (kept to within a minute). Keys made before have neither name nor
-- prefix.
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN prefix TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
