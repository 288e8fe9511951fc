//! The executor on a real store with a clock the test holds: the claims it
//! makes without running a CLI (quota waits, refused requests), and taking
//! back a dead server's lease.

use std::time::Duration;

use agentgate_store::{
    JobQueue, JobRecord, JobState, NewJob, QuotaState, QuotaStatus, RunStore, Store,
};
use jiff::Timestamp;
use serde_json::json;

use super::*;

#[derive(Debug)]
pub(super) struct HeldClock(pub(super) Mutex<Timestamp>);

impl Clock for HeldClock {
    fn now(&self) -> Timestamp {
        *lock(&self.0)
    }
}

pub(super) fn t(s: i64) -> Timestamp {
    Timestamp::from_second(1_900_000_000 + s).unwrap()
}

pub(super) fn job(id: &str, request: serde_json::Value) -> NewJob {
    NewJob {
        job_id: id.to_owned(),
        request,
        priority: 0,
        not_before: None,
        idempotency_key: None,
        providers: vec!["claude".to_owned()],
        session: None,
        writes_in: None,
        ignore_quota: false,
        planned: false,
        labels: Default::default(),
    }
}

/// Record the quota under `key` as exhausted until `t(3600)`.
fn exhaust(store: &Store, key: &str) {
    let state = QuotaState {
        status: QuotaStatus::Exhausted,
        reset_at: Some(t(3600)),
        source: "error:r0".into(),
        updated_at: t(0),
        message: None,
        windows: Vec::new(),
    };
    store.put_quota(key, &state).unwrap();
}

pub(super) fn wait_for(store: &Store, id: &str, done: impl Fn(&JobRecord) -> bool) -> JobRecord {
    for _ in 0..400 {
        let job = store.get_job(id).unwrap().unwrap();
        if done(&job) {
            return job;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("job {id} did not get there: {:?}", store.get_job(id));
}

#[test]
fn an_exhausted_provider_holds_its_jobs_and_a_refused_request_fails_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path().join("agentgate.db")).unwrap());
    exhaust(&store, "claude");
    let prompt = json!({"prompt": "hi", "providers": ["claude"], "permission_mode": "plan"});
    store.enqueue(&job("waits", prompt), t(0)).unwrap();
    let missing = json!({"prompt": "hi", "providers": ["claude"], "system_file": "/no/such/file"});
    store.enqueue(&job("refused", missing), t(0)).unwrap();

    let clock = Arc::new(HeldClock(Mutex::new(t(10))));
    let options = ExecutorOptions::default();
    let executor = Executor::start(store.clone(), Config::default(), clock, options).unwrap();

    let waiting = wait_for(&store, "waits", |j| j.waiting_for.is_some());
    assert_eq!(waiting.state, JobState::Queued);
    assert_eq!(waiting.waiting_for.as_deref(), Some("quota"));
    assert_eq!(waiting.not_before, t(3600));
    assert_eq!(waiting.attempts, 0, "no attempt charged");

    let refused = wait_for(&store, "refused", |j| j.state.is_final());
    assert_eq!(refused.state, JobState::Failed);
    let envelope = refused.envelope.unwrap();
    assert_eq!(
        envelope.error_type,
        Some(agentgate_protocol::ErrorKind::InvalidInput)
    );
    assert!(refused.error.unwrap().starts_with("system_file:"));
    executor.drain(Duration::ZERO);
}

/// A dead server's keepers may still be ending its CLIs (SIGTERM, then
/// SIGKILL after the orphan grace): its leases are taken back only after
/// that, never at once, so its job cannot run twice at the same time.
#[test]
fn a_lease_of_a_dead_server_of_this_host_is_taken_back_after_its_clis_are_ended() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path().join("agentgate.db")).unwrap());
    let prompt =
        json!({"prompt": "hi", "providers": ["claude"], "not_before": "2099-01-01T00:00:00Z"});
    let mut queued = job("j", prompt);
    queued.not_before = Some(t(0));
    store.enqueue(&queued, t(0)).unwrap();
    // A process of this host that no longer runs: a child that exited.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    let dead = RunOwner {
        pid,
        ..RunOwner::current()
    };
    let owner = serde_json::to_string(&dead).unwrap();
    store
        .claim_job("j", &owner, Duration::from_secs(3600), t(1))
        .unwrap()
        .unwrap();
    // The lease runs for an hour; the clock stays before its end.
    let clock = Arc::new(HeldClock(Mutex::new(t(2))));
    let mut config = Config::default();
    config.queue.on_lease_expiry = LeaseExpiry::Abandon;
    let options = ExecutorOptions::default();
    let started = Instant::now();
    let executor = Executor::start(store.clone(), config, clock, options).unwrap();
    let job = wait_for(&store, "j", |j| j.state.is_final());
    assert_eq!(job.state, JobState::Abandoned);
    assert!(
        started.elapsed() >= take_back::DEAD_OWNER_WAIT,
        "taken back after {:?}, before the keepers' kill time",
        started.elapsed()
    );
    executor.drain(Duration::ZERO);
}

