-- +goose Up
-- Platform statistics (GET /svc/stats): how many users, namespaces, registries and records
-- exist, kept as counters that the writes that create them increase in their own transaction
-- (store/stats.go), so that reading them costs the same at any size. Each counter is spread
-- over 16 rows (shards) that writers pick at random, so that concurrent writers on Postgres
-- rarely wait for one another's row lock; a read sums them. They start from the rows that
-- exist when this migration runs.
CREATE TABLE svc_counters (
    name  TEXT NOT NULL,
    shard INTEGER NOT NULL,
    n     BIGINT NOT NULL,
    PRIMARY KEY (name, shard)
);
WITH c(name) AS (VALUES ('users'), ('namespaces'), ('registries'), ('records')),
     s(shard) AS (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9), (10), (11), (12), (13), (14), (15))
INSERT INTO svc_counters (name, shard, n) SELECT c.name, s.shard, 0 FROM c CROSS JOIN s;
UPDATE svc_counters SET n = (SELECT COUNT(*) FROM users) WHERE name = 'users' AND shard = 0;
UPDATE svc_counters SET n = (SELECT COUNT(*) FROM namespaces) WHERE name = 'namespaces' AND shard = 0;
UPDATE svc_counters SET n = (SELECT COUNT(*) FROM registries) WHERE name = 'registries' AND shard = 0;
UPDATE svc_counters SET n = (SELECT COUNT(*) FROM records) WHERE name = 'records' AND shard = 0;
