//! How a job ends once its CLI ended, on a real SQLite store behind
//! `test_store.rs`: the job's state agrees with its run's whatever the
//! order of cancel and failure (a gate holds the job's thread where the
//! race was), and a result the store refuses is never thrown away.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use agentgate_protocol::ErrorKind;
use agentgate_store::{JobQueue, JobRecord, JobState, RunStatus, RunStore};
use serde_json::json;

use super::super::test_store::{Call, GatedStore};
use super::super::*;
use super::{HeldClock, job, t};

/// A stand-in `claude` that stamps each start in `DIR/starts`, waits for
/// `DIR/go` when `wait` is set, and answers `answer` (a stream-json line)
/// with exit `code`.
fn stand_in(dir: &Path, answer: &str, code: i32, wait: bool) -> PathBuf {
    let cli = dir.join("claude");
    let wait = if wait {
        format!(
            "for _ in $(seq 1 600); do [ -e '{go}' ] && break; sleep 0.05; done\n",
            go = dir.join("go").display()
        )
    } else {
        String::new()
    };
    let script = format!(
        "#!/bin/sh\ncat >/dev/null\necho start >> '{starts}'\n{wait}\
         echo '{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\",\"model\":\"m\"}}'\n\
         echo '{answer}'\nexit {code}\n",
        starts = dir.join("starts").display(),
    );
    std::fs::write(&cli, script).unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    cli
}

const FAILED: &str = r#"{"type":"result","subtype":"success","is_error":true,"result":"the tool broke","session_id":"s1"}"#;
const OVERLOADED: &str = r#"{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}","session_id":"s1"}"#;
const ANSWERED: &str = r#"{"type":"result","subtype":"success","is_error":false,"result":"the first answer","session_id":"s1"}"#;

fn starts(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("starts"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

fn request(cli: &Path) -> serde_json::Value {
    json!({"prompt": "hi", "providers": ["claude"], "binary": cli, "permission_mode": "plan"})
}

fn wait_for(store: &dyn JobQueue, id: &str, done: impl Fn(&JobRecord) -> bool) -> JobRecord {
    for _ in 0..1200 {
        let job = store.get_job(id).unwrap().unwrap();
        if done(&job) {
            return job;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("job {id} did not get there: {:?}", store.get_job(id));
}

fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..1200 {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("{what}: not within 30 s");
}

fn config(lease: Duration, max_attempts: u32) -> Config {
    let mut config = Config::default();
    config.queue.lease = lease;
    config.queue.max_attempts = max_attempts;
    config
}

fn last_run_status(store: &GatedStore, id: &str) -> RunStatus {
    store.get_run(id).unwrap().unwrap().summary.status
}

/// The fault drill's disagreement, forced: the CLI fails on its own, and a
/// client's cancel reaches the executor only after that (the job's thread
/// is held where the engine records the failed attempt). The run failed;
/// the job must not say `cancelled`.
#[test]
fn a_cancel_heard_after_the_cli_failed_leaves_the_job_failed_as_its_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(GatedStore::open(&dir.path().join("agentgate.db")));
    let cli = stand_in(dir.path(), FAILED, 1, false);
    store.arm(Call::InsertAttempt);
    store.enqueue(&job("j", request(&cli)), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(1))));
    // A lease of an hour: no renewal comes between the test's steps.
    let config = config(Duration::from_secs(3600), 1);
    let executor =
        Executor::start(store.clone(), config, clock, ExecutorOptions::default()).unwrap();
    assert!(
        store.wait_reached(Duration::from_secs(30)),
        "no attempt recorded"
    );
    assert!(executor.cancel("j"), "the job runs here");
    store.open_gate();
    let job = wait_for(store.as_ref(), "j", |j| j.state.is_final());
    assert_eq!(last_run_status(&store, "j"), RunStatus::Failed);
    assert_eq!(job.state, JobState::Failed, "{job:?}");
    assert_eq!(job.envelope.unwrap().error_type, Some(ErrorKind::Unknown));
    executor.drain(Duration::ZERO);
}

/// A cancel only marked in the store (by another process) while the CLI
/// failed recoverably: the retry it would have had becomes the run's own
/// end, `failed`, not `cancelled`, and it is not tried again.
#[test]
fn a_cancel_marked_before_a_retry_ends_the_job_as_its_run_and_tries_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(GatedStore::open(&dir.path().join("agentgate.db")));
    let cli = stand_in(dir.path(), OVERLOADED, 1, false);
    store.arm(Call::InsertAttempt);
    store.enqueue(&job("j", request(&cli)), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(1))));
    let config = config(Duration::from_secs(3600), 3);
    let executor =
        Executor::start(store.clone(), config, clock, ExecutorOptions::default()).unwrap();
    assert!(
        store.wait_reached(Duration::from_secs(30)),
        "no attempt recorded"
    );
    store.cancel("j", None, t(2)).unwrap();
    store.open_gate();
    let job = wait_for(store.as_ref(), "j", |j| j.state.is_final());
    assert_eq!(last_run_status(&store, "j"), RunStatus::Failed);
    assert_eq!(job.state, JobState::Failed, "{job:?}");
    assert_eq!(
        job.envelope.unwrap().error_type,
        Some(ErrorKind::Overloaded)
    );
    assert_eq!(starts(dir.path()), 1);
    assert!(store.get_run("j.2").unwrap().is_none(), "no second run");
    executor.drain(Duration::ZERO);
}

