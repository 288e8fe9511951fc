//! `reopen_run`: an ended or abandoned run becomes running again, owned by
//! the calling process, its end cleared; a run whose owner lives is
//! refused; of two reopens at once exactly one wins.

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use agentgate_protocol::ErrorKind;
use agentgate_store::{RunOwner, RunStatus, StoreBackend, StoreError};
use rusqlite::Connection;

use super::support::{
    Backend, PgLock, TestResult, TestStore, failure_envelope, run_record, success_envelope,
    with_pg_client,
};

crate::on_both_backends_fallible!(
    an_ended_run_is_reopened_running_owned_by_this_process_with_its_end_cleared,
    an_abandoned_run_is_reopened,
    a_run_whose_owner_lives_or_cannot_be_checked_is_refused,
    an_unknown_run_is_not_found,
    of_two_reopens_at_once_exactly_one_wins,
);

/// The pid of a process that has exited and been reaped.
fn dead_pid() -> TestResult<u32> {
    let mut child = std::process::Command::new("true").spawn()?;
    let pid = child.id();
    child.wait()?;
    Ok(pid)
}

/// Rewrites the stored owner of `run_id`, as another process's insert (or
/// reopen) would have written it.
fn set_owner(store: &TestStore, run_id: &str, pid: u32, host: &str) -> TestResult {
    let ticks = RunOwner::current()
        .start_ticks
        .map(i64::try_from)
        .transpose()?;
    let changed = match store.backend {
        Backend::Sqlite => Connection::open(&store.location)?.execute(
            "UPDATE runs SET owner_pid = ?1, owner_start_ticks = ?2, owner_host = ?3 \
             WHERE run_id = ?4",
            rusqlite::params![pid, ticks, host, run_id],
        )? as u64,
        Backend::Postgres => with_pg_client(&store.location, async |client| {
            client
                .execute(
                    "UPDATE runs SET owner_pid = $1, owner_start_ticks = $2, owner_host = $3 \
                     WHERE run_id = $4",
                    &[&i64::from(pid), &ticks, &host, &run_id],
                )
                .await
        })?,
    };
    if changed != 1 {
        return Err(format!("{changed} rows of {run_id} changed").into());
    }
    Ok(())
}

/// A finished run of `status`.
fn finished(store: &TestStore, run_id: &str, status: RunStatus) -> TestResult {
    store.insert_run(&run_record(run_id, "2026-05-01T12:00:00Z"))?;
    let envelope = match status {
        RunStatus::Succeeded => success_envelope(run_id),
        RunStatus::Cancelled => failure_envelope(run_id, ErrorKind::Cancelled, 130),
        _ => failure_envelope(run_id, ErrorKind::Quota, 75),
    };
    store.finish_run(run_id, &envelope)?;
    let read = store.get_run(run_id)?.ok_or("no run")?.summary.status;
    if read != status {
        return Err(format!("{run_id} reads {read}, not {status}").into());
    }
    Ok(())
}

fn an_ended_run_is_reopened_running_owned_by_this_process_with_its_end_cleared(
    store: &TestStore,
) -> TestResult {
    let far = "some-other-host.example";
    for (run_id, status) in [
        ("run_ok", RunStatus::Succeeded),
        ("run_failed", RunStatus::Failed),
        ("run_cancelled", RunStatus::Cancelled),
    ] {
        finished(store, run_id, status)?;
        // Who ran it does not matter once it ended, even on another host.
        set_owner(store, run_id, dead_pid()?, far)?;
        let before = store.get_run(run_id)?.ok_or("no run")?;

        store.reopen_run(run_id)?;

        let after = store.get_run(run_id)?.ok_or("no run")?;
        let summary = &after.summary;
        assert_eq!(summary.status, RunStatus::Running, "{run_id}");
        assert_eq!(summary.owner, Some(RunOwner::current()), "{run_id}");
        assert_eq!(
            (
                summary.ended_at,
                summary.duration_ms,
                summary.exit_code,
                summary.error_type,
                &summary.error,
                &summary.usage,
                &after.envelope
            ),
            (None, None, None, None, &None, &None, &None),
            "{run_id}"
        );
        assert_eq!(summary.record, before.summary.record, "{run_id}");
        assert_eq!(after.attempts, before.attempts, "{run_id}");

        // It runs, owned by a live process: it is not reopened twice.
        let err = store.reopen_run(run_id).err().ok_or("reopened twice")?;
        assert!(
            matches!(&err, StoreError::RunStillRunning { run_id: id, .. } if id == run_id),
            "{err:?}"
        );
        // And it ends again like any run.
        store.finish_run(run_id, &success_envelope(run_id))?;
        let ended = store.get_run(run_id)?.ok_or("no run")?;
        assert_eq!(ended.summary.status, RunStatus::Succeeded);
        assert_eq!(ended.envelope, Some(success_envelope(run_id)));
    }
    Ok(())
}

fn an_abandoned_run_is_reopened(store: &TestStore) -> TestResult {
    store.insert_run(&run_record("run_dead", "2026-05-01T12:00:00Z"))?;
    let me = RunOwner::current();
    set_owner(store, "run_dead", dead_pid()?, &me.host)?;
    let read = store.get_run("run_dead")?.ok_or("no run")?.summary;
    assert_eq!(read.status, RunStatus::Abandoned);

    store.reopen_run("run_dead")?;

    let listed = store
        .list_runs(10, 0)?
        .runs
        .into_iter()
        .find(|r| r.record.run_id == "run_dead")
        .ok_or("not listed")?;
    assert_eq!(listed.status, RunStatus::Running);
    assert_eq!(listed.owner, Some(me));
    Ok(())
}

