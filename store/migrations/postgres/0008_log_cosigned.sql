-- +goose Up
-- Witnessing (docs/transparency-log.md): the latest checkpoint that the configured quorum of
-- witnesses cosigned, as served (the log's signature and the witnesses' cosignatures), and its
-- tree size; '' and 0 until one is. Only ever replaced by a larger one.
ALTER TABLE log_state ADD COLUMN cosigned TEXT NOT NULL DEFAULT '';
ALTER TABLE log_state ADD COLUMN cosigned_size BIGINT NOT NULL DEFAULT 0;
