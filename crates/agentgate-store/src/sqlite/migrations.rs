//! The schema, as an append-only list of migrations.
//!
//! `PRAGMA user_version` holds how many migrations the file has had. Opening
//! a store applies the missing ones in one `BEGIN IMMEDIATE` transaction, so
//! two processes opening an old file at once migrate it once. Never edit a
//! released migration: append a new one.
//!
//! Timestamps are RFC 3339 text in UTC with nine fractional digits, e.g.
//! `2026-05-01T12:00:00.123000000Z`: fixed width, so text order is time
//! order. Tables are STRICT: a value of the wrong type is an error.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::StoreError;

/// Version 1: runs, their attempts, sessions.
const V1: &str = "
CREATE TABLE runs (
    run_id                      TEXT PRIMARY KEY NOT NULL,
    status                      TEXT NOT NULL
                                CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
    started_at                  TEXT NOT NULL,
    ended_at                    TEXT,
    providers                   TEXT NOT NULL,  -- JSON array, failover order
    model                       TEXT,           -- as requested
    session_name                TEXT,
    cwd                         TEXT,
    prompt_bytes                INTEGER NOT NULL,
    provider                    TEXT,           -- of the last attempt
    final_model                 TEXT,           -- of the last attempt
    session_id                  TEXT,           -- provider-native
    duration_ms                 INTEGER,
    exit_code                   INTEGER,        -- of `agentgate run`
    error_type                  TEXT,
    error                       TEXT,
    input_tokens                INTEGER,
    output_tokens               INTEGER,
    cache_read_input_tokens     INTEGER,
    cache_creation_input_tokens INTEGER,
    reasoning_tokens            INTEGER,
    total_tokens                INTEGER,
    cost_usd                    REAL,
    context_tokens              INTEGER,
    tokens_estimated            INTEGER,        -- 0 or 1
    envelope                    TEXT            -- the whole envelope, JSON
) STRICT;
CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);

CREATE TABLE attempts (
    run_id      TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    n           INTEGER NOT NULL CHECK (n >= 1),
    provider    TEXT NOT NULL,
    agent       TEXT,
    model       TEXT,
    session_id  TEXT,
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    duration_ms INTEGER,
    exit_code   INTEGER,                        -- of the provider CLI
    error_type  TEXT,
    error       TEXT,
    PRIMARY KEY (run_id, n)
) STRICT;

CREATE TABLE sessions (
    name              TEXT NOT NULL,
    provider          TEXT NOT NULL,
    native_session_id TEXT NOT NULL,
    cwd               TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    turns             INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (name, provider)
) STRICT;
";

/// Version 2: cumulative token totals of provider threads, quota states.
const V2: &str = "
CREATE TABLE thread_totals (
    provider   TEXT NOT NULL,
    thread_id  TEXT NOT NULL,
    usage      TEXT NOT NULL,                   -- agentgate_protocol::Usage, JSON
    updated_at TEXT NOT NULL,
    PRIMARY KEY (provider, thread_id)
) STRICT;

CREATE TABLE quota (
    provider   TEXT PRIMARY KEY NOT NULL,
    status     TEXT NOT NULL,                   -- available | warning | exhausted
    reset_at   TEXT,
    source     TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    message    TEXT
) STRICT;
";

/// Version 3: the owner of each run (who runs it), so that a run whose
/// agentgate process died reads as abandoned.
const V3: &str = "
ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
ALTER TABLE runs ADD COLUMN owner_start_ticks INTEGER;
ALTER TABLE runs ADD COLUMN owner_boot_id TEXT;
ALTER TABLE runs ADD COLUMN owner_host TEXT;
";

