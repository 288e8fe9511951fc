//! A database written by an older agentgate is migrated when opened.

use agentgate_store::{QuotaState, QuotaStatus, RunStatus, RunStore, SCHEMA_VERSION, Store};
use rusqlite::Connection;

use super::support::ts;

/// The schema of version 1 as it was released: a fixture, kept verbatim, not
/// derived from the crate's migrations.
pub(super) const V1_SCHEMA: &str = "
CREATE TABLE runs (
    run_id TEXT PRIMARY KEY NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
    started_at TEXT NOT NULL, ended_at TEXT, providers TEXT NOT NULL, model TEXT,
    session_name TEXT, cwd TEXT, prompt_bytes INTEGER NOT NULL, provider TEXT,
    final_model TEXT, session_id TEXT, duration_ms INTEGER, exit_code INTEGER,
    error_type TEXT, error TEXT, input_tokens INTEGER, output_tokens INTEGER,
    cache_read_input_tokens INTEGER, cache_creation_input_tokens INTEGER,
    reasoning_tokens INTEGER, total_tokens INTEGER, cost_usd REAL, context_tokens INTEGER,
    tokens_estimated INTEGER, envelope TEXT
) STRICT;
CREATE INDEX runs_by_start ON runs (started_at DESC, run_id DESC);
CREATE TABLE attempts (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    n INTEGER NOT NULL CHECK (n >= 1), provider TEXT NOT NULL, agent TEXT, model TEXT,
    session_id TEXT, started_at TEXT NOT NULL, ended_at TEXT, duration_ms INTEGER,
    exit_code INTEGER, error_type TEXT, error TEXT,
    PRIMARY KEY (run_id, n)
) STRICT;
CREATE TABLE sessions (
    name TEXT NOT NULL, provider TEXT NOT NULL, native_session_id TEXT NOT NULL, cwd TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, turns INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (name, provider)
) STRICT;
INSERT INTO runs (run_id, status, started_at, providers, prompt_bytes)
    VALUES ('run_old', 'running', '2026-01-02T03:04:05.000000000Z', '[\"claude\"]', 42);
INSERT INTO attempts (run_id, n, provider, started_at)
    VALUES ('run_old', 1, 'claude', '2026-01-02T03:04:05.000000000Z');
INSERT INTO sessions (name, provider, native_session_id, created_at, updated_at, turns)
    VALUES ('old', 'claude', 'uuid-old', '2026-01-01T00:00:00.000000000Z',
            '2026-01-02T00:00:00.000000000Z', 3);
PRAGMA user_version = 1;
";

#[test]
fn a_version_1_database_is_migrated_and_keeps_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch(V1_SCHEMA)
        .unwrap();

    let store = Store::open(&path).unwrap();

    let version: i64 = Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);

    let old = store.get_run("run_old").unwrap().unwrap();
    assert_eq!(old.summary.status, RunStatus::Running);
    assert_eq!(old.summary.record.providers, ["claude"]);
    assert_eq!(old.summary.record.prompt_bytes, 42);
    assert_eq!(old.attempts.len(), 1);
    let session = store.get_session("old", "claude").unwrap().unwrap();
    assert_eq!(session.native_session_id, "uuid-old");
    assert_eq!(session.turns, 3);

    // The tables of version 2 exist and work.
    let state = QuotaState {
        status: QuotaStatus::Available,
        reset_at: None,
        source: "probe".to_owned(),
        updated_at: ts("2026-05-01T00:00:00Z"),
        message: None,
        windows: Vec::new(),
    };
    store.put_quota("claude", &state).unwrap();
    assert_eq!(store.get_quota("claude").unwrap(), Some(state));
    store
        .put_thread_totals("codex", "t", &agentgate_protocol::Usage::default())
        .unwrap();

    // Version 3: the run started before owners were stored has none and
    // stays running (nothing tells whether its process is gone); a run
    // started now gets this process as its owner.
    assert_eq!(old.summary.owner, None);
    store
        .insert_run(&super::support::run_record(
            "run_new",
            "2026-05-01T00:00:00Z",
        ))
        .unwrap();
    let new = store.get_run("run_new").unwrap().unwrap().summary;
    assert_eq!(new.owner, Some(agentgate_store::RunOwner::current()));
    assert_eq!(new.status, RunStatus::Running);

    // Opening again is a no-op.
    drop(store);
    let store = Store::open(&path).unwrap();
    assert!(store.get_run("run_old").unwrap().is_some());
}

