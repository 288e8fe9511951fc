//! One wake per change (PostgreSQL, schema v8): with idle executors
//! registered, a job queued or ended wakes exactly one of them (the one
//! waiting longest, never the ended job's holder, and for a job queued
//! one that takes its providers), and K jobs queued at once wake K
//! distinct ones.
//!
//! "Exactly one" is proven without waiting for silence: after each change
//! the test asks for a cancel of a running job, which every executor's
//! watcher hears on the broadcast. Notifications reach a listener in
//! commit order, so an executor that was not woken hears the cancel as its
//! next notice, and the woken one hears its wake first.

use std::sync::{Arc, Barrier};
use std::time::Duration;

use agentgate_store::{
    FinalState, JobOutcome, QueueChange, QueueNotice, QueueWatcher, WAKE_CHANNEL_PREFIX,
    WorkerKind, WorkerRecord, WorkerState,
};

use super::jobs::{LEASE, new_job};
use super::support::{Backend, TestStore, ts, with_pg_client};

/// The longest a test waits for one notice.
const WAIT: Duration = Duration::from_secs(20);

fn next(watcher: &QueueWatcher) -> QueueNotice {
    match watcher.recv_timeout(WAIT) {
        Ok(Some(notice)) => notice,
        other => panic!("no notice within {WAIT:?}: {other:?}"),
    }
}

fn cancel_of(job_id: &str) -> QueueNotice {
    QueueNotice::Change {
        change: QueueChange::CancelRequested,
        job_id: job_id.to_owned(),
    }
}

