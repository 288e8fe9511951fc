-- API tokens (`agentgate token create`, see `crate::api_tokens`): a row per
-- token, by its unique name, with the SHA-256 of the token (never the
-- token), its team, scopes (names, space-separated), limits (JSON:
-- `max_running`, budgets later), and its times. Who submitted a job is two
-- reserved labels in `labels` (no column needed).
CREATE TABLE api_tokens (
    name         text COLLATE "C" PRIMARY KEY,
    hash         text NOT NULL UNIQUE,          -- SHA-256 of the token, hex
    team         text,
    scopes       text NOT NULL,
    limits       jsonb NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,
    last_used_at timestamptz,
    revoked_at   timestamptz
);
