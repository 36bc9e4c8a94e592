-- +goose Up
-- Postgres's wake-ups name their schema (0027 there); SQLite's are in memory (store/wake.go).
SELECT 1;
