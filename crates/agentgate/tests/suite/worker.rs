//! `agentgate worker` end to end on PostgreSQL: `serve --no-executor` as a
//! pure API, worker processes running the stand-in CLI (the queue tests'
//! `claude`), `GET /v1/workers`, `--providers`, the SIGTERM drain and
//! `kill -9` of a worker mid-job.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};

use agentgate_store::{JobQueue, JobRecord, JobState, PgOptions, PgStore, RunOwner};
use serde_json::{Value, json};

use super::serve_queue_support::{QueueHome, TOKEN, process_alive, submit_ok, wait_until};
use super::serve_support::{LIMIT, get};
use super::store_postgres::fresh_database;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

/// A running `agentgate worker`.
pub struct Worker {
    child: Child,
    pub id: String,
    stderr: PathBuf,
}

impl Worker {
    pub fn start(home: &QueueHome, store: &str, args: &[&str]) -> Worker {
        Worker::start_with(home, store, args, &[])
    }

    /// As [`Worker::start`], with more environment variables.
    pub fn start_with(
        home: &QueueHome,
        store: &str,
        args: &[&str],
        vars: &[(&str, &str)],
    ) -> Worker {
        let stderr = home.file(&format!("worker-{}.log", unique()));
        let mut child = Command::new(AGENTGATE)
            .arg("worker")
            .args(args)
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", home.file("bin").display()),
            )
            .env("HOME", home.path())
            .env("AGENTGATE_HOME", home.file("data"))
            .env("AGENTGATE_CONFIG", home.file("agentgate.yaml"))
            .env("AGENTGATE_STORE", store)
            .env("AGENTGATE_LOG", "info")
            .envs(vars.iter().copied())
            .current_dir(home.path())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let id = rx.recv_timeout(LIMIT).unwrap_or_default();
        assert!(
            id.ends_with('\n'),
            "the worker printed no id; stderr:\n{}",
            std::fs::read_to_string(&stderr).unwrap_or_default()
        );
        Worker {
            child,
            id: id.trim_end().to_owned(),
            stderr,
        }
    }

    /// Its stderr so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(super) fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
    }

    /// Wait (bounded) for the exit; the status and stderr.
    pub(super) fn wait(mut self) -> (ExitStatus, String) {
        let status = wait_until("the worker to exit", || self.child.try_wait().unwrap());
        (
            status,
            std::fs::read_to_string(&self.stderr).unwrap_or_default(),
        )
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

pub(super) fn pg(url: &str) -> PgStore {
    let dir = std::env::temp_dir().join("agentgate-worker-test-runs");
    PgStore::connect(url, dir, &PgOptions::default()).unwrap()
}

pub(super) fn job(url: &str, id: &str) -> JobRecord {
    pg(url).get_job(id).unwrap().unwrap()
}

pub(super) fn wait_for_state(url: &str, id: &str, state: JobState) -> JobRecord {
    let store = pg(url);
    wait_until(&format!("job {id} {state}"), || {
        let job = store.get_job(id).unwrap().unwrap();
        (job.state == state).then_some(job)
    })
}

/// The pid of the process that held the job's (last) lease.
pub(super) fn holder(job: &JobRecord) -> u32 {
    let owner: RunOwner = serde_json::from_str(job.lease_owner.as_deref().unwrap()).unwrap();
    owner.pid
}

fn workers(url: &str) -> Vec<Value> {
    let r = get(url, "/v1/workers", Some(TOKEN));
    assert_eq!(r.status, 200, "{r:?}");
    r.json()["workers"].as_array().unwrap().clone()
}

fn worker_view(url: &str, id: &str) -> Option<Value> {
    workers(url).into_iter().find(|w| w["id"] == id)
}

/// Wait (bounded) until worker `id` has heartbeated 2 s after `since`: it
/// has looked at the queue many times since (it claims every quarter
/// second and heartbeats every second).
pub(super) fn wait_until_looked_at(url: &str, id: &str, since: jiff::Timestamp) {
    wait_until("the worker to heartbeat 2 s later", || {
        let w = worker_view(url, id)?;
        let beat: jiff::Timestamp = w["last_heartbeat"].as_str()?.parse().ok()?;
        (beat > since + jiff::SignedDuration::from_secs(2)).then_some(())
    });
}

const CONFIG: &str = "queue:\n  lease: 3s\n";

#[test]
fn two_workers_run_every_job_once_and_a_no_executor_serve_none() {
    let store = fresh_database();
    let home = QueueHome::new(CONFIG);
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let queue = get(&server.url, "/v1/queue", Some(TOKEN)).json();
    assert_eq!(queue["executor"], false, "{queue}");
    let a = Worker::start(
        &home,
        &store,
        &["--concurrency", "1", "--providers", "claude"],
    );

    // Two held jobs: worker A runs one at a time (read-only jobs, `plan`,
    // so one folder does not serialize them; only --concurrency does).
    let plan = json!({"permission_mode": "plan"});
    let held: Vec<String> = (0..2)
        .map(|i| submit_ok(&server.url, &format!("hold tag-h{i}"), plan.clone()))
        .collect();
    home.wait_for_starts(1);
    let submitted = job(&store, &held[1]).created_at;
    wait_until_looked_at(&server.url, &a.id, submitted);
    assert_eq!(
        home.cli_runs().len(),
        1,
        "--concurrency 1 ran two jobs at once"
    );
    let unclaimed: Vec<JobRecord> = held
        .iter()
        .map(|id| job(&store, id))
        .filter(|j| j.state == JobState::Queued)
        .collect();
    assert_eq!(unclaimed.len(), 1);
    assert_eq!(unclaimed[0].lease_owner, None);

    // Worker B takes the other.
    let b = Worker::start(&home, &store, &["--concurrency", "1"]);
    home.wait_for_starts(2);
    let listed = wait_until("both workers to list a running job", || {
        let ws = workers(&server.url);
        let busy = ws
            .iter()
            .filter(|w| w["running"].as_array().unwrap().len() == 1);
        (busy.count() == 2).then_some(ws)
    });
    assert_eq!(listed.len(), 2, "serve registers no executor: {listed:?}");
    let view_a = listed.iter().find(|w| w["id"] == a.id.as_str()).unwrap();
    let view_b = listed.iter().find(|w| w["id"] == b.id.as_str()).unwrap();
    assert_eq!(view_a["pid"], a.pid());
    assert_eq!(view_a["providers"], json!(["claude"]));
    assert_eq!(view_a["concurrency"], 1);
    assert_eq!(view_a["kind"], "worker");
    assert_eq!(view_a["state"], "running");
    assert_eq!(view_b["providers"], json!([]));
    let mut running: Vec<&str> = listed
        .iter()
        .map(|w| w["running"][0].as_str().unwrap())
        .collect();
    running.sort();
    let mut expected: Vec<&str> = held.iter().map(String::as_str).collect();
    expected.sort();
    assert_eq!(running, expected);

    std::fs::write(home.file("release"), "").unwrap();
    let quick: Vec<String> = (0..6)
        .map(|i| submit_ok(&server.url, &format!("tag-q{i}"), plan.clone()))
        .collect();
    let mut holders = Vec::new();
    for id in held.iter().chain(&quick) {
        let done = wait_for_state(&store, id, JobState::Succeeded);
        assert_eq!(done.attempts, 1, "{done:?}");
        holders.push(holder(&done));
    }
    let (pa, pb) = (a.pid(), b.pid());
    assert!(holders.iter().all(|p| *p == pa || *p == pb), "{holders:?}");
    assert!(
        holders.contains(&pa) && holders.contains(&pb),
        "{holders:?}"
    );
    // Each job's CLI ran once.
    let runs = home.cli_runs();
    assert_eq!(runs.len(), 8, "{runs:?}");
    let mut tags: Vec<&str> = runs.iter().map(|r| r.tag.as_str()).collect();
    tags.sort();
    tags.dedup();
    assert_eq!(tags.len(), 8, "{runs:?}");
    drop(server);
}

#[test]
fn a_worker_claims_only_jobs_of_its_providers() {
    let store = fresh_database();
    let home = QueueHome::new(CONFIG);
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let other = Worker::start(&home, &store, &["--providers", "codex"]);
    let id = submit_ok(&server.url, "tag-p", json!({}));
    wait_until_looked_at(&server.url, &other.id, job(&store, &id).created_at);
    let waiting = job(&store, &id);
    assert_eq!((waiting.state, waiting.attempts), (JobState::Queued, 0));
    assert_eq!(waiting.lease_owner, None, "the codex worker claimed it");
    assert!(home.cli_runs().is_empty());

    let claude = Worker::start(&home, &store, &["--providers", "claude"]);
    let done = wait_for_state(&store, &id, JobState::Succeeded);
    assert_eq!(holder(&done), claude.pid());
    drop(other);
}

#[test]
fn sigterm_lets_a_job_finish_within_the_grace_then_the_worker_leaves() {
    let store = fresh_database();
    let home = QueueHome::new(CONFIG);
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let worker = Worker::start(&home, &store, &["--grace", "60"]);
    let id = submit_ok(&server.url, "hold tag-g", json!({}));
    home.wait_for_starts(1);
    worker.signal("TERM");
    wait_until("the worker to show as draining", || {
        let w = worker_view(&server.url, &worker.id)?;
        (w["state"] == "draining").then_some(())
    });
    // A job submitted now is not claimed by the draining worker.
    let late = submit_ok(&server.url, "tag-late", json!({}));
    std::fs::write(home.file("release"), "").unwrap();
    let done = wait_for_state(&store, &id, JobState::Succeeded);
    assert_eq!(done.attempts, 1);
    let (status, stderr) = worker.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(job(&store, &late).state, JobState::Queued);
    assert!(
        workers(&server.url).is_empty(),
        "a clean stop leaves the list"
    );
}

#[test]
fn a_job_longer_than_the_grace_is_handed_back_and_run_by_another_worker() {
    let store = fresh_database();
    let home = QueueHome::new(CONFIG);
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let first = Worker::start(&home, &store, &["--grace", "1"]);
    let id = submit_ok(&server.url, "hold tag-l", json!({}));
    let cli = home.wait_for_starts(1).remove(0);
    first.signal("TERM");
    let (status, stderr) = first.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("handed back"), "{stderr}");
    let back = job(&store, &id);
    assert_eq!(
        (back.state, back.attempts),
        (JobState::Queued, 0),
        "{back:?}"
    );
    assert!(!process_alive(cli.pid), "the CLI was stopped");

    std::fs::write(home.file("release"), "").unwrap();
    let second = Worker::start(&home, &store, &[]);
    let done = wait_for_state(&store, &id, JobState::Succeeded);
    assert_eq!(holder(&done), second.pid());
    assert_eq!(done.attempts, 1, "the handed-back try was not charged");
    drop(server);
}