/// The store refuses the job's end (a full disk) for longer than a lease:
/// the executor keeps the result, never lets its own sweep take the job
/// back (even when the store takes back leases but refuses their
/// renewal), and writes the end once the store takes it: the CLI ran once,
/// the job has its first answer, attempts 1.
#[test]
fn a_result_the_store_refuses_is_kept_until_it_lands_and_the_cli_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(GatedStore::open(&dir.path().join("agentgate.db")));
    let cli = stand_in(dir.path(), ANSWERED, 0, true);
    store.enqueue(&job("j", request(&cli)), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(1))));
    let config = config(Duration::from_secs(1), 1);
    let executor = Executor::start(
        store.clone(),
        config,
        clock.clone(),
        ExecutorOptions::default(),
    )
    .unwrap();
    until("the CLI started", || starts(dir.path()) == 1);
    store.fill(true);
    std::fs::write(dir.path().join("go"), "").unwrap();
    until("the end was refused three times", || {
        store.ends_refused.load(Ordering::SeqCst) >= 3
    });
    // The lease ran out long ago by the executor's clock; the store now
    // takes back expired leases, but still refuses renewals and the end.
    *clock.0.lock().unwrap() = t(1000);
    let swept = store.sweep_renewals.load(Ordering::SeqCst);
    store.refuse_sweeps.store(false, Ordering::SeqCst);
    until(
        "the sweep renewed the pending job's lease first, twice",
        || store.sweep_renewals.load(Ordering::SeqCst) >= swept + 2,
    );
    let held = store.get_job("j").unwrap().unwrap();
    assert_eq!((held.state, held.attempts), (JobState::Running, 1));
    store.fill(false);
    let job = wait_for(store.as_ref(), "j", |j| j.state.is_final());
    assert_eq!(job.state, JobState::Succeeded, "{job:?}");
    assert_eq!(job.attempts, 1);
    assert_eq!(job.envelope.unwrap().response, "the first answer");
    assert_eq!(starts(dir.path()), 1, "the CLI ran once");
    assert_eq!(last_run_status(&store, "j"), RunStatus::Succeeded);
    assert!(store.get_run("j.2").unwrap().is_none(), "no second run");
    executor.drain(Duration::ZERO);
}

/// A drain while the end is refused stops trying without handing the job
/// back; the next executor, once its lease expired, finishes it from the
/// result the run left beside it (`result.json`) without running it again.
#[test]
fn a_drain_leaves_a_pending_end_that_the_next_executor_finishes_from_the_saved_result() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(GatedStore::open(&dir.path().join("agentgate.db")));
    let cli = stand_in(dir.path(), ANSWERED, 0, false);
    store.refuse_ends.store(true, Ordering::SeqCst);
    store.enqueue(&job("j", request(&cli)), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(1))));
    let config = config(Duration::from_secs(30), 1);
    let first = Executor::start(
        store.clone(),
        config.clone(),
        clock.clone(),
        ExecutorOptions::default(),
    )
    .unwrap();
    until("the end was refused twice", || {
        store.ends_refused.load(Ordering::SeqCst) >= 2
    });
    first.drain(Duration::ZERO);
    assert!(first.running_job_ids().is_empty());
    let held = store.get_job("j").unwrap().unwrap();
    assert_eq!((held.state, held.attempts), (JobState::Running, 1));
    let saved = store.read_saved_result("j").unwrap().unwrap();
    assert_eq!(saved.envelope.response, "the first answer");

    store.refuse_ends.store(false, Ordering::SeqCst);
    *clock.0.lock().unwrap() = t(100);
    let second = Executor::start(store.clone(), config, clock, ExecutorOptions::default()).unwrap();
    let job = wait_for(store.as_ref(), "j", |j| j.state.is_final());
    assert_eq!(job.state, JobState::Succeeded, "{job:?}");
    assert_eq!(job.attempts, 1, "the claim that ran nothing is given back");
    assert_eq!(job.envelope.unwrap().response, "the first answer");
    assert_eq!(starts(dir.path()), 1, "the CLI ran once");
    assert_eq!(last_run_status(&store, "j"), RunStatus::Succeeded);
    assert!(store.get_run("j.2").unwrap().is_none(), "no second run");
    second.drain(Duration::ZERO);
}

