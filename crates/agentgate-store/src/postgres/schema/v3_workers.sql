-- Worker presence (see crate::workers): one row per running executor,
-- rewritten at each of its heartbeats.
CREATE TABLE workers (
    worker_id      text COLLATE "C" PRIMARY KEY,
    kind           text NOT NULL CHECK (kind IN ('worker', 'serve')),
    host           text NOT NULL,
    pid            bigint NOT NULL,
    owner          text NOT NULL,                  -- its jobs' lease_owner
    providers      jsonb NOT NULL,                 -- array; [] = all
    concurrency    bigint,                         -- NULL: the config's limits only
    started_at     timestamptz NOT NULL,
    last_heartbeat timestamptz NOT NULL,
    heartbeat_ms   bigint NOT NULL,                -- its heartbeat period
    state          text NOT NULL CHECK (state IN ('running', 'draining')),
    running_jobs   jsonb NOT NULL                  -- array of job ids
);
