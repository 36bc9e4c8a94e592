-- +goose Up
-- The log found rolled back (docs/deployment.md, "Losing the primary"): the tree size of the
-- checkpoint the stored log was found behind (0: none), how it was found and when (unix ms).
-- While it is set every instance refuses to sign; svc log restart clears it.
ALTER TABLE log_state ADD COLUMN rolled_back_behind BIGINT NOT NULL DEFAULT 0;
ALTER TABLE log_state ADD COLUMN rolled_back_size BIGINT NOT NULL DEFAULT 0;
ALTER TABLE log_state ADD COLUMN rolled_back_found TEXT NOT NULL DEFAULT '';
ALTER TABLE log_state ADD COLUMN rolled_back_at BIGINT NOT NULL DEFAULT 0;
