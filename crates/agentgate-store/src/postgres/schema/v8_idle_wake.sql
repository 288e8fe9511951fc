-- One wake per change, not a broadcast (see src/postgres/idle.rs): the
-- executors that found nothing to claim and have room wait here, each with
-- a notification channel of its own (the watcher's, see
-- QueueWatcher::wake_channel). When a job is queued (inserted, back to
-- queued, its not_before or priority changed) or ends, the trigger takes
-- ONE of them, the oldest, skipping rows another transaction is taking
-- (so K changes at once wake K executors) and, for a job that left
-- running, the executor that held it (it claims by itself when its job
-- ends); it deletes the row and notifies that channel ('wake').
-- The broadcast on agentgate_jobs (v4) is unchanged.
CREATE TABLE idle_executors (
    channel text COLLATE "C" PRIMARY KEY,
    owner   text NOT NULL,                         -- its jobs' lease_owner
    since   timestamptz NOT NULL
);
CREATE INDEX idle_executors_oldest ON idle_executors (since, channel);

CREATE FUNCTION agentgate_jobs_wake_one() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    holder text;
    woken  text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.state <> 'queued' THEN
            RETURN NULL;
        END IF;
    ELSIF (OLD.state IN ('queued', 'running') AND NEW.state NOT IN ('queued', 'running'))
          OR (NEW.state = 'queued'
              AND (OLD.state <> 'queued'
                   OR NEW.not_before IS DISTINCT FROM OLD.not_before
                   OR NEW.priority <> OLD.priority)) THEN
        IF OLD.state = 'running' THEN
            holder := OLD.lease_owner;
        END IF;
    ELSE
        RETURN NULL;
    END IF;
    DELETE FROM idle_executors
    WHERE channel = (
        SELECT channel FROM idle_executors
        WHERE holder IS NULL OR owner <> holder
        ORDER BY since, channel
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
    RETURNING channel INTO woken;
    IF woken IS NOT NULL THEN
        PERFORM pg_notify(woken, 'wake');
    END IF;
    RETURN NULL;
END;
$$;

-- Deferred: it runs when the transaction commits, not at its statement,
-- which narrows the race with an executor that registers as idle meanwhile
-- (the executor also looks at the queue once more after it registers, and
-- its poll covers what is left).
CREATE CONSTRAINT TRIGGER jobs_wake_one
    AFTER INSERT OR UPDATE OF state, not_before, priority ON jobs
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION agentgate_jobs_wake_one();
