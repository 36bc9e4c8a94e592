-- +goose Up
-- Registry delegates (docs/delegates.md): users who may add and change the records of one
-- registry, beside the namespace's owner and delegates, who may write every registry of it.
CREATE TABLE registry_delegates (
    registry_id TEXT NOT NULL REFERENCES registries (registry_id),
    user_id     TEXT NOT NULL REFERENCES users (id),
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (registry_id, user_id)
);
