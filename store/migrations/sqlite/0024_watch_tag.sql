-- +goose Up
-- Tag watches (docs/webhooks.md): watch_type 'tag' watches every registry whose tag is its
-- target_id (the contract's registry_tag), in any namespace, so such a subscription has no
-- namespace. A write looks them up by type.
--
-- SQLite cannot change a CHECK or a NOT NULL in place: watch_subscriptions is made again. Its
-- children (watch_outbox, watch_deliveries) are copied aside and dropped first, so that
-- dropping the parent cascades to nothing, then made again under it with their rows.
CREATE TABLE watch_outbox_copy AS SELECT * FROM watch_outbox;
CREATE TABLE watch_deliveries_copy AS SELECT * FROM watch_deliveries;
DROP TABLE watch_outbox;
DROP TABLE watch_deliveries;

CREATE TABLE watch_subscriptions_next (
    subscription_id TEXT PRIMARY KEY,                 -- UUIDv7
    user_id         TEXT NOT NULL REFERENCES users (id),
    watch_type      TEXT NOT NULL CHECK (watch_type IN ('namespace', 'registry', 'record', 'tag')),
    target_id       TEXT NOT NULL,                    -- namespace, registry or record id; the tag
    namespace_id    TEXT REFERENCES namespaces (namespace_id), -- NULL for a tag watch
    webhook_url     TEXT NOT NULL,
    secret          TEXT NOT NULL,                    -- whsec_..., the Standard Webhooks signing key
    state           TEXT NOT NULL CHECK (state IN ('active', 'failing')),
    created_at      INTEGER NOT NULL,
    failing_since   INTEGER,
    CHECK ((watch_type = 'tag') = (namespace_id IS NULL))
);
INSERT INTO watch_subscriptions_next SELECT subscription_id, user_id, watch_type, target_id, namespace_id, webhook_url,
    secret, state, created_at, failing_since FROM watch_subscriptions;
DROP TABLE watch_subscriptions;
ALTER TABLE watch_subscriptions_next RENAME TO watch_subscriptions;
CREATE INDEX watch_subscriptions_namespace ON watch_subscriptions (namespace_id);
CREATE INDEX watch_subscriptions_user ON watch_subscriptions (user_id, created_at);
CREATE INDEX watch_subscriptions_tag ON watch_subscriptions (watch_type, target_id);

CREATE TABLE watch_outbox (
    event_id        TEXT PRIMARY KEY,                 -- the webhook-id, the same on every attempt
    subscription_id TEXT NOT NULL REFERENCES watch_subscriptions (subscription_id) ON DELETE CASCADE,
    payload         TEXT NOT NULL,                    -- the JSON body, as sent
    created_at      INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,                    -- due time; a claimed event's lease end
    attempts        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX watch_outbox_due ON watch_outbox (next_attempt_at);
INSERT INTO watch_outbox (event_id, subscription_id, payload, created_at, next_attempt_at, attempts)
    SELECT event_id, subscription_id, payload, created_at, next_attempt_at, attempts FROM watch_outbox_copy;

CREATE TABLE watch_deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    subscription_id TEXT NOT NULL REFERENCES watch_subscriptions (subscription_id) ON DELETE CASCADE,
    event_id        TEXT NOT NULL,
    attempt         INTEGER NOT NULL,
    attempted_at    INTEGER NOT NULL,
    status_code     INTEGER NOT NULL,                 -- 0: no HTTP answer
    error           TEXT NOT NULL,                    -- '' when delivered
    delivered       BOOLEAN NOT NULL
);
CREATE INDEX watch_deliveries_subscription ON watch_deliveries (subscription_id, id);
INSERT INTO watch_deliveries (id, subscription_id, event_id, attempt, attempted_at, status_code, error, delivered)
    SELECT id, subscription_id, event_id, attempt, attempted_at, status_code, error, delivered FROM watch_deliveries_copy;
DROP TABLE watch_outbox_copy;
DROP TABLE watch_deliveries_copy;
