//! Webhooks in a deployment of workers on PostgreSQL: `agentgate worker`
//! delivers the outbox's messages itself (no `serve` left running), and a
//! job whose holder died and whose lease is taken back as abandoned
//! (`queue.on_lease_expiry: abandon`) sends its `run.ended`, written by
//! the worker that took it back. Every delivery is verified by the npm
//! `standardwebhooks` package (`webhook_receiver.rs`).

use serde_json::json;

use agentgate_store::JobState;

use super::serve_queue_support::{QueueHome, process_alive, submit_ok, wait_until};
use super::store_postgres::fresh_database;
use super::webhook_receiver::Receiver;
use super::worker::{Worker, wait_for_state};

/// 32 bytes, base64.
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYqr";

#[test]
fn a_worker_delivers_run_ended_of_a_job_it_took_back_as_abandoned() {
    let store = fresh_database();
    let scratch = tempfile::tempdir().unwrap();
    let receiver = Receiver::start(scratch.path(), SECRET);
    let all = receiver.url("/all");
    let home = QueueHome::new(&format!(
        "queue:\n  lease: 3s\n  on_lease_expiry: abandon\n\
         webhooks:\n  secret_file: whsec\n  allow_private: true\n  subscriptions:\n    - {{url: \"{all}\", events: [run.ended]}}\n"
    ));
    std::fs::write(home.file("whsec"), format!("{SECRET}\n")).unwrap();
    // The API only; it stops before any job ends, so that what reaches
    // the receiver was sent by a worker.
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let doomed = Worker::start(&home, &store, &[]);
    let id = submit_ok(
        &server.url,
        "hold tag-k",
        json!({"labels": {"ticket": "T-7"}}),
    );
    let cli = home.wait_for_starts(1).remove(0);
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");

    doomed.signal("KILL");
    let (status, _) = doomed.wait();
    assert_eq!(status.code(), None, "killed by a signal");
    wait_until("the dead worker's CLI to be gone", || {
        (!process_alive(cli.pid)).then_some(())
    });
    let heir = Worker::start(&home, &store, &[]);
    let job = wait_for_state(&store, &id, JobState::Abandoned);
    assert_eq!(job.attempts, 1, "{job:?}");

    let got = receiver.wait_for("/all", 1);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["verified"], true, "{:?}", got[0]["error"]);
    let payload = &got[0]["payload"];
    assert_eq!(payload["type"], "run.ended");
    assert_eq!(payload["data"]["job_id"], id.as_str());
    assert_eq!(payload["data"]["state"], "abandoned");
    assert_eq!(payload["data"]["labels"]["ticket"], "T-7");
    assert!(
        heir.log().contains("webhooks: delivering"),
        "{}",
        heir.log()
    );
    assert_eq!(
        home.cli_runs().len(),
        1,
        "an abandoned job is not run again"
    );
}
