//! Worker presence: register, heartbeat, lost, remove, prune; on both
//! backends, and the migrations that add the table.

use std::time::Duration;

use agentgate_store::{
    PG_SCHEMA_VERSION, PgOptions, PgStore, Presence, RunStore, WorkerKind, WorkerRecord,
    WorkerRegistry, WorkerState,
};
use jiff::Timestamp;

use super::support::{TestStore, fresh_pg_database, with_pg_client};

fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn worker(id: &str, started: &str) -> WorkerRecord {
    WorkerRecord {
        worker_id: id.to_owned(),
        kind: WorkerKind::Worker,
        host: "host-a".to_owned(),
        pid: 4242,
        owner: format!("{{\"pid\":4242,\"id\":\"{id}\"}}"),
        providers: vec!["claude".to_owned(), "codex".to_owned()],
        concurrency: Some(3),
        started_at: ts(started),
        last_heartbeat: ts(started),
        heartbeat_every: Duration::from_secs(5),
        state: WorkerState::Running,
        running_jobs: Vec::new(),
    }
}

fn registered_workers_are_listed_as_written(store: &TestStore) {
    let a = worker("w-a", "2026-05-01T10:00:00Z");
    let mut b = worker("w-b", "2026-05-01T10:00:01Z");
    b.kind = WorkerKind::Serve;
    b.providers = Vec::new();
    b.concurrency = None;
    b.running_jobs = vec!["job_1".to_owned()];
    store.register_worker(&b).unwrap();
    store.register_worker(&a).unwrap();
    assert_eq!(store.list_workers().unwrap(), vec![a.clone(), b.clone()]);
    // Registering again replaces the row.
    let mut again = a.clone();
    again.pid = 7;
    store.register_worker(&again).unwrap();
    assert_eq!(store.list_workers().unwrap(), vec![again, b]);
}

fn a_heartbeat_rewrites_state_jobs_and_time(store: &TestStore) {
    store
        .register_worker(&worker("w-a", "2026-05-01T10:00:00Z"))
        .unwrap();
    let jobs = vec!["job_1".to_owned(), "job_2".to_owned()];
    let beat = ts("2026-05-01T10:00:04Z");
    assert!(
        store
            .beat_worker("w-a", WorkerState::Draining, &jobs, beat)
            .unwrap()
    );
    let row = store.list_workers().unwrap().remove(0);
    assert_eq!(row.running_jobs, jobs);
    assert_eq!(row.state, WorkerState::Draining);
    assert_eq!(row.last_heartbeat, beat);
    assert_eq!(row.started_at, ts("2026-05-01T10:00:00Z"));
    // A worker whose row is gone learns it (and registers again).
    assert!(
        !store
            .beat_worker("w-gone", WorkerState::Running, &[], beat)
            .unwrap()
    );
}

fn a_silent_worker_reads_as_lost(store: &TestStore) {
    store
        .register_worker(&worker("w-a", "2026-05-01T10:00:00Z"))
        .unwrap();
    let row = store.list_workers().unwrap().remove(0);
    // Every 5 s, lost after three periods without a heartbeat.
    assert_eq!(row.presence(ts("2026-05-01T10:00:14Z")), Presence::Running);
    assert_eq!(row.presence(ts("2026-05-01T10:00:16Z")), Presence::Lost);
    store
        .beat_worker(
            "w-a",
            WorkerState::Draining,
            &[],
            ts("2026-05-01T10:00:20Z"),
        )
        .unwrap();
    let row = store.list_workers().unwrap().remove(0);
    assert_eq!(row.presence(ts("2026-05-01T10:00:21Z")), Presence::Draining);
}

fn workers_are_removed_and_pruned(store: &TestStore) {
    store
        .register_worker(&worker("w-old", "2026-05-01T09:00:00Z"))
        .unwrap();
    store
        .register_worker(&worker("w-new", "2026-05-01T10:00:00Z"))
        .unwrap();
    store
        .register_worker(&worker("w-stop", "2026-05-01T10:00:00Z"))
        .unwrap();
    assert!(store.remove_worker("w-stop").unwrap());
    assert!(!store.remove_worker("w-stop").unwrap());
    assert_eq!(store.prune_workers(ts("2026-05-01T09:30:00Z")).unwrap(), 1);
    let ids: Vec<String> = store
        .list_workers()
        .unwrap()
        .into_iter()
        .map(|w| w.worker_id)
        .collect();
    assert_eq!(ids, ["w-new"]);
}

crate::on_both_backends!(
    registered_workers_are_listed_as_written,
    a_heartbeat_rewrites_state_jobs_and_time,
    a_silent_worker_reads_as_lost,
    workers_are_removed_and_pruned,
);

#[test]
fn a_version_1_postgres_database_gets_the_claim_rules_and_the_workers_table() {
    let url = fresh_pg_database();
    let dir = tempfile::tempdir().unwrap();
    drop(PgStore::connect(&url, dir.path().join("runs"), &PgOptions::default()).unwrap());
    with_pg_client(&url, async |client| {
        client
            .batch_execute(
                "DROP TRIGGER jobs_wake_one ON jobs; DROP FUNCTION agentgate_jobs_wake_one(); \
                 DROP TABLE idle_executors; \
                 DROP INDEX runs_by_parent; ALTER TABLE runs DROP COLUMN kind, \
                 DROP COLUMN parent_run_id; \
                 DROP TRIGGER jobs_notify ON jobs; DROP FUNCTION agentgate_jobs_notify(); \
                 DROP TABLE workers; \
                 ALTER TABLE jobs DROP COLUMN charged_provider, DROP COLUMN writes_in; \
                 DROP TABLE claim_slots; DROP INDEX jobs_session_queue, jobs_unplanned; \
                 ALTER TABLE jobs DROP COLUMN ignore_quota, DROP COLUMN planned; \
                 DROP TABLE labels; ALTER TABLE sessions DROP COLUMN labels; \
                 ALTER TABLE quota DROP COLUMN windows; \
                 DROP TABLE session_rotations; ALTER TABLE sessions DROP COLUMN context_tokens; \
                 DROP TABLE api_tokens; \
         DROP TABLE webhook_attempts; DROP TABLE webhook_deliveries; \
                 INSERT INTO quota (provider, status, source, updated_at) \
                 VALUES ('codex', 'exhausted', 'error', '2026-01-02T00:00:00Z'); \
                 UPDATE agentgate_schema SET version = 1",
            )
            .await
            .unwrap();
    });
    let store = PgStore::connect(&url, dir.path().join("runs"), &PgOptions::default()).unwrap();
    store
        .register_worker(&worker("w-a", "2026-05-01T10:00:00Z"))
        .unwrap();
    assert_eq!(store.list_workers().unwrap().len(), 1);
    // Version 10: a quota state stored before windows were kept reads with
    // none.
    let quota = store.get_quota("codex").unwrap().unwrap();
    assert!(quota.windows.is_empty(), "{quota:?}");
    let version: i32 = with_pg_client(&url, async |client| {
        client
            .query_one("SELECT version FROM agentgate_schema", &[])
            .await
            .unwrap()
            .get(0)
    });
    assert_eq!(version, PG_SCHEMA_VERSION);
    assert_eq!(PG_SCHEMA_VERSION, 15);
    drop(store);
    super::support::drop_pg_database(&url);
}
