-- +goose Up
-- Schema of the whole product (Postgres). Times are Unix milliseconds (BIGINT, UTC) so both
-- dialects compare and order them the same way; JSON is canonical JSON text in JSONB.
-- Every entry has a head row (its current state, mutable) and an append-only history of versions
-- (immutable; the head's current version is also there). Nothing is ever deleted.

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE users (
    id         TEXT PRIMARY KEY,                  -- UUIDv7
    email      TEXT NOT NULL UNIQUE,              -- lowercased
    profile_id TEXT NOT NULL UNIQUE,              -- base58btc of 16 random bytes
    disabled   BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    key_hash   BYTEA NOT NULL UNIQUE,             -- SHA-256 of the key; the key itself is never stored
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE profile_keys (
    id                   TEXT PRIMARY KEY,
    user_id              TEXT NOT NULL REFERENCES users (id),
    public_key_multibase TEXT NOT NULL,           -- Ed25519 public key, multibase z6Mk...
    created_at           BIGINT NOT NULL,
    UNIQUE (user_id, public_key_multibase)
);

CREATE TABLE namespaces (
    namespace_id   TEXT PRIMARY KEY,              -- did:svc:<base58btc>
    owner_id       TEXT NOT NULL REFERENCES users (id),
    created_by     TEXT NOT NULL,                 -- creator DID
    genesis        TEXT NOT NULL,                 -- creation timestamp as written in the digest
    created_at     BIGINT NOT NULL,
    -- current version
    version        TEXT NOT NULL,
    version_count  BIGINT NOT NULL,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL,
    meta           JSONB NOT NULL,
    ttl            BIGINT NOT NULL,
    digest         TEXT NOT NULL,
    proof_type     TEXT NOT NULL,
    updated_at     BIGINT NOT NULL,
    -- derived, outside the versions
    domain         TEXT UNIQUE,                   -- the verified domain: one namespace per domain, one domain per namespace
    registry_count BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE namespace_versions (
    version       TEXT PRIMARY KEY,
    namespace_id  TEXT NOT NULL REFERENCES namespaces (namespace_id),
    version_count BIGINT NOT NULL,
    created_by    TEXT NOT NULL,
    genesis       TEXT NOT NULL,
    name          TEXT NOT NULL,
    description   TEXT NOT NULL,
    meta          JSONB NOT NULL,
    ttl           BIGINT NOT NULL,
    digest        TEXT NOT NULL,
    proof_type    TEXT NOT NULL,
    created_at    BIGINT NOT NULL,                -- when this version was made
    UNIQUE (namespace_id, version_count)
);

CREATE TABLE namespace_members (
    namespace_id TEXT NOT NULL REFERENCES namespaces (namespace_id),
    user_id      TEXT NOT NULL REFERENCES users (id),
    role         TEXT NOT NULL CHECK (role IN ('owner', 'delegate')),
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (namespace_id, user_id)
);
CREATE INDEX namespace_members_user ON namespace_members (user_id);

CREATE TABLE registries (
    registry_id   TEXT PRIMARY KEY,               -- UUIDv7
    namespace_id  TEXT NOT NULL REFERENCES namespaces (namespace_id),
    registry_name TEXT NOT NULL,
    tag           TEXT NOT NULL CHECK (tag IN ('custom', 'membership', 'public_key', 'revoke')),
    schema        JSONB NOT NULL,
    created_by    TEXT NOT NULL,
    genesis       TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    version       TEXT NOT NULL,
    version_count BIGINT NOT NULL,
    description   TEXT NOT NULL,
    meta          JSONB NOT NULL,
    ttl           BIGINT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('live', 'inactive')),
    query_allowed BOOLEAN NOT NULL,
    digest        TEXT NOT NULL,
    proof_type    TEXT NOT NULL,
    updated_at    BIGINT NOT NULL,
    record_count  BIGINT NOT NULL DEFAULT 0,
    UNIQUE (namespace_id, registry_name)
);
CREATE INDEX registries_tag ON registries (tag, state);

CREATE TABLE registry_versions (
    version       TEXT PRIMARY KEY,
    registry_id   TEXT NOT NULL REFERENCES registries (registry_id),
    namespace_id  TEXT NOT NULL,
    registry_name TEXT NOT NULL,
    tag           TEXT NOT NULL,
    schema        JSONB NOT NULL,
    created_by    TEXT NOT NULL,
    genesis       TEXT NOT NULL,
    version_count BIGINT NOT NULL,
    description   TEXT NOT NULL,
    meta          JSONB NOT NULL,
    ttl           BIGINT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('live', 'inactive')),
    query_allowed BOOLEAN NOT NULL,
    digest        TEXT NOT NULL,
    proof_type    TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    UNIQUE (registry_id, version_count)
);

CREATE TABLE records (
    record_id     TEXT PRIMARY KEY,               -- UUIDv7
    registry_id   TEXT NOT NULL REFERENCES registries (registry_id),
    namespace_id  TEXT NOT NULL,
    registry_name TEXT NOT NULL,
    record_name   TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    genesis       TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    version       TEXT NOT NULL,
    version_count BIGINT NOT NULL,
    description   TEXT NOT NULL,
    details       JSONB NOT NULL,
    meta          JSONB NOT NULL,
    ttl           BIGINT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('draft', 'live')),
    valid_till    BIGINT,
    digest        TEXT NOT NULL,
    proof_type    TEXT NOT NULL,
    updated_at    BIGINT NOT NULL,
    UNIQUE (registry_id, record_name)
);

