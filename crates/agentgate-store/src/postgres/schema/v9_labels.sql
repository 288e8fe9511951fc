-- Labels (`--label key=value`). One side table for runs and jobs alike (a
-- job's run has the job's id): a row per label, keyed by the id and the
-- key, and an index by key and value, so that a label filter (`agentgate
-- runs --label`, `GET /v1/runs?label=`, cancel by label) reads the ids
-- carrying a label from the index and never parses a JSON column of every
-- row. A session keeps the labels of the run that created it (read only
-- with the session). Rows written before have no labels.
CREATE TABLE labels (
    id    text COLLATE "C" NOT NULL,               -- a run's or a job's id
    key   text COLLATE "C" NOT NULL,
    value text COLLATE "C" NOT NULL,
    PRIMARY KEY (id, key)
);
CREATE INDEX labels_by_value ON labels (key, value, id);
ALTER TABLE sessions ADD COLUMN labels jsonb;