/// Version 4: the job queue (see `crate::job_queue`). `seq` is the
/// submission order (the claim's tie-break); the CHECKs keep a lease exactly
/// on running jobs and an end time exactly on ended ones.
const V4: &str = "
CREATE TABLE jobs (
    seq              INTEGER PRIMARY KEY,           -- submission order
    job_id           TEXT NOT NULL UNIQUE,          -- a run id: the job's run has the same id
    request          TEXT NOT NULL CHECK (json_valid(request)),  -- the run request, JSON
    state            TEXT NOT NULL
                     CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled',
                                      'abandoned')),
    priority         INTEGER NOT NULL DEFAULT 0,    -- higher first
    created_at       TEXT NOT NULL,
    not_before       TEXT NOT NULL,                 -- not claimed before
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    idempotency_key  TEXT UNIQUE,
    providers        TEXT NOT NULL CHECK (json_valid(providers)),  -- JSON array
    session_name     TEXT,
    lease_owner      TEXT,                          -- of the current or last lease
    lease_token      TEXT,
    lease_expires_at TEXT,
    waiting_for      TEXT,                          -- e.g. quota
    cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    envelope         TEXT,                          -- the final envelope, JSON
    error            TEXT,
    ended_at         TEXT,
    CHECK ((state = 'running') = (lease_token IS NOT NULL)),
    CHECK ((state = 'running') = (lease_expires_at IS NOT NULL)),
    CHECK ((state IN ('queued', 'running')) = (ended_at IS NULL))
) STRICT;
CREATE INDEX jobs_claim ON jobs (state, priority DESC, created_at, seq);
CREATE INDEX jobs_leases ON jobs (state, lease_expires_at);
CREATE INDEX jobs_by_created ON jobs (created_at DESC, job_id DESC);
CREATE INDEX jobs_by_state ON jobs (state, created_at DESC, job_id DESC);
CREATE INDEX jobs_by_session ON jobs (session_name, created_at DESC, job_id DESC)
    WHERE session_name IS NOT NULL;
";

/// Version 5: what a claim charged a running job (see `crate::claim_next`):
/// the provider it counts against and the folder it may write in.
const V5: &str = "
ALTER TABLE jobs ADD COLUMN charged_provider TEXT;
ALTER TABLE jobs ADD COLUMN writes_in TEXT;
";

/// Version 6: worker presence (see `crate::workers`): one row per running
/// executor, rewritten at each of its heartbeats.
const V6: &str = "
CREATE TABLE workers (
    worker_id      TEXT PRIMARY KEY NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('worker', 'serve')),
    host           TEXT NOT NULL,
    pid            INTEGER NOT NULL,
    owner          TEXT NOT NULL,                  -- its jobs' lease_owner
    providers      TEXT NOT NULL CHECK (json_valid(providers)),     -- JSON array; [] = all
    concurrency    INTEGER,                        -- NULL: the config's limits only
    started_at     TEXT NOT NULL,
    last_heartbeat TEXT NOT NULL,
    heartbeat_ms   INTEGER NOT NULL,               -- its heartbeat period
    state          TEXT NOT NULL CHECK (state IN ('running', 'draining')),
    running_jobs   TEXT NOT NULL CHECK (json_valid(running_jobs))   -- JSON array of job ids
) STRICT;
";

/// Version 7: tool runs (`agentgate tool`): what a run ran, and the agent
/// run that called a tool.
const V7: &str = "
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'tool'));
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
";