/// The channels on the idle list, oldest first.
fn idle_list(url: &str) -> Vec<String> {
    with_pg_client(url, async |client| {
        client
            .query(
                "SELECT channel FROM idle_executors ORDER BY since, channel",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect()
    })
}

/// Three executors' watchers, each with its own wake channel.
struct Executors {
    watchers: Vec<QueueWatcher>,
}

impl Executors {
    fn watch(store: &TestStore, count: usize) -> Executors {
        let watchers: Vec<QueueWatcher> = (0..count)
            .map(|_| match store.watch_queue_for_executor() {
                Ok(Some(watcher)) => watcher,
                other => panic!("PostgreSQL watches: {other:?}"),
            })
            .collect();
        Executors { watchers }
    }

    fn channel(&self, i: usize) -> &str {
        match self.watchers[i].wake_channel() {
            Some(channel) => channel,
            None => panic!("an executor's watcher has a wake channel"),
        }
    }

    /// Asks a cancel of `sentinel` (running) and checks who was woken
    /// before it: exactly the executors `woken`.
    fn assert_woken(&self, store: &TestStore, sentinel: &str, woken: &[usize]) {
        store
            .cancel(sentinel, None, ts("2026-05-01T12:00:00Z"))
            .unwrap();
        for (i, watcher) in self.watchers.iter().enumerate() {
            if woken.contains(&i) {
                assert_eq!(next(watcher), QueueNotice::Woken, "executor {i}");
            }
            assert_eq!(next(watcher), cancel_of(sentinel), "executor {i}");
        }
    }
}

/// Running jobs of owner `w0`, queued and claimed before any executor is
/// idle, whose cancels serve as sentinels.
fn sentinels(store: &TestStore, count: usize) -> Vec<String> {
    let at = ts("2026-05-01T12:00:00Z");
    (0..count)
        .map(|i| {
            let id = format!("sentinel-{i}");
            store.enqueue(&new_job(&id), at).unwrap();
            let claimed = store.claim_job(&id, "w0", LEASE, at).unwrap().unwrap();
            claimed.job.job_id
        })
        .collect()
}

#[test]
fn a_job_queued_or_ended_wakes_one_idle_executor_not_its_holder() {
    let store = TestStore::new(Backend::Postgres);
    let signals = sentinels(&store, 3);
    let executors = Executors::watch(&store, 3);
    let at = ts("2026-05-01T12:00:00Z");
    for i in 0..3 {
        assert!(executors.channel(i).starts_with(WAKE_CHANNEL_PREFIX));
        store
            .register_idle(executors.channel(i), &format!("w{}", i + 1), None, at)
            .unwrap();
    }
    // Registering twice keeps one row, in its place.
    store
        .register_idle(executors.channel(0), "w1", None, at)
        .unwrap();
    let all: Vec<String> = (0..3).map(|i| executors.channel(i).to_owned()).collect();
    assert_eq!(idle_list(&store.location), all);

    // Queued by another process: the oldest idle executor, only.
    store.reopen().enqueue(&new_job("j1"), at).unwrap();
    assert_eq!(idle_list(&store.location), all[1..].to_vec());
    executors.assert_woken(&store, &signals[0], &[0]);

    // Executor 0 is idle again (now the newest); executor 1 (w2) claims
    // and ends j1: the oldest idle one, w2 itself, is passed over.
    store
        .register_idle(executors.channel(0), "w1", None, at)
        .unwrap();
    let claimed = store.claim_job("j1", "w2", LEASE, at).unwrap().unwrap();
    let done = JobOutcome {
        state: FinalState::Succeeded,
        envelope: None,
        error: None,
    };
    store.finish("j1", &claimed.token, &done, at).unwrap();
    assert_eq!(
        idle_list(&store.location),
        vec![all[1].clone(), all[0].clone()]
    );
    executors.assert_woken(&store, &signals[1], &[2]);

    // Executor 1 is full: off the list. The next job queued wakes
    // executor 0, and its claim wakes nobody.
    store.unregister_idle(executors.channel(1)).unwrap();
    store.enqueue(&new_job("j2"), at).unwrap();
    store.claim_job("j2", "w1", LEASE, at).unwrap().unwrap();
    assert!(idle_list(&store.location).is_empty());
    executors.assert_woken(&store, &signals[2], &[0]);
}

#[test]
fn k_jobs_queued_at_once_wake_k_distinct_executors() {
    const K: usize = 3;
    let store = TestStore::new(Backend::Postgres);
    let signals = sentinels(&store, 2);
    let executors = Executors::watch(&store, K);
    let at = ts("2026-05-01T12:00:00Z");
    for i in 0..K {
        store
            .register_idle(executors.channel(i), &format!("w{i}"), None, at)
            .unwrap();
    }
    // K processes enqueue at once: each commit takes a row the others do
    // not hold.
    let start = Arc::new(Barrier::new(K));
    let threads: Vec<_> = (0..K)
        .map(|i| {
            let (handle, start) = (store.reopen(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                handle.enqueue(&new_job(&format!("j{i}")), at).unwrap();
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert!(idle_list(&store.location).is_empty());
    executors.assert_woken(&store, &signals[0], &[0, 1, 2]);

    // With nobody idle, a job queued wakes nobody.
    store.enqueue(&new_job("j-last"), at).unwrap();
    executors.assert_woken(&store, &signals[1], &[]);
}

#[test]
fn registering_drops_the_rows_of_executors_whose_presence_was_lost() {
    let store = TestStore::new(Backend::Postgres);
    let executors = Executors::watch(&store, 3);
    let at = ts("2026-05-01T12:00:00Z");
    let worker = |id: &str, owner: &str, last: &str| WorkerRecord {
        worker_id: id.to_owned(),
        kind: WorkerKind::Worker,
        host: "h".to_owned(),
        pid: 1,
        owner: owner.to_owned(),
        providers: Vec::new(),
        concurrency: None,
        started_at: ts("2026-05-01T11:00:00Z"),
        last_heartbeat: ts(last),
        heartbeat_every: Duration::from_secs(2),
        state: WorkerState::Running,
        running_jobs: Vec::new(),
    };
    // Lost: silent for more than 3 beats of 2 s; alive: 1 s ago.
    store
        .register_worker(&worker("dead", "w-dead", "2026-05-01T11:59:50Z"))
        .unwrap();
    store
        .register_worker(&worker("alive", "w-alive", "2026-05-01T11:59:59Z"))
        .unwrap();
    store
        .register_idle(executors.channel(0), "w-dead", None, at)
        .unwrap();
    store
        .register_idle(executors.channel(1), "w-alive", None, at)
        .unwrap();
    // An executor without a presence row (this test's) is kept too.
    store
        .register_idle(executors.channel(2), "w-none", None, at)
        .unwrap();
    let left = idle_list(&store.location);
    assert_eq!(
        left,
        vec![
            executors.channel(1).to_owned(),
            executors.channel(2).to_owned()
        ]
    );
}

#[test]
fn a_name_that_is_not_a_wake_channel_is_refused() {
    let store = TestStore::new(Backend::Postgres);
    let at = ts("2026-05-01T12:00:00Z");
    assert!(
        store
            .register_idle("agentgate_jobs", "w1", None, at)
            .is_err()
    );
    assert!(idle_list(&store.location).is_empty());
}

#[test]
fn sqlite_has_no_wake_channels() {
    let store = TestStore::new(Backend::Sqlite);
    assert!(store.watch_queue_for_executor().unwrap().is_none());
    let at = ts("2026-05-01T12:00:00Z");
    store
        .register_idle("agentgate_wake_00", "w1", None, at)
        .expect("nothing to do");
    store.unregister_idle("agentgate_wake_00").unwrap();
}

fn job_of(job_id: &str, providers: &[&str]) -> agentgate_store::NewJob {
    agentgate_store::NewJob {
        providers: providers.iter().map(|p| (*p).to_owned()).collect(),
        ..new_job(job_id)
    }
}

#[test]
fn a_job_queued_wakes_an_executor_that_takes_its_providers() {
    let store = TestStore::new(Backend::Postgres);
    let signals = sentinels(&store, 4);
    let executors = Executors::watch(&store, 3);
    let at = ts("2026-05-01T12:00:00Z");
    let only = |p: &str| vec![p.to_owned()];
    let (codex, claude) = (only("codex"), only("claude"));
    let register = |i: usize, providers: Option<&[String]>| {
        store
            .register_idle(executors.channel(i), &format!("w{i}"), providers, at)
            .unwrap();
    };
    // Oldest first: 0 takes codex, 1 claude, 2 every provider.
    register(0, Some(&codex));
    register(1, Some(&claude));
    register(2, None);

    // A claude or gemini job: 0 is passed over, 1 is the oldest that
    // takes claude.
    store
        .enqueue(&job_of("j1", &["gemini", "claude"]), at)
        .unwrap();
    executors.assert_woken(&store, &signals[0], &[1]);
    // A job of no provider (a workflow): only an executor of every one.
    store.enqueue(&job_of("j2", &[]), at).unwrap();
    executors.assert_woken(&store, &signals[1], &[2]);
    // A gemini job: nobody idle takes it, nobody is woken.
    store.enqueue(&job_of("j3", &["gemini"]), at).unwrap();
    executors.assert_woken(&store, &signals[2], &[]);
    // A gemini job's end frees a slot any job may need: the codex
    // executor, the only one idle, is woken.
    let claimed = store.claim_job("j3", "w9", LEASE, at).unwrap().unwrap();
    let done = JobOutcome {
        state: FinalState::Succeeded,
        envelope: None,
        error: None,
    };
    store.finish("j3", &claimed.token, &done, at).unwrap();
    executors.assert_woken(&store, &signals[3], &[0]);
    assert!(idle_list(&store.location).is_empty());
}
