-- +goose Up
-- POST /svc/notifications/clearall hides the caller's read notifications from their history;
-- the rows stay, marked with when they were cleared.
ALTER TABLE notifications ADD COLUMN cleared_at BIGINT;
