//! The shared queue's notices (PostgreSQL LISTEN/NOTIFY) end to end: a
//! cancel asked through `serve --no-executor` reaches the `agentgate
//! worker` running the job when no lease renewal could have told it yet,
//! and a job submitted through `serve` wakes an idle worker whose poll is
//! made too slow to find it. Without the trigger or the listener, both
//! tests time out. With three idle workers, a job queued wakes one of
//! them and its end one other, not all three (schema v8's idle list): the
//! workers' debug log counts their claim passes and says what woke each.

use agentgate_executor::POLL_ENV;
use agentgate_protocol::ErrorKind;
use agentgate_store::JobState;
use serde_json::json;

use super::serve_queue_support::{QueueHome, cancel, process_alive, submit_ok, wait_until};
use super::store_postgres::fresh_database;
use super::worker::{Worker, holder, job, pg, wait_for_state, wait_until_looked_at};

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

/// The workers' log filter: the executor's claim passes at debug level.
const PASSES_LOGGED: &str = "info,agentgate_executor::executor=debug";

/// What woke each claim pass of a worker, in order (its `claim pass`
/// debug lines, written as each pass ends: `cause` is `start`,
/// `registered`, `woken`, `local`, ...).
fn pass_causes(worker: &Worker) -> Vec<String> {
    worker
        .log()
        .lines()
        .filter(|line| line.contains("claim pass"))
        .filter_map(|line| {
            let (_, rest) = line.split_once("cause=")?;
            Some(rest.split_whitespace().next()?.to_owned())
        })
        .collect()
}

#[test]
fn one_job_wakes_one_of_three_idle_workers_and_its_end_one_other() {
    let store = fresh_database();
    let home = QueueHome::new("queue:\n  lease: 3s\n");
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let vars = [(POLL_ENV, "600000"), ("AGENTGATE_LOG", PASSES_LOGGED)];
    let workers: Vec<Worker> = (0..3)
        .map(|_| Worker::start_with(&home, &store, &[], &vars))
        .collect();
    let db = pg(&store);
    // Each looked at the queue at start, found nothing, went on the idle
    // list and looked once more (a pass is logged once it ended); their
    // polls are 10 minutes away.
    wait_until("three idle workers", || {
        let looked_twice = workers.iter().all(|w| pass_causes(w).len() >= 2);
        (looked_twice && db.idle_executors().unwrap().len() == 3).then_some(())
    });

    let id = submit_ok(&server.url, "tag-w", json!({}));
    let done = wait_for_state(&store, &id, JobState::Succeeded);
    assert_eq!(home.cli_runs().len(), 1);
    // Every wake sent has been heard once all three are on the list
    // again: a woken worker registers after the pass its wake caused.
    wait_until("the three workers idle again", || {
        (db.idle_executors().unwrap().len() == 3).then_some(())
    });

    let causes: Vec<Vec<String>> = workers.iter().map(pass_causes).collect();
    let woken = |i: usize| causes[i].iter().filter(|c| c.contains("woken")).count();
    for (i, worker) in workers.iter().enumerate() {
        eprintln!(
            "worker {i} (pid {}): {} claim passes: {:?}",
            worker.pid(),
            causes[i].len(),
            causes[i]
        );
        assert_eq!(
            causes[i].get(..2),
            Some(&["start".to_owned(), "registered".to_owned()][..]),
            "its first pass, and one more look once on the idle list: {:?}",
            causes[i]
        );
        assert!(
            causes[i]
                .iter()
                .all(|c| !c.contains("poll") && !c.contains("broadcast")),
            "no pass was its poll's nor the broadcast's: {:?}",
            causes[i]
        );
    }
    let claimer = workers
        .iter()
        .position(|w| w.pid() == holder(&done))
        .expect("a worker of the test ran the job");
    assert_eq!(woken(claimer), 1, "the job queued woke its claimer");
    assert_eq!(
        (0..3).map(woken).sum::<usize>(),
        2,
        "one wake for the job queued, one for its end: {causes:?}"
    );
    let untouched: Vec<usize> = (0..3).filter(|&i| causes[i].len() == 2).collect();
    assert_eq!(
        untouched.len(),
        1,
        "one worker ran no pass after its start, neither woken nor told of \
         the job: {causes:?}"
    );
    assert_ne!(untouched[0], claimer);
    drop(server);
}