CREATE TABLE record_versions (
    version       TEXT PRIMARY KEY,
    record_id     TEXT NOT NULL REFERENCES records (record_id),
    registry_id   TEXT NOT NULL,
    namespace_id  TEXT NOT NULL,
    registry_name TEXT NOT NULL,
    record_name   TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    genesis       TEXT NOT NULL,
    version_count BIGINT NOT NULL,
    description   TEXT NOT NULL,
    details       JSONB NOT NULL,
    meta          JSONB NOT NULL,
    ttl           BIGINT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('draft', 'live')),
    valid_till    BIGINT,
    digest        TEXT NOT NULL,
    proof_type    TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    UNIQUE (record_id, version_count)
);

CREATE TABLE verification_logs (
    id           TEXT PRIMARY KEY,                -- UUIDv7
    lookup_type  TEXT NOT NULL CHECK (lookup_type IN ('namespace', 'registry', 'record')),
    verified_id  TEXT NOT NULL,                   -- id of the entry the submitted response names
    namespace_id TEXT,                            -- the entry in this directory, when identified
    registry_id  TEXT,
    record_id    TEXT,
    user_id      TEXT NOT NULL REFERENCES users (id),
    verified_by  TEXT NOT NULL,                   -- the caller's DID
    result       TEXT NOT NULL CHECK (result IN ('success', 'failed')),
    reason       TEXT NOT NULL,
    request      JSONB NOT NULL,
    created_at   BIGINT NOT NULL
);
CREATE INDEX verification_logs_entry ON verification_logs (lookup_type, verified_id, created_at DESC, id DESC);
CREATE INDEX verification_logs_user ON verification_logs (user_id, lookup_type, verified_id, created_at DESC, id DESC);

CREATE TABLE domain_allowlist (
    pattern    TEXT PRIMARY KEY,                  -- example.com or *.example.com
    created_at BIGINT NOT NULL
);

CREATE TABLE domain_challenges (
    id           TEXT PRIMARY KEY,
    namespace_id TEXT NOT NULL REFERENCES namespaces (namespace_id),
    domain       TEXT NOT NULL,
    method       TEXT NOT NULL CHECK (method IN ('self_dns', 'self_http', 'request_other_namespace')),
    txt          TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    UNIQUE (namespace_id, domain)
);

CREATE TABLE verification_requests (
    request_id          TEXT PRIMARY KEY,
    namespace_id        TEXT NOT NULL REFERENCES namespaces (namespace_id),   -- requester
    target_namespace_id TEXT NOT NULL REFERENCES namespaces (namespace_id),   -- attester
    domain              TEXT NOT NULL,
    txt                 TEXT NOT NULL,
    status              TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected', 'removed')),
    requested_by        TEXT NOT NULL REFERENCES users (id),
    decided_by          TEXT REFERENCES users (id),
    registry_id         TEXT,
    record_id           TEXT,
    created_at          BIGINT NOT NULL,
    decided_at          BIGINT
);
CREATE UNIQUE INDEX verification_requests_one_pending ON verification_requests (namespace_id, domain) WHERE status = 'pending';
CREATE INDEX verification_requests_target ON verification_requests (target_namespace_id, status);

CREATE TABLE domain_sources (
    id              TEXT PRIMARY KEY,
    namespace_id    TEXT NOT NULL REFERENCES namespaces (namespace_id),
    domain          TEXT NOT NULL,
    method          TEXT NOT NULL CHECK (method IN ('self_dns', 'self_http', 'request_other_namespace')),
    request_id      TEXT REFERENCES verification_requests (request_id),
    status          TEXT NOT NULL CHECK (status IN ('active', 'grace')),
    verified_at     BIGINT NOT NULL,
    last_checked_at BIGINT NOT NULL,
    next_check_at   BIGINT NOT NULL,
    grace_until     BIGINT,
    last_error      TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    UNIQUE (namespace_id, domain, method)
);
CREATE INDEX domain_sources_due ON domain_sources (next_check_at);
CREATE INDEX domain_sources_domain ON domain_sources (domain);

CREATE TABLE notifications (
    id                  TEXT PRIMARY KEY,
    request_id          TEXT NOT NULL REFERENCES verification_requests (request_id),
    namespace_id        TEXT NOT NULL,
    target_namespace_id TEXT NOT NULL,
    recipient_email     TEXT NOT NULL,
    actor_email         TEXT,
    domain              TEXT NOT NULL,
    event_type          TEXT NOT NULL CHECK (event_type IN ('pending', 'accepted', 'rejected')),
    title               TEXT NOT NULL,
    message             TEXT NOT NULL,
    metadata            JSONB NOT NULL,
    is_read             BOOLEAN NOT NULL DEFAULT FALSE,
    read_at             BIGINT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);
CREATE INDEX notifications_recipient ON notifications (recipient_email, is_read, created_at DESC);
