-- Workflow runs (kind `workflow`): a run of a workflow file's steps whose
-- event history is its checkpoint. The CHECK of version 5 (named by
-- PostgreSQL after its table and column) is replaced by a wider one.
ALTER TABLE runs DROP CONSTRAINT runs_kind_check;
ALTER TABLE runs ADD CONSTRAINT runs_kind_check CHECK (kind IN ('agent', 'tool', 'workflow'));
