-- +goose Up
-- The submitted request of a verification attempt is kept as canonical JSON text: it is only
-- stored and shown back, never searched, and TEXT is markedly cheaper to insert than JSONB on
-- the verification hot path.
ALTER TABLE verification_logs ALTER COLUMN request TYPE TEXT USING request::text;
