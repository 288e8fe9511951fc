//! Version 8 (workflow runs): the `runs` table is rebuilt for its wider
//! kind CHECK, keeping every row, column, index and constraint, and every
//! attempt (which a cascading drop would have deleted); PostgreSQL's
//! version 6 replaces the constraint.

use agentgate_store::{
    PG_SCHEMA_VERSION, PgOptions, PgStore, RunKind, RunStatus, RunStore, SCHEMA_VERSION, Store,
};
use rusqlite::Connection;
use rusqlite::types::Value;

use super::migrations::{V1_SCHEMA, V2_V3_SCHEMA};
use super::support::{fresh_pg_database, run_record, with_pg_client};

/// What versions 4 to 7 added, as released: a fixture, kept verbatim.
const V4_TO_V7_SCHEMA: &str = "
CREATE TABLE jobs (
    seq              INTEGER PRIMARY KEY,
    job_id           TEXT NOT NULL UNIQUE,
    request          TEXT NOT NULL CHECK (json_valid(request)),
    state            TEXT NOT NULL
                     CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled',
                                      'abandoned')),
    priority         INTEGER NOT NULL DEFAULT 0,
    created_at       TEXT NOT NULL,
    not_before       TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    idempotency_key  TEXT UNIQUE,
    providers        TEXT NOT NULL CHECK (json_valid(providers)),
    session_name     TEXT,
    lease_owner      TEXT,
    lease_token      TEXT,
    lease_expires_at TEXT,
    waiting_for      TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    envelope         TEXT,
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
ALTER TABLE jobs ADD COLUMN charged_provider TEXT;
ALTER TABLE jobs ADD COLUMN writes_in TEXT;
CREATE TABLE workers (
    worker_id      TEXT PRIMARY KEY NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('worker', 'serve')),
    host           TEXT NOT NULL,
    pid            INTEGER NOT NULL,
    owner          TEXT NOT NULL,
    providers      TEXT NOT NULL CHECK (json_valid(providers)),
    concurrency    INTEGER,
    started_at     TEXT NOT NULL,
    last_heartbeat TEXT NOT NULL,
    heartbeat_ms   INTEGER NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('running', 'draining')),
    running_jobs   TEXT NOT NULL CHECK (json_valid(running_jobs))
) STRICT;
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'tool'));
ALTER TABLE runs ADD COLUMN parent_run_id TEXT;
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
PRAGMA user_version = 7;
";

/// Rows a version 7 store holds: a finished agent run with every column
/// set, the tool run it called, attempts of both, a job.
const V7_ROWS: &str = "
UPDATE runs SET status = 'failed', ended_at = '2026-01-02T03:04:09.000000000Z',
    provider = 'claude', final_model = 'opus', session_id = 'sess-1', duration_ms = 4000,
    exit_code = 1, error_type = 'quota', error = 'limit', input_tokens = 10,
    output_tokens = 2, cache_read_input_tokens = 3, cache_creation_input_tokens = 4,
    reasoning_tokens = 5, total_tokens = 12, cost_usd = 0.5, context_tokens = 12,
    tokens_estimated = 0, envelope = '{}', owner_pid = 4242, owner_start_ticks = 99,
    owner_boot_id = 'boot-a', owner_host = 'box'
    WHERE run_id = 'run_old';
INSERT INTO runs (run_id, status, started_at, providers, prompt_bytes, kind, parent_run_id)
    VALUES ('run_tool', 'succeeded', '2026-01-02T03:04:06.000000000Z', '[\"scanner\"]', 0,
            'tool', 'run_old');
INSERT INTO attempts (run_id, n, provider, started_at, exit_code, error_type)
    VALUES ('run_old', 2, 'codex', '2026-01-02T03:04:07.000000000Z', 1, 'quota');
INSERT INTO attempts (run_id, n, provider, started_at)
    VALUES ('run_tool', 1, 'scanner', '2026-01-02T03:04:06.000000000Z');
INSERT INTO jobs (job_id, request, state, created_at, not_before, providers)
    VALUES ('job_old', '{}', 'queued', '2026-01-02T00:00:00.000000000Z',
            '2026-01-02T00:00:00.000000000Z', '[\"claude\"]');
";

