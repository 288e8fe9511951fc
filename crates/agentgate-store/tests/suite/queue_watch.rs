//! Watching the queue: the notices PostgreSQL's trigger sends and the
//! listener forwards, its reconnection after its backend is killed, and
//! SQLite's absence of a watcher.

use std::time::Duration;

use agentgate_store::{
    FinalState, JOBS_CHANNEL, JobOutcome, QueueChange, QueueNotice, QueueWatcher,
};

use super::jobs::{LEASE, new_job};
use super::support::{Backend, TestStore, ts, with_pg_client};

/// The longest a test waits for one notice.
const WAIT: Duration = Duration::from_secs(20);

/// The next notice; fails after [`WAIT`].
fn next(watcher: &QueueWatcher) -> QueueNotice {
    match watcher.recv_timeout(WAIT) {
        Ok(Some(notice)) => notice,
        other => panic!("no notice within {WAIT:?}: {other:?}"),
    }
}

fn change(change: QueueChange, job_id: &str) -> QueueNotice {
    QueueNotice::Change {
        change,
        job_id: job_id.to_owned(),
    }
}

/// The backend pids of the database's connections that listen.
fn listeners(url: &str) -> Vec<i32> {
    with_pg_client(url, async |client| {
        client
            .query(
                "SELECT pid FROM pg_stat_activity \
                 WHERE datname = current_database() AND query = $1",
                &[&format!("LISTEN {JOBS_CHANNEL}")],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect()
    })
}

#[test]
fn changes_by_another_handle_are_notified_in_order() {
    let store = TestStore::new(Backend::Postgres);
    let watcher = store.watch_queue().unwrap().expect("PostgreSQL watches");
    // Another process's handle (its own pool) makes every change.
    let other = store.reopen();
    let at = ts("2026-05-01T12:00:00Z");

    other.enqueue(&new_job("j1"), at).unwrap();
    assert_eq!(next(&watcher), change(QueueChange::Queued, "j1"));
    // A claim and a renewal notify nothing: the next notice is the cancel.
    let claimed = other.claim("w1", LEASE, at).unwrap().unwrap();
    other.heartbeat("j1", &claimed.token, LEASE, at).unwrap();
    other.cancel("j1", None, at).unwrap();
    assert_eq!(next(&watcher), change(QueueChange::CancelRequested, "j1"));
    let cancelled = JobOutcome {
        state: FinalState::Cancelled,
        envelope: None,
        error: None,
    };
    other.finish("j1", &claimed.token, &cancelled, at).unwrap();
    assert_eq!(next(&watcher), change(QueueChange::Ended, "j1"));

    // Released: back in the queue.
    other.enqueue(&new_job("j2"), at).unwrap();
    assert_eq!(next(&watcher), change(QueueChange::Queued, "j2"));
    let claimed = other.claim("w1", LEASE, at).unwrap().unwrap();
    other.release("j2", &claimed.token, at, None, at).unwrap();
    assert_eq!(next(&watcher), change(QueueChange::Queued, "j2"));

    // A queued job cancelled ends at once.
    other.cancel("j2", None, at).unwrap();
    assert_eq!(next(&watcher), change(QueueChange::Ended, "j2"));
    assert_eq!(watcher.recv_timeout(Duration::from_millis(200)), Ok(None));
}

#[test]
fn the_watcher_listens_again_after_its_connection_is_killed() {
    let store = TestStore::new(Backend::Postgres);
    let watcher = store.watch_queue().unwrap().expect("PostgreSQL watches");
    let before = listeners(&store.location);
    assert_eq!(before.len(), 1, "one listening connection: {before:?}");

    with_pg_client(&store.location, async |client| {
        client
            .execute("SELECT pg_terminate_backend($1)", &[&before[0]])
            .await
            .unwrap();
    });
    assert!(
        matches!(next(&watcher), QueueNotice::Interrupted { .. }),
        "the lost connection is reported"
    );
    assert_eq!(
        next(&watcher),
        QueueNotice::Missed,
        "listening again: what changed meanwhile must be read again"
    );
    let after = listeners(&store.location);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(after, before, "a new connection");

    store
        .reopen()
        .enqueue(&new_job("j1"), ts("2026-05-01T12:00:00Z"))
        .unwrap();
    assert_eq!(next(&watcher), change(QueueChange::Queued, "j1"));

    // Dropping the watcher closes its connection (bounded: 200 x 50 ms).
    drop(watcher);
    let mut closed = false;
    for _ in 0..200 {
        if listeners(&store.location).is_empty() {
            closed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(closed, "the listening connection outlived its watcher");
}

#[test]
fn sqlite_has_no_watcher() {
    let store = TestStore::new(Backend::Sqlite);
    assert!(store.watch_queue().unwrap().is_none());
}
