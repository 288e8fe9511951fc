-- The job queue (see crate::job_queue for the rules).
CREATE TABLE jobs (
    seq              bigserial PRIMARY KEY,          -- submission order
    job_id           text COLLATE "C" NOT NULL UNIQUE, -- a run id; byte order, as SQLite's
    request          text NOT NULL,                  -- the run request, JSON as submitted
    state            text NOT NULL
                     CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled',
                                      'abandoned')),
    priority         integer NOT NULL DEFAULT 0,     -- higher first
    created_at       timestamptz NOT NULL,
    not_before       timestamptz NOT NULL,           -- not claimed before
    attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    idempotency_key  text UNIQUE,
    providers        jsonb NOT NULL,                 -- array
    session_name     text,
    lease_owner      text,                           -- of the current or last lease
    lease_token      text,
    lease_expires_at timestamptz,
    waiting_for      text,                           -- e.g. quota
    cancel_requested boolean NOT NULL DEFAULT false,
    envelope         text,                           -- the final envelope, JSON
    error            text,
    ended_at         timestamptz,
    CHECK ((state = 'running') = (lease_token IS NOT NULL)),
    CHECK ((state = 'running') = (lease_expires_at IS NOT NULL)),
    CHECK ((state IN ('queued', 'running')) = (ended_at IS NULL))
);
-- The claim walks jobs_claim in claim order (no sort); expire_leases walks
-- jobs_leases; list_jobs the others.
CREATE INDEX jobs_claim ON jobs (priority DESC, created_at, seq) WHERE state = 'queued';
CREATE INDEX jobs_leases ON jobs (lease_expires_at) WHERE state = 'running';
CREATE INDEX jobs_by_created ON jobs (created_at DESC, job_id DESC);
CREATE INDEX jobs_by_state ON jobs (state, created_at DESC, job_id DESC);
CREATE INDEX jobs_by_session ON jobs (session_name, created_at DESC, job_id DESC)
    WHERE session_name IS NOT NULL;