/// Every row `sql` returns, every column as stored.
fn rows(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<Vec<Value>>> {
    let mut stmt = conn.prepare(sql)?;
    let width = stmt.column_count();
    stmt.query_map([], |row| (0..width).map(|i| row.get(i)).collect())?
        .collect()
}

/// The table's shape and contents as SQLite reports them: its columns
/// (name, type, not null, default, primary key), its indexes (name,
/// unique, partial) with their columns, and its rows.
/// The shape of `jobs` without what version 9 added (its claim columns
/// and indexes, see `crate::claim_next`): read inside a transaction that
/// drops them and is rolled back.
fn jobs_without_v9(conn: &Connection) -> Vec<Vec<Vec<Value>>> {
    conn.execute_batch(
        "BEGIN; DROP INDEX jobs_session_queue; DROP INDEX jobs_unplanned; \
         ALTER TABLE jobs DROP COLUMN ignore_quota; ALTER TABLE jobs DROP COLUMN planned;",
    )
    .unwrap();
    let shape = table(conn, "jobs").unwrap();
    conn.execute_batch("ROLLBACK").unwrap();
    shape
}

fn table(conn: &Connection, name: &str) -> rusqlite::Result<Vec<Vec<Vec<Value>>>> {
    let mut all = vec![
        rows(conn, &format!("SELECT * FROM pragma_table_xinfo('{name}')"))?,
        rows(
            conn,
            &format!(
                "SELECT name, \"unique\", partial FROM pragma_index_list('{name}') \
                 ORDER BY name"
            ),
        )?,
    ];
    for index in rows(
        conn,
        &format!("SELECT name FROM pragma_index_list('{name}') ORDER BY name"),
    )? {
        let Some(Value::Text(index)) = index.first() else {
            continue;
        };
        all.push(rows(
            conn,
            &format!("SELECT * FROM pragma_index_xinfo('{index}')"),
        )?);
    }
    all.push(rows(conn, &format!("SELECT * FROM {name} ORDER BY 1, 2"))?);
    Ok(all)
}

/// Inserts a run of `kind` behind the store's back; whether the database
/// took it.
fn raw_insert(conn: &Connection, run_id: &str, kind: &str) -> bool {
    conn.execute(
        "INSERT INTO runs (run_id, status, started_at, providers, prompt_bytes, kind) \
         VALUES (?1, 'running', '2026-05-01T00:00:00.000000000Z', '[]', 0, ?2)",
        [run_id, kind],
    )
    .is_ok()
}

#[test]
fn a_version_7_database_takes_workflow_runs_and_keeps_every_row_index_and_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(V1_SCHEMA).unwrap();
    conn.execute_batch(V2_V3_SCHEMA).unwrap();
    conn.execute_batch(V4_TO_V7_SCHEMA).unwrap();
    conn.execute_batch(V7_ROWS).unwrap();
    assert!(
        !raw_insert(&conn, "run_early", "workflow"),
        "the fixture is a version 7 store: it refuses workflow runs"
    );
    let runs_before = table(&conn, "runs").unwrap();
    let attempts_before = table(&conn, "attempts").unwrap();
    let jobs_before = table(&conn, "jobs").unwrap();
    let indexes: Vec<&Value> = runs_before[1].iter().map(|index| &index[0]).collect();
    for name in ["runs_by_start", "runs_by_parent", "sqlite_autoindex_runs_1"] {
        assert!(
            indexes.contains(&&Value::Text(name.to_owned())),
            "{name} in {indexes:?}"
        );
    }
    assert_eq!(attempts_before.last().unwrap().len(), 3);
    drop(conn);

    let store = Store::open(&path).unwrap();

    let conn = Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!((version, SCHEMA_VERSION), (16, 16));
    // Version 12's additions for usage reports (two generated columns and
    // their index) aside, `runs` is the table of version 7, every row kept.
    conn.execute_batch(
        "DROP INDEX runs_usage; DROP INDEX runs_spend_agent; DROP INDEX runs_spend_chain; DROP INDEX runs_spend_session; ALTER TABLE runs DROP COLUMN agent; \
         ALTER TABLE runs DROP COLUMN chain;",
    )
    .unwrap();
    assert_eq!(table(&conn, "runs").unwrap(), runs_before);
    assert_eq!(table(&conn, "attempts").unwrap(), attempts_before);
    assert_eq!(jobs_without_v9(&conn), jobs_before);
    assert!(
        rows(&conn, "PRAGMA foreign_key_check").unwrap().is_empty(),
        "attempts still point at their runs"
    );

    // The store reads the old runs as before and takes a workflow run.
    let old = store.get_run("run_old").unwrap().unwrap();
    assert_eq!(old.summary.status, RunStatus::Failed);
    assert_eq!(old.attempts.len(), 2);
    let tool = store.get_run("run_tool").unwrap().unwrap().summary.record;
    assert_eq!(tool.kind, RunKind::Tool);
    assert_eq!(tool.parent_run_id.as_deref(), Some("run_old"));
    let flow = agentgate_store::RunRecord {
        kind: RunKind::Workflow,
        ..run_record("run_flow", "2026-05-01T00:00:00Z")
    };
    store.insert_run(&flow).unwrap();
    let read = store.get_run("run_flow").unwrap().unwrap().summary.record;
    assert_eq!(read.kind, RunKind::Workflow);
    assert_eq!(store.list_runs(10, 0).unwrap().runs.len(), 3);

    // The rebuilt table keeps its constraints: the kind CHECK (wider, not
    // gone), the status CHECK, STRICT types, the primary key.
    assert!(!raw_insert(&conn, "run_bogus", "bogus"));
    assert!(raw_insert(&conn, "run_raw_flow", "workflow"));
    assert!(!raw_insert(&conn, "run_raw_flow", "agent"), "primary key");
    for bad in [
        "INSERT INTO runs (run_id, status, started_at, providers, prompt_bytes) \
         VALUES ('run_s', 'weird', '2026-05-01T00:00:00Z', '[]', 0)",
        "INSERT INTO runs (run_id, status, started_at, providers, prompt_bytes) \
         VALUES ('run_t', 'running', '2026-05-01T00:00:00Z', '[]', 'many')",
    ] {
        assert!(conn.execute(bad, []).is_err(), "{bad}");
    }
    // Deleting a run still deletes its attempts: foreign keys are on again
    // for the store's connection, and the reference survived the rebuild.
    drop(conn);
    drop(store);
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "foreign_keys", true).unwrap();
    conn.execute("DELETE FROM runs WHERE run_id = 'run_tool'", [])
        .unwrap();
    let left: i64 = conn
        .query_row(
            "SELECT count(*) FROM attempts WHERE run_id = 'run_tool'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
}