fn a_run_whose_owner_lives_or_cannot_be_checked_is_refused(store: &TestStore) -> TestResult {
    let me = RunOwner::current();
    store.insert_run(&run_record("run_live", "2026-05-01T12:00:00Z"))?;
    let before = store.get_run("run_live")?;
    let err = store.reopen_run("run_live").err().ok_or("reopened")?;
    match &err {
        StoreError::RunStillRunning { run_id, owner } => {
            assert_eq!(run_id, "run_live");
            assert_eq!(owner, &format!("pid {} on host {}", me.pid, me.host));
        }
        other => return Err(format!("expected RunStillRunning, got {other:?}").into()),
    }
    let message = err.to_string();
    assert!(
        message.contains("run_live") && message.contains(&format!("pid {}", me.pid)),
        "{message}"
    );
    assert_eq!(store.get_run("run_live")?, before, "nothing written");

    // On another host: its process cannot be checked, so it may live.
    store.insert_run(&run_record("run_far", "2026-05-01T12:00:00Z"))?;
    set_owner(store, "run_far", dead_pid()?, "some-other-host.example")?;
    let err = store.reopen_run("run_far").err().ok_or("reopened")?;
    match &err {
        StoreError::RunStillRunning { owner, .. } => {
            assert!(owner.contains("some-other-host.example"), "{owner}");
        }
        other => return Err(format!("expected RunStillRunning, got {other:?}").into()),
    }
    Ok(())
}

fn an_unknown_run_is_not_found(store: &TestStore) -> TestResult {
    let err = store.reopen_run("run_ghost").err().ok_or("reopened")?;
    assert!(
        matches!(&err, StoreError::RunNotFound { run_id, op: "reopen run", .. }
            if run_id == "run_ghost"),
        "{err:?}"
    );
    let err = store.reopen_run("../escape").err().ok_or("reopened")?;
    assert!(matches!(err, StoreError::InvalidRunId { .. }), "{err:?}");
    Ok(())
}

/// Two handles (two processes would each have one) reopen the same run at
/// once, ended or abandoned, round after round.
fn of_two_reopens_at_once_exactly_one_wins(store: &TestStore) -> TestResult {
    let other = store.reopen();
    let host = RunOwner::current().host;
    for round in 0..10 {
        let run_id = format!("run_race_{round}");
        if round % 2 == 0 {
            finished(store, &run_id, RunStatus::Failed)?;
        } else {
            store.insert_run(&run_record(&run_id, "2026-05-01T12:00:00Z"))?;
            set_owner(store, &run_id, dead_pid()?, &host)?;
        }
        let results = race(&[Arc::clone(&store.store), Arc::clone(&other)], &run_id);
        assert_one_winner(&results, &run_id)?;
    }
    Ok(())
}

/// Each handle reopens `run_id` on its own thread, all at once.
fn race(handles: &[Arc<dyn StoreBackend>], run_id: &str) -> Vec<Result<(), StoreError>> {
    let barrier = Barrier::new(handles.len());
    std::thread::scope(|scope| {
        let threads: Vec<_> = handles
            .iter()
            .map(|handle| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    handle.reopen_run(run_id)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| {
                thread.join().unwrap_or_else(|_| {
                    Err(StoreError::RunChangedWhileReopening {
                        run_id: "a reopen thread panicked".to_owned(),
                    })
                })
            })
            .collect()
    })
}

/// Exactly one `Ok`; the others lost to it and say so.
fn assert_one_winner(results: &[Result<(), StoreError>], run_id: &str) -> TestResult {
    let winners = results.iter().filter(|r| r.is_ok()).count();
    if winners != 1 {
        return Err(format!("{winners} reopens of {run_id} won: {results:?}").into());
    }
    for result in results {
        if let Err(err) = result
            && !matches!(
                err,
                StoreError::RunStillRunning { .. } | StoreError::RunChangedWhileReopening { .. }
            )
        {
            return Err(format!("a losing reopen of {run_id} failed otherwise: {err:?}").into());
        }
    }
    Ok(())
}

/// PostgreSQL reads without a lock, so both reopens can read the ended run
/// before either writes: the row is held locked until both have read it
/// and wait on their UPDATE. The swap lets only the first through; the
/// second finds the run running, owned by a live process, and changes
/// nothing.
#[test]
fn a_reopen_that_read_before_another_wrote_changes_nothing_on_postgres() {
    let store = TestStore::new(Backend::Postgres);
    finished(&store, "run_x", RunStatus::Failed).unwrap();
    let other = store.reopen();
    let lock = PgLock::hold(
        &store.location,
        "SELECT 1 FROM runs WHERE run_id = 'run_x' FOR UPDATE",
    );

    let handles = [Arc::clone(&store.store), other];
    let racers = std::thread::spawn(move || race(&handles, "run_x"));
    // Both have read the run and wait for the row on their UPDATE.
    let start = Instant::now();
    loop {
        let waiting: i64 = with_pg_client(&store.location, async |client| {
            client
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity \
                     WHERE datname = current_database() AND wait_event_type = 'Lock' \
                     AND query LIKE 'UPDATE runs%'",
                    &[],
                )
                .await
                .unwrap()
                .get(0)
        });
        if waiting == 2 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the two reopens never both waited on their UPDATE ({waiting} did)"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    lock.release();
    let results = racers.join().unwrap();

    assert_one_winner(&results, "run_x").unwrap();
    let loser = results.iter().find_map(|r| r.as_ref().err()).unwrap();
    assert!(
        matches!(loser, StoreError::RunStillRunning { .. }),
        "{loser:?}"
    );
    let run = store.get_run("run_x").unwrap().unwrap().summary;
    assert_eq!(run.status, RunStatus::Running);
    assert_eq!(run.owner, Some(RunOwner::current()));
}