/// Version 8: workflow runs (kind `workflow`). SQLite cannot alter a
/// CHECK, so `runs` is rebuilt as SQLite documents
/// (<https://www.sqlite.org/lang_altertable.html#otheralter>): a new table
/// with the wider CHECK, every row copied, the old table dropped, the new
/// one renamed, its indexes made again. Same columns in the same order.
/// [`migrate`] turns foreign keys off around the transaction, so dropping
/// the old table does not cascade to `attempts`, and checks them before it
/// commits.
const V8: &str = "
CREATE TABLE runs_v8 (
    run_id                      TEXT PRIMARY KEY NOT NULL,
    status                      TEXT NOT NULL
                                CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
    started_at                  TEXT NOT NULL,
    ended_at                    TEXT,
    providers                   TEXT NOT NULL,
    model                       TEXT,
    session_name                TEXT,
    cwd                         TEXT,
    prompt_bytes                INTEGER NOT NULL,
    provider                    TEXT,
    final_model                 TEXT,
    session_id                  TEXT,
    duration_ms                 INTEGER,
    exit_code                   INTEGER,
    error_type                  TEXT,
    error                       TEXT,
    input_tokens                INTEGER,
    output_tokens               INTEGER,
    cache_read_input_tokens     INTEGER,
    cache_creation_input_tokens INTEGER,
    reasoning_tokens            INTEGER,
    total_tokens                INTEGER,
    cost_usd                    REAL,
    context_tokens              INTEGER,
    tokens_estimated            INTEGER,
    envelope                    TEXT,
    owner_pid                   INTEGER,
    owner_start_ticks           INTEGER,
    owner_boot_id               TEXT,
    owner_host                  TEXT,
    kind                        TEXT NOT NULL DEFAULT 'agent'
                                CHECK (kind IN ('agent', 'tool', 'workflow')),
    parent_run_id               TEXT
) STRICT;
INSERT INTO runs_v8 (run_id, status, started_at, ended_at, providers, model, session_name, cwd,
    prompt_bytes, provider, final_model, session_id, duration_ms, exit_code, error_type, error,
    input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens,
    reasoning_tokens, total_tokens, cost_usd, context_tokens, tokens_estimated, envelope,
    owner_pid, owner_start_ticks, owner_boot_id, owner_host, kind, parent_run_id)
SELECT run_id, status, started_at, ended_at, providers, model, session_name, cwd,
    prompt_bytes, provider, final_model, session_id, duration_ms, exit_code, error_type, error,
    input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens,
    reasoning_tokens, total_tokens, cost_usd, context_tokens, tokens_estimated, envelope,
    owner_pid, owner_start_ticks, owner_boot_id, owner_host, kind, parent_run_id
FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v8 RENAME TO runs;
CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
";

/// Version 9: claims that do not grow with the backlog (see
/// `crate::claim_next`): the facts a claim needs, planned at submit
/// (`writes_in` already exists), `planned` saying they were (0 for the rows
/// queued before: the executor plans them once, see
/// `crate::JobQueue::set_job_facts`), the index that finds a session's
/// oldest queued job in one probe, and the one that finds those rows.
const V9: &str = "
ALTER TABLE jobs ADD COLUMN ignore_quota INTEGER NOT NULL DEFAULT 0 CHECK (ignore_quota IN (0, 1));
ALTER TABLE jobs ADD COLUMN planned INTEGER NOT NULL DEFAULT 0 CHECK (planned IN (0, 1));
CREATE INDEX jobs_session_queue ON jobs (session_name, created_at, seq)
    WHERE state = 'queued' AND session_name IS NOT NULL;
CREATE INDEX jobs_unplanned ON jobs (seq) WHERE state = 'queued' AND planned = 0;
";

/// Version 10: labels (`--label key=value`). One side table for runs and
/// jobs alike (a job's run has the job's id): a row per label, keyed by the
/// id and the key, and an index by key and value, so that a label filter
/// (`agentgate runs --label`, `GET /v1/runs?label=`, cancel by label) reads
/// the ids carrying a label from the index and never parses a JSON column
/// of every row. A session keeps the labels of the run that created it
/// (JSON, read only with the session). Rows written before have no labels.
const V10: &str = "
CREATE TABLE labels (
    id    TEXT NOT NULL,                            -- a run's or a job's id
    key   TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (id, key)
) STRICT;
CREATE INDEX labels_by_value ON labels (key, value, id);
ALTER TABLE sessions ADD COLUMN labels TEXT CHECK (labels IS NULL OR json_valid(labels));
";

/// Version 11: the rate-limit windows the model gateway last read off the
/// wire for each quota key (`agentgate_protocol::RateLimitWindow`s, a JSON
/// array). Rows stored before have none (NULL).
const V11: &str = "
ALTER TABLE quota ADD COLUMN windows TEXT CHECK (windows IS NULL OR json_valid(windows));
";

