//! SSE from any `serve` follows a run that a worker runs: the events go to
//! the PostgreSQL store's table, and `serve --no-executor` (which runs
//! nothing) streams them live, from before the CLI answered to its
//! `result`, the same lines the store holds; a failed read of that table
//! does not end the stream of a run that has ended before its lines are
//! sent.

use agentgate_store::{JobState, RunStore};
use serde_json::json;

use super::serve_queue_support::{QueueHome, TOKEN, submit_ok, wait_until};
use super::sse_client::stream;
use super::store_postgres::fresh_database;
use super::support::run_bounded;
use super::worker::{Worker, holder, job, pg, wait_for_state};

#[test]
fn serve_streams_live_the_events_a_worker_writes() {
    let store = fresh_database();
    let home = QueueHome::new("queue:\n  lease: 5s\n");
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let worker = Worker::start(&home, &store, &[]);
    // `hold` answers only once the file `release` exists.
    let id = submit_ok(&server.url, "hold tag-e", json!({}));
    home.wait_for_starts(1);

    let mut events = stream(&server.url, &format!("/v1/runs/{id}/events"), TOKEN, None);
    let first = events.next_event().expect("a first event");
    assert_eq!(first.json()["type"], "start", "{first:?}");
    // Live: the CLI has not answered, the job still runs on the worker.
    let running = job(&store, &id);
    assert_eq!(running.state, JobState::Running);
    assert_eq!(holder(&running), worker.pid());

    std::fs::write(home.file("release"), b"").unwrap();
    let mut all = vec![first];
    all.extend(events.rest());
    let last = all.last().unwrap().json();
    assert_eq!(last["type"], "result", "{all:#?}");
    assert_eq!(last["envelope"]["response"], "done tag-e", "{last:#}");
    let seqs: Vec<u64> = all
        .iter()
        .map(|m| m.json()["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (0..all.len() as u64).collect::<Vec<_>>());

    // The stream carried exactly the lines the worker stored.
    wait_for_state(&store, &id, JobState::Succeeded);
    let stored: Vec<String> = pg(&store)
        .read_event_lines(&id, None, 10_000)
        .unwrap()
        .into_iter()
        .map(|l| l.line)
        .collect();
    let streamed: Vec<String> = all.iter().map(|m| m.data.clone().unwrap()).collect();
    assert_eq!(streamed, stored);
}

/// The stream of an ended job whose events the store cannot read for a
/// while (its table renamed away): the server says so in its log and
/// waits; once the table is back, the stream carries every line the run
/// stored, ending with its `result`. Before the fix a run seen ended ended
/// the stream at once, with an `end` message and none of its lines.
#[test]
fn a_failed_read_of_an_ended_runs_events_is_read_again_not_ended() {
    let store = fresh_database();
    let home = QueueHome::new("queue:\n  lease: 5s\n");
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let _worker = Worker::start(&home, &store, &[]);
    let id = submit_ok(&server.url, "tag-u", json!({}));
    wait_for_state(&store, &id, JobState::Succeeded);
    let stored: Vec<String> = pg(&store)
        .read_event_lines(&id, None, 10_000)
        .unwrap()
        .into_iter()
        .map(|l| l.line)
        .collect();
    assert!(stored.len() >= 3, "{stored:#?}");

    psql(&store, "ALTER TABLE run_events RENAME TO run_events_away");
    let mut events = stream(&server.url, &format!("/v1/runs/{id}/events"), TOKEN, None);
    // The follower saw the job ended and failed to read its lines.
    wait_until("the server to log the failed read", || {
        server
            .stderr_so_far()
            .contains("cannot read a run's events")
            .then_some(())
    });
    psql(&store, "ALTER TABLE run_events_away RENAME TO run_events");

    let all = events.rest();
    let streamed: Vec<String> = all.iter().map(|m| m.data.clone().unwrap()).collect();
    assert_eq!(streamed, stored, "{all:#?}");
    assert!(
        all.iter().all(|m| m.event.is_none()),
        "no `end` message: {all:#?}"
    );
}

/// Runs one SQL statement on the database at `url`.
fn psql(url: &str, sql: &str) {
    let mut cmd = std::process::Command::new("psql");
    cmd.arg(url).args(["-v", "ON_ERROR_STOP=1", "-qc", sql]);
    let out = run_bounded(cmd, std::time::Duration::from_secs(30));
    assert!(out.code == Some(0), "{sql}: {}", out.all_output());
}