#[test]
fn a_version_5_postgres_database_takes_workflow_runs_after_migrating() {
    let url = fresh_pg_database();
    let dir = tempfile::tempdir().unwrap();
    drop(PgStore::connect(&url, dir.path().join("runs"), &PgOptions::default()).unwrap());
    // Back to version 5: its CHECK, and a tool run stored under it.
    let insert = |run_id: &'static str, kind: &'static str| {
        let url = url.clone();
        with_pg_client(&url, async move |client| {
            client
                .execute(
                    "INSERT INTO runs (run_id, status, started_at, providers, prompt_bytes, \
                     kind) VALUES ($1, 'succeeded', now(), '[]', 0, $2)",
                    &[&run_id, &kind],
                )
                .await
                .map_err(|e| match e.as_db_error() {
                    Some(db) => format!("{} ({:?})", db.message(), db.constraint()),
                    None => e.to_string(),
                })
        })
    };
    with_pg_client(&url, async |client| {
        client
            .batch_execute(
                "DROP TRIGGER jobs_wake_one ON jobs; DROP FUNCTION agentgate_jobs_wake_one(); \
                 DROP TABLE idle_executors; \
                 ALTER TABLE runs DROP CONSTRAINT runs_kind_check; \
                 ALTER TABLE runs ADD CONSTRAINT runs_kind_check \
                 CHECK (kind IN ('agent', 'tool')); \
                 DROP TABLE claim_slots; DROP INDEX jobs_session_queue, jobs_unplanned; \
                 ALTER TABLE jobs DROP COLUMN ignore_quota, DROP COLUMN planned; \
                 DROP TABLE labels; ALTER TABLE sessions DROP COLUMN labels; \
                 ALTER TABLE quota DROP COLUMN windows; \
                 DROP TABLE session_rotations; ALTER TABLE sessions DROP COLUMN context_tokens; \
                 DROP TABLE api_tokens; \
                 DROP TABLE webhook_attempts; DROP TABLE webhook_deliveries; \
                 UPDATE agentgate_schema SET version = 5",
            )
            .await
            .unwrap();
    });
    insert("run_tool", "tool").unwrap();
    let refused = insert("run_early", "workflow").unwrap_err();
    assert!(refused.contains("runs_kind_check"), "{refused}");

    let store = PgStore::connect(&url, dir.path().join("runs"), &PgOptions::default()).unwrap();
    let (version, checks): (i32, i64) = with_pg_client(&url, async |client| {
        let version = client
            .query_one("SELECT version FROM agentgate_schema", &[])
            .await
            .unwrap()
            .get(0);
        let checks = client
            .query_one(
                "SELECT count(*) FROM pg_constraint \
                 WHERE conrelid = 'runs'::regclass AND contype = 'c' \
                 AND pg_get_constraintdef(oid) LIKE '%kind%'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        (version, checks)
    });
    assert_eq!((version, PG_SCHEMA_VERSION), (15, 15));
    assert_eq!(checks, 1, "the old CHECK is replaced, not kept beside");

    let flow = agentgate_store::RunRecord {
        kind: RunKind::Workflow,
        ..run_record("run_flow", "2026-05-01T00:00:00Z")
    };
    store.insert_run(&flow).unwrap();
    assert_eq!(
        store
            .get_run("run_flow")
            .unwrap()
            .unwrap()
            .summary
            .record
            .kind,
        RunKind::Workflow
    );
    assert_eq!(
        store
            .get_run("run_tool")
            .unwrap()
            .unwrap()
            .summary
            .record
            .kind,
        RunKind::Tool
    );
    let refused = insert("run_bogus", "bogus").unwrap_err();
    assert!(refused.contains("runs_kind_check"), "{refused}");
}