#[test]
fn a_second_signal_hands_the_jobs_back_at_once() {
    let store = fresh_database();
    let home = QueueHome::new(CONFIG);
    let _server = home.serve(false, &["--no-executor", "--store", &store]);
    let worker = Worker::start(&home, &store, &["--grace", "600"]);
    let id = submit_ok(&_server.url, "hold tag-s", json!({}));
    home.wait_for_starts(1);
    worker.signal("TERM");
    wait_until("the worker to show as draining", || {
        let w = worker_view(&_server.url, &worker.id)?;
        (w["state"] == "draining").then_some(())
    });
    worker.signal("INT");
    let (status, stderr) = worker.wait();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let back = job(&store, &id);
    assert_eq!(
        (back.state, back.attempts),
        (JobState::Queued, 0),
        "{back:?}"
    );
}

#[test]
fn kill_9_of_a_worker_mid_job_reruns_it_elsewhere_and_no_cli_survives() {
    let store = fresh_database();
    let home = QueueHome::new(CONFIG);
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let doomed = Worker::start(&home, &store, &[]);
    let id = submit_ok(&server.url, "hold tag-k", json!({}));
    let cli = home.wait_for_starts(1).remove(0);
    let doomed_id = doomed.id.clone();
    doomed.signal("KILL");
    let (status, _) = doomed.wait();
    assert_eq!(status.code(), None, "killed by a signal");
    // The keeper kills the CLI's group when its parent dies.
    wait_until("the dead worker's CLI to be gone", || {
        (!process_alive(cli.pid)).then_some(())
    });
    let heir = Worker::start(&home, &store, &[]);
    std::fs::write(home.file("release"), "").unwrap();
    let done = wait_for_state(&store, &id, JobState::Succeeded);
    assert_eq!(done.attempts, 2, "{done:?}");
    assert_eq!(holder(&done), heir.pid());
    let runs = home.cli_runs();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[1].alive_at_start, 0, "ran twice at once: {runs:?}");
    // The dead worker shows as lost once three heartbeats are missed.
    wait_until("the dead worker to show as lost", || {
        let w = worker_view(&server.url, &doomed_id)?;
        (w["state"] == "lost").then_some(())
    });
}
