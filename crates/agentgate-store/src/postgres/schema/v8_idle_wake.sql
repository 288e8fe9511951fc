-- One wake per change, not a broadcast (see src/postgres/idle.rs): the
-- executors that found nothing to claim and have room wait here, each with
-- a notification channel of its own (the watcher's, see
-- QueueWatcher::wake_channel). When a job is queued (inserted, back to
-- queued, its not_before or priority changed) or ends, the trigger takes
-- ONE of them, the oldest, skipping rows another transaction is taking
-- (so K changes at once wake K executors) and, for a job that left
-- running, the executor that held it (it claims by itself when its job
-- ends); it deletes the row and notifies that channel ('wake'). A job
-- queued wakes only an executor that takes one of its providers (a job
-- with none, a workflow, only one that takes every provider); a job ended
-- prefers such an executor (the slot it freed is likeliest to serve its
-- provider) but wakes any other if none is idle.
-- The broadcast on agentgate_jobs (v4) is unchanged.
CREATE TABLE idle_executors (
    channel   text COLLATE "C" PRIMARY KEY,
    owner     text NOT NULL,                       -- its jobs' lease_owner
    providers text[],                              -- the ones it takes; NULL: all
    since     timestamptz NOT NULL
);
CREATE INDEX idle_executors_oldest ON idle_executors (since, channel);

CREATE FUNCTION agentgate_jobs_wake_one() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    holder text;
    queued boolean := true;
    wanted text[];
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
        queued := NEW.state = 'queued';
    ELSE
        RETURN NULL;
    END IF;
    wanted := ARRAY(SELECT jsonb_array_elements_text(NEW.providers));
    DELETE FROM idle_executors
    WHERE channel = (
        SELECT channel FROM idle_executors
        WHERE (holder IS NULL OR owner <> holder)
          AND (NOT queued OR providers IS NULL OR providers && wanted)
        ORDER BY (providers IS NULL OR providers && wanted) DESC, since, channel
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
