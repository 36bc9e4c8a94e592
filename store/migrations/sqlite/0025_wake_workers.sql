-- +goose Up
-- Postgres's workers are woken by notifications its triggers send (0025 there); SQLite has one
-- process, whose commits wake them in memory (store/wake.go).
SELECT 1;
