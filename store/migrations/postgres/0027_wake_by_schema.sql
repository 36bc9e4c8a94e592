-- +goose Up
-- The wake-up's payload names the schema of the table written as well as the worker
-- ("<schema>/<worker>"): notifications are delivered to every listener on the database, and an
-- instance wakes only for writes to its own schema, not for another deployment's (or another
-- test's) sharing the database (store/wake.go). A payload without a schema (0025's) still wakes.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION svc_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_wake', TG_TABLE_SCHEMA || '/' || TG_ARGV[0]);
  RETURN NULL;
END
$$;
-- +goose StatementEnd