/// What versions 2 and 3 added, as released: a fixture, kept verbatim.
pub(super) const V2_V3_SCHEMA: &str = "
CREATE TABLE thread_totals (
    provider TEXT NOT NULL, thread_id TEXT NOT NULL, usage TEXT NOT NULL,
    updated_at TEXT NOT NULL, PRIMARY KEY (provider, thread_id)
) STRICT;
CREATE TABLE quota (
    provider TEXT PRIMARY KEY NOT NULL, status TEXT NOT NULL, reset_at TEXT,
    source TEXT NOT NULL, updated_at TEXT NOT NULL, message TEXT
) STRICT;
ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
ALTER TABLE runs ADD COLUMN owner_start_ticks INTEGER;
ALTER TABLE runs ADD COLUMN owner_boot_id TEXT;
ALTER TABLE runs ADD COLUMN owner_host TEXT;
INSERT INTO quota (provider, status, source, updated_at)
    VALUES ('codex', 'exhausted', 'error', '2026-01-02T00:00:00.000000000Z');
PRAGMA user_version = 3;
";

#[test]
fn a_version_3_database_gets_the_job_queue_the_claim_rules_and_the_workers_and_keeps_its_data() {
    use agentgate_store::{JobFilter, JobQueue, JobState};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(V1_SCHEMA).unwrap();
    conn.execute_batch(V2_V3_SCHEMA).unwrap();
    drop(conn);

    let store = Store::open(&path).unwrap();
    let version: i64 = Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, 16);
    assert_eq!(SCHEMA_VERSION, 16);

    assert!(store.get_run("run_old").unwrap().is_some());
    let quota = store.get_quota("codex").unwrap().unwrap();
    assert_eq!(quota.status, QuotaStatus::Exhausted);
    // Version 11: a state stored before windows were kept reads with none.
    assert!(quota.windows.is_empty(), "{quota:?}");

    // Version 4: the job queue exists and works.
    let job = super::jobs::new_job("job_after_migration");
    let at = ts("2026-05-01T00:00:00Z");
    assert!(store.enqueue(&job, at).unwrap().created);
    let claimed = store.claim("w", super::jobs::LEASE, at).unwrap().unwrap();
    assert_eq!(claimed.job.state, JobState::Running);
    let page = store.list_jobs(&JobFilter::default(), 10, None).unwrap();
    assert_eq!(page.jobs.len(), 1);

    // Version 5: a claim keeps what it charged (claude is exhausted, so
    // the job counts against its second provider).
    let limits = agentgate_store::ClaimLimits {
        max_running: 10,
        exhausted: vec![("claude".to_owned(), ts("2026-05-02T00:00:00Z"))],
        ..agentgate_store::ClaimLimits::default()
    };
    let second = super::jobs::new_job("second_after_migration");
    store.enqueue(&second, at).unwrap();
    let agentgate_store::NextClaim::Claimed(claimed) = store
        .claim_next("w", super::jobs::LEASE, at, &limits)
        .unwrap()
    else {
        panic!("the second job is claimed")
    };
    assert_eq!(claimed.job.job_id, second.job_id);
    assert_eq!(claimed.job.charged_provider.as_deref(), Some("codex"));

    // Version 6: worker presence.
    use agentgate_store::WorkerRegistry as _;
    assert!(store.list_workers().unwrap().is_empty());
    assert_eq!(store.prune_workers(at).unwrap(), 0);
}
