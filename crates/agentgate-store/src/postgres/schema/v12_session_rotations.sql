-- Session rotation (max_context_tokens). A session keeps the context length
-- of its last turn (NULL when the CLI did not tell it, and for rows stored
-- before); session_rotations is the history of the native sessions a name
-- moved through: a row per rotation, with the old and the new native id and
-- why.
ALTER TABLE sessions ADD COLUMN context_tokens bigint;
CREATE TABLE session_rotations (
    name                 text COLLATE "C" NOT NULL,
    provider             text COLLATE "C" NOT NULL,
    rotated_at           timestamptz NOT NULL,
    run_id               text,
    old_native_id        text NOT NULL,
    new_native_id        text,
    reason               text NOT NULL,
    context_tokens       bigint,
    max_context_tokens   bigint,
    handoff              text NOT NULL
);
CREATE INDEX session_rotations_by_name ON session_rotations (name, provider, rotated_at);
