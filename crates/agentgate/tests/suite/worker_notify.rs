//! The shared queue's notices (PostgreSQL LISTEN/NOTIFY) end to end: a
//! cancel asked through `serve --no-executor` reaches the `agentgate
//! worker` running the job when no lease renewal could have told it yet,
//! and a job submitted through `serve` wakes an idle worker whose poll is
//! made too slow to find it. Without the trigger or the listener, both
//! tests time out.

use agentgate_protocol::ErrorKind;
use agentgate_server::executor::POLL_ENV;
use agentgate_store::JobState;
use serde_json::json;

use super::serve_queue_support::{QueueHome, cancel, process_alive, submit_ok, wait_until};
use super::store_postgres::fresh_database;
use super::worker::{Worker, holder, job, wait_for_state, wait_until_looked_at};

/// A 10-minute lease is renewed every 200 s, far past every bounded wait
/// here (30 s): the renewal cannot be what delivers a cancel.
const LONG_LEASE: &str = "queue:\n  lease: 10m\n";

#[test]
fn a_cancel_through_serve_stops_the_workers_cli_before_any_lease_renewal() {
    let store = fresh_database();
    let home = QueueHome::new(LONG_LEASE);
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let worker = Worker::start(&home, &store, &[]);
    // `hold` runs until the file `release` appears, which it never does.
    let id = submit_ok(&server.url, "hold tag-c", json!({}));
    let cli = home.wait_for_starts(1).remove(0);
    assert_eq!(job(&store, &id).state, JobState::Running);

    let r = cancel(&server.url, &id);
    assert_eq!(r.status, 202, "a running job's cancel is asked: {r:?}");
    wait_until("the worker to stop the CLI", || {
        (!process_alive(cli.pid)).then_some(())
    });
    let done = wait_for_state(&store, &id, JobState::Cancelled);
    assert_eq!(holder(&done), worker.pid());
    let envelope = done.envelope.expect("the run's envelope");
    assert_eq!(
        envelope.error_type,
        Some(ErrorKind::Cancelled),
        "{envelope:?}"
    );
    let runs = home.cli_runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].end, None, "the CLI was terminated, it did not end");
    drop(server);
}

#[test]
fn a_job_submitted_through_serve_wakes_an_idle_worker_whose_poll_is_slow() {
    let store = fresh_database();
    let home = QueueHome::new("queue:\n  lease: 3s\n");
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let before = jiff::Timestamp::now();
    // Its claim loop looks at the queue at start, then every 10 minutes.
    let worker = Worker::start_with(&home, &store, &[], &[(POLL_ENV, "600000")]);
    // Two seconds of heartbeats later its first look is long done.
    wait_until_looked_at(&server.url, &worker.id, before);

    let id = submit_ok(&server.url, "tag-w", json!({}));
    let done = wait_for_state(&store, &id, JobState::Succeeded);
    assert_eq!(holder(&done), worker.pid());
    assert_eq!(home.cli_runs().len(), 1);
}
