-- +goose Up
-- The background workers sleep until a write gives them work (store/wake.go): an insert into
-- the log's queue, the watchers' outbox or the import jobs notifies the channel svc_wake, in the
-- writing transaction (delivered at its commit, to every instance listening), with the worker's
-- name as the payload. One notification per statement, whatever the rows.
-- +goose StatementBegin
CREATE FUNCTION svc_wake() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_wake', TG_ARGV[0]);
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER log_queue_wake AFTER INSERT ON log_queue FOR EACH STATEMENT EXECUTE FUNCTION svc_wake('log');
CREATE TRIGGER watch_outbox_wake AFTER INSERT ON watch_outbox FOR EACH STATEMENT EXECUTE FUNCTION svc_wake('webhook');
CREATE TRIGGER import_jobs_wake AFTER INSERT ON import_jobs FOR EACH STATEMENT EXECUTE FUNCTION svc_wake('jobs');
