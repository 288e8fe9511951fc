//! A running run's owner: stored at insert, and a run whose owner is gone
//! reads as abandoned in every read (`get_run`, `find_run`, `list_runs`).

use agentgate_store::{OwnerState, RunOwner, RunStatus, effective_status};
use rusqlite::Connection;

use super::support::{Backend, TestStore, run_record, success_envelope, with_pg_client};

crate::on_both_backends!(
    a_run_is_owned_by_the_process_that_inserted_it_and_reads_running,
    a_running_run_whose_owner_died_reads_abandoned_everywhere,
    a_reused_pid_with_another_start_time_reads_abandoned,
    a_run_owned_on_another_host_reads_running,
    a_finished_run_keeps_its_status_when_its_owner_is_gone,
);

/// The pid of a process that has exited (and been reaped).
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Rewrites the stored owner columns of `run_id`, as another process's
/// insert would have written them.
fn set_owner(store: &TestStore, run_id: &str, pid: u32, ticks: Option<u64>, host: &str) {
    let changed = match store.backend {
        Backend::Sqlite => Connection::open(&store.location)
            .unwrap()
            .execute(
                "UPDATE runs SET owner_pid = ?1, owner_start_ticks = ?2, owner_host = ?3 \
                 WHERE run_id = ?4",
                rusqlite::params![pid, ticks, host, run_id],
            )
            .unwrap() as u64,
        Backend::Postgres => with_pg_client(&store.location, async |client| {
            let ticks = ticks.map(|t| i64::try_from(t).unwrap());
            client
                .execute(
                    "UPDATE runs SET owner_pid = $1, owner_start_ticks = $2, owner_host = $3 \
                     WHERE run_id = $4",
                    &[&i64::from(pid), &ticks, &host, &run_id],
                )
                .await
                .unwrap()
        }),
    };
    assert_eq!(changed, 1);
}

/// The status column as stored.
fn stored_status(store: &TestStore, run_id: &str) -> String {
    match store.backend {
        Backend::Sqlite => Connection::open(&store.location)
            .unwrap()
            .query_row("SELECT status FROM runs WHERE run_id = ?1", [run_id], |r| {
                r.get(0)
            })
            .unwrap(),
        Backend::Postgres => with_pg_client(&store.location, async |client| {
            client
                .query_one("SELECT status FROM runs WHERE run_id = $1", &[&run_id])
                .await
                .unwrap()
                .get(0)
        }),
    }
}

fn status_everywhere(store: &TestStore, run_id: &str) -> [RunStatus; 3] {
    let listed = store
        .list_runs(100, 0)
        .unwrap()
        .runs
        .into_iter()
        .find(|r| r.record.run_id == run_id)
        .unwrap();
    [
        store.get_run(run_id).unwrap().unwrap().summary.status,
        store
            .find_run(&run_id[..run_id.len() - 1])
            .unwrap()
            .unwrap()
            .summary
            .status,
        listed.status,
    ]
}

fn a_run_is_owned_by_the_process_that_inserted_it_and_reads_running(store: &TestStore) {
    store
        .insert_run(&run_record("run_mine", "2026-05-01T12:00:00Z"))
        .unwrap();
    let summary = store.get_run("run_mine").unwrap().unwrap().summary;
    let owner = summary.owner.clone().unwrap();
    assert_eq!(owner, RunOwner::current());
    assert_eq!(owner.pid, std::process::id());
    assert!(owner.start_ticks.is_some(), "{owner:?}");
    assert_eq!(owner.state(), OwnerState::Alive);
    assert_eq!(
        status_everywhere(store, "run_mine"),
        [RunStatus::Running; 3]
    );
}

fn a_running_run_whose_owner_died_reads_abandoned_everywhere(store: &TestStore) {
    store
        .insert_run(&run_record("run_dead", "2026-05-01T12:00:00Z"))
        .unwrap();
    let me = RunOwner::current();
    set_owner(store, "run_dead", dead_pid(), me.start_ticks, &me.host);
    assert_eq!(
        status_everywhere(store, "run_dead"),
        [RunStatus::Abandoned; 3]
    );
    // Stored as it was: reading never writes.
    assert_eq!(stored_status(store, "run_dead"), "running");
}

fn a_reused_pid_with_another_start_time_reads_abandoned(store: &TestStore) {
    store
        .insert_run(&run_record("run_reused", "2026-05-01T12:00:00Z"))
        .unwrap();
    let me = RunOwner::current();
    // This process is alive, but it is not the one that started the run.
    set_owner(
        store,
        "run_reused",
        me.pid,
        me.start_ticks.map(|t| t.saturating_sub(1)),
        &me.host,
    );
    assert_eq!(
        status_everywhere(store, "run_reused"),
        [RunStatus::Abandoned; 3]
    );
}

fn a_run_owned_on_another_host_reads_running(store: &TestStore) {
    store
        .insert_run(&run_record("run_far", "2026-05-01T12:00:00Z"))
        .unwrap();
    set_owner(
        store,
        "run_far",
        dead_pid(),
        Some(1),
        "some-other-host.example",
    );
    assert_eq!(status_everywhere(store, "run_far"), [RunStatus::Running; 3]);
}

fn a_finished_run_keeps_its_status_when_its_owner_is_gone(store: &TestStore) {
    store
        .insert_run(&run_record("run_done", "2026-05-01T12:00:00Z"))
        .unwrap();
    store
        .finish_run("run_done", &success_envelope("run_done"))
        .unwrap();
    let me = RunOwner::current();
    set_owner(store, "run_done", dead_pid(), me.start_ticks, &me.host);
    assert_eq!(
        status_everywhere(store, "run_done"),
        [RunStatus::Succeeded; 3]
    );
}

#[test]
fn only_a_running_run_with_a_gone_owner_is_abandoned() {
    let gone = RunOwner {
        pid: dead_pid(),
        ..RunOwner::current()
    };
    let here = RunOwner::current();
    assert_eq!(
        effective_status(RunStatus::Running, Some(&gone)),
        RunStatus::Abandoned
    );
    assert_eq!(
        effective_status(RunStatus::Failed, Some(&gone)),
        RunStatus::Failed
    );
    assert_eq!(
        effective_status(RunStatus::Running, None),
        RunStatus::Running
    );
    assert_eq!(
        effective_status(RunStatus::Running, Some(&here)),
        RunStatus::Running
    );
}
