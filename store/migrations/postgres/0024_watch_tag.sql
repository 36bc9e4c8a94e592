-- +goose Up
-- Tag watches (docs/webhooks.md): watch_type 'tag' watches every registry whose tag is its
-- target_id (the contract's registry_tag), in any namespace, so such a subscription has no
-- namespace. A write looks them up by type.
ALTER TABLE watch_subscriptions DROP CONSTRAINT watch_subscriptions_watch_type_check;
ALTER TABLE watch_subscriptions ADD CONSTRAINT watch_subscriptions_watch_type_check
    CHECK (watch_type IN ('namespace', 'registry', 'record', 'tag'));
ALTER TABLE watch_subscriptions ALTER COLUMN namespace_id DROP NOT NULL;
ALTER TABLE watch_subscriptions ADD CONSTRAINT watch_subscriptions_namespace_check
    CHECK ((watch_type = 'tag') = (namespace_id IS NULL));
CREATE INDEX watch_subscriptions_tag ON watch_subscriptions (watch_type, target_id);