/// Version 12: usage reports (see `crate::usage`). The agent and chain of
/// a run, generated from its envelope (virtual: computed on read, stored
/// only in the index; rows written before get them too, and a damaged
/// envelope gives NULL instead of failing), and a partial covering index
/// over agent runs: the start time, the dimensions, the outcome and the
/// figures, so that a report reads this index only and never a row's JSON.
const V12: &str = "
ALTER TABLE runs ADD COLUMN agent TEXT GENERATED ALWAYS AS
    (CASE WHEN json_valid(envelope) THEN CAST(json_extract(envelope, '$.agent') AS TEXT) END)
    VIRTUAL;
ALTER TABLE runs ADD COLUMN chain TEXT GENERATED ALWAYS AS
    (CASE WHEN json_valid(envelope) THEN CAST(json_extract(envelope, '$.chain') AS TEXT) END)
    VIRTUAL;
CREATE INDEX runs_usage ON runs (started_at, provider, final_model, agent, chain, session_name,
    status, error_type, input_tokens, output_tokens, cache_read_input_tokens,
    cache_creation_input_tokens, reasoning_tokens, total_tokens, cost_usd, run_id)
    WHERE kind = 'agent';
";

/// Version 13: session rotation (`max_context_tokens`). A session keeps the
/// context length of its last turn (NULL when the CLI did not tell it, and
/// for rows stored before); `session_rotations` is the history of the
/// native sessions a name moved through: a row per rotation, with the old
/// and the new native id and why.
const V13: &str = "
ALTER TABLE sessions ADD COLUMN context_tokens INTEGER;
CREATE TABLE session_rotations (
    name                 TEXT NOT NULL,
    provider             TEXT NOT NULL,
    rotated_at           TEXT NOT NULL,
    run_id               TEXT,
    old_native_id        TEXT NOT NULL,
    new_native_id        TEXT,
    reason               TEXT NOT NULL,
    context_tokens       INTEGER,
    max_context_tokens   INTEGER,
    handoff              TEXT NOT NULL
) STRICT;
CREATE INDEX session_rotations_by_name ON session_rotations (name, provider, rotated_at);
";

/// Version 14: budgets (see `crate::spend`), and usage reports that read
/// less. SQLite reads a partial index's condition column from the table
/// row, so a partial index never covers a query: the indexes here hold
/// every run, with `kind` in them. By agent, chain and session name, then
/// the start time, `kind` and the figures, so that what one of them spent
/// since a time is a short range scan of one index; and `runs_usage`
/// rebuilt so (its version 12 form was partial), which a report by
/// provider, model, session, label or none reads alone. (`agent` and
/// `chain` are virtual generated columns, which SQLite computes from the
/// row: a scan by them reads the rows it finds.)
const V14: &str = "
CREATE INDEX runs_spend_agent ON runs (agent, started_at, kind, cost_usd, total_tokens);
CREATE INDEX runs_spend_chain ON runs (chain, started_at, kind, cost_usd, total_tokens);
CREATE INDEX runs_spend_session ON runs (session_name, started_at, kind, cost_usd, total_tokens);
DROP INDEX runs_usage;
CREATE INDEX runs_usage ON runs (started_at, kind, provider, final_model, agent, chain,
    session_name, status, error_type, input_tokens, output_tokens, cache_read_input_tokens,
    cache_creation_input_tokens, reasoning_tokens, total_tokens, cost_usd, run_id);
";

/// Version 15: API tokens (`agentgate token create`, see `crate::api_tokens`):
/// a row per token, by its unique name, with the SHA-256 of the token
/// (never the token), its team, scopes (names, space-separated), limits
/// (JSON: `max_running`, budgets later), and its times. Who submitted a
/// job is two reserved labels in `labels` (no column needed).
const V15: &str = "
CREATE TABLE api_tokens (
    name         TEXT PRIMARY KEY NOT NULL,
    hash         TEXT NOT NULL UNIQUE,         -- SHA-256 of the token, hex
    team         TEXT,
    scopes       TEXT NOT NULL,
    limits       TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(limits)),
    created_at   TEXT NOT NULL,
    expires_at   TEXT,
    last_used_at TEXT,
    revoked_at   TEXT
) STRICT;
";

