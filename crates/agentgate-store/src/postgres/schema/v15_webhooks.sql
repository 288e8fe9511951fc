-- The webhook outbox (see crate::webhooks): a delivery per message and
-- destination, leased by the server sending it, and its attempts.
CREATE TABLE webhook_deliveries (
    delivery_id      bigserial PRIMARY KEY,
    message_id       text COLLATE "C" NOT NULL,
    event            text NOT NULL,
    url              text COLLATE "C" NOT NULL,
    job_id           text,
    payload          text NOT NULL,
    state            text NOT NULL
                     CHECK (state IN ('pending', 'delivered', 'refused', 'failed')),
    created_at       timestamptz NOT NULL,
    next_attempt_at  timestamptz,
    attempts         bigint NOT NULL DEFAULT 0,
    lease_owner      text,
    lease_expires_at timestamptz,
    UNIQUE (message_id, url)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE state = 'pending';
CREATE TABLE webhook_attempts (
    delivery_id bigint NOT NULL REFERENCES webhook_deliveries (delivery_id) ON DELETE CASCADE,
    n           bigint NOT NULL,
    at          timestamptz NOT NULL,
    status_code integer,
    error       text,
    outcome     text NOT NULL,
    PRIMARY KEY (delivery_id, n)
);
