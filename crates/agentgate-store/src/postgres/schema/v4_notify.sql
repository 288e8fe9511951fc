-- The queue's changes, notified by the database (see src/postgres/listen.rs):
-- on channel agentgate_jobs, payload '<change>:<job id>' (job ids never
-- contain a colon), sent when the transaction commits.
--   queued  a job was inserted queued, went back to queued (released,
--           retried, its lease taken back), or its not_before or priority
--           changed while queued: a claim may take it;
--   cancel  a running job's cancel was asked: its executor stops it;
--   ended   a queued or running job ended: a slot (or a session's turn) is
--           free.
-- A claim (queued -> running) and a lease renewal notify nothing.
CREATE FUNCTION agentgate_jobs_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    change text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.state = 'queued' THEN
            change := 'queued';
        END IF;
    ELSIF OLD.state IN ('queued', 'running') AND NEW.state NOT IN ('queued', 'running') THEN
        change := 'ended';
    ELSIF NEW.state = 'queued'
          AND (OLD.state <> 'queued'
               OR NEW.not_before IS DISTINCT FROM OLD.not_before
               OR NEW.priority <> OLD.priority) THEN
        change := 'queued';
    ELSIF NEW.state = 'running' AND NEW.cancel_requested AND NOT OLD.cancel_requested THEN
        change := 'cancel';
    END IF;
    IF change IS NOT NULL THEN
        PERFORM pg_notify('agentgate_jobs', change || ':' || NEW.job_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER jobs_notify
    AFTER INSERT OR UPDATE OF state, cancel_requested, not_before, priority ON jobs
    FOR EACH ROW EXECUTE FUNCTION agentgate_jobs_notify();