#[test]
fn a_cancel_marked_in_the_store_by_another_process_stops_the_run() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path().join("agentgate.db")).unwrap());
    // A CLI that starts, says so, and would sleep for a minute.
    let cli = dir.path().join("claude");
    let started = dir.path().join("started");
    std::fs::write(
        &cli,
        format!("#!/bin/sh\ntouch '{}'\nsleep 60\n", started.display()),
    )
    .unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    let request = json!({
        "prompt": "hi",
        "providers": ["claude"],
        "binary": cli,
        "permission_mode": "plan",
    });
    store.enqueue(&job("j", request), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(1))));
    let mut config = Config::default();
    config.queue.lease = Duration::from_secs(1);
    let options = ExecutorOptions::default();
    let executor = Executor::start(store.clone(), config, clock, options).unwrap();
    for _ in 0..400 {
        if started.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert!(started.exists(), "the CLI never started");
    // Only the store's mark, as a server of another process would leave it:
    // this executor learns it from its heartbeat.
    assert_eq!(
        store.cancel("j", None, t(2)).unwrap(),
        agentgate_store::CancelOutcome::Requested
    );
    let job = wait_for(&store, "j", |j| j.state.is_final());
    assert_eq!(job.state, JobState::Cancelled);
    let envelope = job.envelope.unwrap();
    assert_eq!(
        envelope.error_type,
        Some(agentgate_protocol::ErrorKind::Cancelled)
    );
    assert_eq!(envelope.run_id, "j");
    executor.drain(Duration::ZERO);
}

/// The executor reads the quota of the account this host names for a
/// provider: another account's exhaustion does not hold its jobs, its own
/// does.
#[test]
fn the_quota_held_against_a_job_is_the_account_this_host_names() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path().join("agentgate.db")).unwrap());
    // The unnamed account and team-b ran out; this host's team-a did not.
    exhaust(&store, "claude");
    exhaust(&store, "claude@team-b");
    let config = Config::parse(
        "version: 1\nproviders:\n  claude:\n    account: team-a\n    binary: /bin/true\n",
        agentgate_core::ConfigSource::Flag("/cfg/agentgate.yaml".into()),
    )
    .unwrap();
    let prompt = json!({"prompt": "hi", "providers": ["claude"], "permission_mode": "plan"});
    store.enqueue(&job("runs", prompt.clone()), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(10))));
    let executor = Executor::start(
        store.clone(),
        config.clone(),
        clock.clone(),
        ExecutorOptions::default(),
    )
    .unwrap();
    let ran = wait_for(&store, "runs", |j| j.state.is_final());
    assert_eq!(ran.attempts, 1, "{ran:?}");
    assert_eq!(ran.waiting_for, None, "{ran:?}");
    executor.drain(Duration::ZERO);

    // Now team-a runs out too: the next job waits for its reset.
    exhaust(&store, "claude@team-a");
    store.enqueue(&job("waits", prompt), t(0)).unwrap();
    let executor =
        Executor::start(store.clone(), config, clock, ExecutorOptions::default()).unwrap();
    let waiting = wait_for(&store, "waits", |j| j.waiting_for.is_some());
    assert_eq!(waiting.waiting_for.as_deref(), Some("quota"));
    assert_eq!(waiting.not_before, t(3600));
    assert_eq!(waiting.attempts, 0);
    executor.drain(Duration::ZERO);
}

mod end;
mod wire_hold;