/// A drain past its grace cancels a run whose CLI still works; when the
/// store refuses that end too, the result kept beside the run is a
/// cancelled one, which is no finished result: the next executor records
/// the run as cancelled and runs the job again.
#[test]
fn a_run_a_drain_cancelled_and_left_unwritten_is_run_again_not_ended_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(GatedStore::open(&dir.path().join("agentgate.db")));
    let cli = stand_in(dir.path(), ANSWERED, 0, true);
    store.enqueue(&job("j", request(&cli)), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(1))));
    let config = config(Duration::from_secs(30), 1);
    let first = Executor::start(
        store.clone(),
        config.clone(),
        clock.clone(),
        ExecutorOptions::default(),
    )
    .unwrap();
    until("the CLI started", || starts(dir.path()) == 1);
    store.refuse_ends.store(true, Ordering::SeqCst);
    first.drain(Duration::ZERO);
    let held = store.get_job("j").unwrap().unwrap();
    assert_eq!(held.state, JobState::Running, "not handed back: {held:?}");
    let saved = store.read_saved_result("j").unwrap().unwrap();
    assert_eq!(saved.envelope.error_type, Some(ErrorKind::Cancelled));

    store.refuse_ends.store(false, Ordering::SeqCst);
    std::fs::write(dir.path().join("go"), "").unwrap();
    *clock.0.lock().unwrap() = t(100);
    let second = Executor::start(store.clone(), config, clock, ExecutorOptions::default()).unwrap();
    let job = wait_for(store.as_ref(), "j", |j| j.state.is_final());
    assert_eq!(job.state, JobState::Succeeded, "{job:?}");
    assert_eq!(job.envelope.unwrap().response, "the first answer");
    assert_eq!(starts(dir.path()), 2, "the cancelled CLI's job ran again");
    assert_eq!(job.attempts, 2);
    assert_eq!(last_run_status(&store, "j"), RunStatus::Cancelled);
    assert_eq!(last_run_status(&store, "j.2"), RunStatus::Succeeded);
    second.drain(Duration::ZERO);
}

/// The store out of reach while the CLI runs (every lease renewal
/// refused): the executor kills the CLI by its own clock before the lease
/// can end in the store, and writes nothing more for the job: no attempt,
/// no end of the run, the job still `running` under the lease it had (the
/// store takes it back when it expires). Without the deadline the CLI
/// would wait out its 30 s for `go` and answer.
#[test]
fn a_lease_that_cannot_be_renewed_ends_the_run_before_it_ends_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(GatedStore::open(&dir.path().join("agentgate.db")));
    let cli = stand_in(dir.path(), ANSWERED, 0, true);
    store.enqueue(&job("j", request(&cli)), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(1))));
    let config = config(Duration::from_secs(2), 1);
    let executor =
        Executor::start(store.clone(), config, clock, ExecutorOptions::default()).unwrap();
    until("the CLI started", || starts(dir.path()) == 1);
    store.refuse_renewals.store(true, Ordering::SeqCst);
    until("the run was stopped", || {
        executor.running_job_ids().is_empty()
    });
    let job = store.get_job("j").unwrap().unwrap();
    assert_eq!(job.state, JobState::Running, "{job:?}");
    let run = store.get_run("j").unwrap().unwrap();
    assert_eq!(run.summary.status, RunStatus::Running, "{run:?}");
    assert!(run.attempts.is_empty(), "an attempt was written: {run:?}");
    assert!(!dir.path().join("go").exists());
    executor.drain(Duration::ZERO);
}