/// Version 16: the webhook outbox (see `crate::webhooks`): a delivery per
/// message and destination, leased by the process sending it, and its
/// attempts.
const V16: &str = "
CREATE TABLE webhook_deliveries (
    delivery_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id       TEXT NOT NULL,
    event            TEXT NOT NULL,
    url              TEXT NOT NULL,
    job_id           TEXT,
    payload          TEXT NOT NULL,
    state            TEXT NOT NULL
                     CHECK (state IN ('pending', 'delivered', 'refused', 'failed')),
    created_at       TEXT NOT NULL,
    next_attempt_at  TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    lease_owner      TEXT,
    lease_expires_at TEXT,
    UNIQUE (message_id, url)
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
    WHERE state = 'pending';
CREATE TABLE webhook_attempts (
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (delivery_id) ON DELETE CASCADE,
    n           INTEGER NOT NULL,
    at          TEXT NOT NULL,
    status_code INTEGER,
    error       TEXT,
    outcome     TEXT NOT NULL,
    PRIMARY KEY (delivery_id, n)
) STRICT;
";

/// Every migration, in order: migration `i` takes the file from version `i`
/// to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[
    V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the file to [`SCHEMA_VERSION`]; refuses a newer file.
///
/// Foreign keys are off while the migrations run (a table rebuild drops
/// `runs`, which would otherwise delete every attempt through their
/// `ON DELETE CASCADE`); the transaction commits only if
/// `PRAGMA foreign_key_check` finds nothing, and they are on again after.
/// The pragma is a no-op inside a transaction, hence around it.
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let found = user_version(conn).map_err(|e| super::open_error(path, e))?;
    check_not_newer(path, found)?;
    if found == SCHEMA_VERSION {
        return Ok(());
    }
    conn.pragma_update(None, "foreign_keys", false)
        .map_err(|e| super::open_error(path, e))?;
    let migrated = migrate_without_foreign_keys(conn, path);
    let restored = conn
        .pragma_update(None, "foreign_keys", true)
        .map_err(|e| super::open_error(path, e));
    migrated.and(restored)
}

fn migrate_without_foreign_keys(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| super::open_error(path, e))?;
    // Another process may have migrated while this one waited for the lock.
    let from = user_version(&tx).map_err(|e| super::open_error(path, e))?;
    check_not_newer(path, from)?;
    let start = usize::try_from(from).unwrap_or(0);
    for (step, sql) in (from..).zip(MIGRATIONS.iter().skip(start)) {
        tx.execute_batch(sql)
            .and_then(|()| tx.pragma_update(None, "user_version", step + 1))
            .map_err(|source| StoreError::Migrate {
                path: path.to_path_buf(),
                from,
                to: step + 1,
                source,
            })?;
    }
    check_foreign_keys(&tx).map_err(|source| StoreError::Migrate {
        path: path.to_path_buf(),
        from,
        to: SCHEMA_VERSION,
        source,
    })?;
    tx.commit().map_err(|source| StoreError::Migrate {
        path: path.to_path_buf(),
        from,
        to: SCHEMA_VERSION,
        source,
    })
}

/// Fails, naming the first offending row, if a foreign key points nowhere.
fn check_foreign_keys(conn: &Connection) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare("PRAGMA foreign_key_check")?;
    let mut rows = stmt.query([])?;
    match rows.next()? {
        None => Ok(()),
        Some(row) => {
            let table: String = row.get(0)?;
            let rowid: Option<i64> = row.get(1)?;
            let parent: String = row.get(2)?;
            Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY),
                Some(format!(
                    "row {} of `{table}` refers to a missing row of `{parent}`",
                    rowid.map_or_else(|| "?".to_owned(), |r| r.to_string())
                )),
            ))
        }
    }
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

fn check_not_newer(path: &Path, found: i64) -> Result<(), StoreError> {
    if found < 0 {
        return Err(StoreError::InvalidValue {
            op: "open",
            path: path.to_path_buf(),
            column: "PRAGMA user_version",
            value: found.to_string(),
        });
    }
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}
