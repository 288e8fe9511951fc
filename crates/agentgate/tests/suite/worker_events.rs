//! SSE from any `serve` follows a run that a worker runs: the events go to
//! the PostgreSQL store's table, and `serve --no-executor` (which runs
//! nothing) streams them live, from before the CLI answered to its
//! `result`, the same lines the store holds.

use agentgate_store::{JobState, RunStore};
use serde_json::json;

use super::serve_queue_support::{QueueHome, TOKEN, submit_ok};
use super::sse_client::stream;
use super::store_postgres::fresh_database;
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
