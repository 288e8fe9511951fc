-- Runs, their attempts and events, sessions, thread totals, quota states.
-- Names that are sorted or matched by prefix are COLLATE "C": byte order,
-- whatever the database's locale, as in the SQLite store.
CREATE TABLE runs (
    run_id                      text COLLATE "C" PRIMARY KEY,
    status                      text NOT NULL
                                CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
    started_at                  timestamptz NOT NULL,
    ended_at                    timestamptz,
    providers                   jsonb NOT NULL,  -- array, failover order
    model                       text,            -- as requested
    session_name                text,
    cwd                         text,
    prompt_bytes                bigint NOT NULL,
    provider                    text,            -- of the last attempt
    final_model                 text,            -- of the last attempt
    session_id                  text,            -- provider-native
    duration_ms                 bigint,
    exit_code                   integer,         -- of `agentgate run`
    error_type                  text,
    error                       text,
    input_tokens                bigint,
    output_tokens               bigint,
    cache_read_input_tokens     bigint,
    cache_creation_input_tokens bigint,
    reasoning_tokens            bigint,
    total_tokens                bigint,
    cost_usd                    double precision,
    context_tokens              bigint,
    tokens_estimated            boolean,
    envelope                    text,            -- the whole envelope, JSON as written
    owner_pid                   bigint,
    owner_start_ticks           bigint,
    owner_boot_id               text,
    owner_host                  text
);
CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);

CREATE TABLE attempts (
    run_id      text COLLATE "C" NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    n           integer NOT NULL CHECK (n >= 1),
    provider    text NOT NULL,
    agent       text,
    model       text,
    session_id  text,
    started_at  timestamptz NOT NULL,
    ended_at    timestamptz,
    duration_ms bigint,
    exit_code   integer,                         -- of the provider CLI
    error_type  text,
    error       text,
    PRIMARY KEY (run_id, n)
);

-- A run's events, one row per event: the JSON line exactly as written.
CREATE TABLE run_events (
    run_id text COLLATE "C" NOT NULL,
    seq    bigint NOT NULL CHECK (seq >= 0),
    line   text NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE sessions (
    name              text COLLATE "C" NOT NULL,
    provider          text COLLATE "C" NOT NULL,
    native_session_id text NOT NULL,
    cwd               text,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    turns             bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (name, provider)
);

CREATE TABLE thread_totals (
    provider   text NOT NULL,
    thread_id  text NOT NULL,
    usage      jsonb NOT NULL,                   -- agentgate_protocol::Usage
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (provider, thread_id)
);

CREATE TABLE quota (
    provider   text COLLATE "C" PRIMARY KEY,
    status     text NOT NULL,                    -- available | warning | exhausted
    reset_at   timestamptz,
    source     text NOT NULL,
    updated_at timestamptz NOT NULL,
    message    text
);
