-- Claims that do not grow with the backlog (see crate::claim_next): the
-- facts a claim needs, planned at submit (writes_in already exists),
-- planned saying they were (false for the rows queued before: the executor
-- plans them once, see JobQueue::set_job_facts), the index that finds a
-- session's oldest queued job in one probe, and the one that finds those rows.
ALTER TABLE jobs ADD COLUMN ignore_quota boolean NOT NULL DEFAULT false;
ALTER TABLE jobs ADD COLUMN planned boolean NOT NULL DEFAULT false;
CREATE INDEX jobs_session_queue ON jobs (session_name, created_at, seq)
    WHERE state = 'queued' AND session_name IS NOT NULL;
CREATE INDEX jobs_unplanned ON jobs (seq) WHERE state = 'queued' AND NOT planned;
-- The limits as a semaphore (see src/postgres/claim_next.rs): scope 'all'
-- has slots 1..max_running, 'provider:NAME' 1..its limit, 'folder:PATH' and
-- 'session:NAME' one each. A slot is free when empty or when its job no
-- longer runs under the lease token it names (released lazily: nothing to
-- do when a job ends). A claim takes its slots FOR UPDATE SKIP LOCKED.
CREATE TABLE claim_slots (
    scope       text COLLATE "C" NOT NULL,
    n           integer NOT NULL CHECK (n >= 1),
    job_id      text COLLATE "C",
    lease_token text,
    PRIMARY KEY (scope, n)
);
