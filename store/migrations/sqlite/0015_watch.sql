-- +goose Up
-- Watch subscriptions (docs/webhooks.md): a user's webhook on a namespace, a registry or a
-- record. Each public version of a watched entry queues one event per subscription in
-- watch_outbox, in the transaction that writes the version; a background sender delivers it
-- (at least once) and keeps each attempt in watch_deliveries.
CREATE TABLE watch_subscriptions (
    subscription_id TEXT PRIMARY KEY,                 -- UUIDv7
    user_id         TEXT NOT NULL REFERENCES users (id),
    watch_type      TEXT NOT NULL CHECK (watch_type IN ('namespace', 'registry', 'record')),
    target_id       TEXT NOT NULL,                    -- namespace, registry or record id
    namespace_id    TEXT NOT NULL REFERENCES namespaces (namespace_id),
    webhook_url     TEXT NOT NULL,
    secret          TEXT NOT NULL,                    -- whsec_..., the Standard Webhooks signing key
    state           TEXT NOT NULL CHECK (state IN ('active', 'failing')),
    created_at      INTEGER NOT NULL,
    failing_since   INTEGER
);
-- A write looks up the subscriptions of its namespace: nothing when none.
CREATE INDEX watch_subscriptions_namespace ON watch_subscriptions (namespace_id);
CREATE INDEX watch_subscriptions_user ON watch_subscriptions (user_id, created_at);

CREATE TABLE watch_outbox (
    event_id        TEXT PRIMARY KEY,                 -- the webhook-id, the same on every attempt
    subscription_id TEXT NOT NULL REFERENCES watch_subscriptions (subscription_id) ON DELETE CASCADE,
    payload         TEXT NOT NULL,                    -- the JSON body, as sent
    created_at      INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,                    -- due time; a claimed event's lease end
    attempts        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX watch_outbox_due ON watch_outbox (next_attempt_at);

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
