//! Secrets stay out of the queue (issue 31, item 6): runs and workflows
//! submitted to a real `agentgate serve` with secrets in their `env` (and
//! a secret flag in `extra_args`) run with the values delivered to the
//! CLI, while nothing the store keeps holds them: not the SQLite file (nor
//! its WAL), not a run's files, not PostgreSQL's tables (a `pg_dump` of the
//! whole database). A worker without the queue key leaves such a job
//! queued and says why; a worker given the key file runs it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use super::own_keys::{DUMPER, script};
use super::serve_queue_support::{QueueHome, TOKEN, submit_ok, wait_until};
use super::serve_support::{get, post_json};
use super::store_postgres::fresh_database;
use super::support::run_bounded;
use super::worker::Worker;

const API_KEY: &str = "sk-queued-secret-0123456789";
const PLAIN: &str = "plain-but-sealed-0123456789";
const FLAG: &str = "flag-secret-0123456789";
/// A workflow agent's value: a secret-named one is refused in a workflow
/// (it is stored with its run), any other is sealed like a run's.
const WF_VALUE: &str = "wf-agent-value-0123456789";

fn secret_fields() -> Value {
    json!({
        "env": {"EXTRA_API_KEY": API_KEY, "PLAIN_VALUE": PLAIN},
        "extra_args": ["--api-key", FLAG],
    })
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn assert_nowhere(what: &str, bytes: &[u8], secrets: &[&str]) {
    let text = String::from_utf8_lossy(bytes);
    for s in secrets {
        assert!(!text.contains(s), "{what} holds the secret {s:?}");
    }
}

fn wait_for_status(url: &str, id: &str, status: &str) -> Value {
    wait_until(&format!("run {id} {status}"), || {
        let run = get(url, &format!("/v1/runs/{id}"), Some(TOKEN)).json();
        let now = run["status"].as_str().unwrap_or_default().to_owned();
        if now == status {
            return Some(run);
        }
        assert!(
            !["succeeded", "failed", "cancelled", "abandoned"].contains(&now.as_str()),
            "run {id} ended {now}, not {status}: {run:#}"
        );
        None
    })
}

fn dump(home: &QueueHome, tag: &str) -> String {
    let path = home.file(&format!("env-{tag}"));
    wait_until(&format!("{}", path.display()), || {
        std::fs::read_to_string(&path)
            .ok()
            .filter(|t| !t.is_empty())
    })
}

#[test]
fn queued_secrets_are_sealed_in_sqlite_and_reach_the_cli() {
    let home = QueueHome::new("");
    script(&home.file("bin/claude"), DUMPER, home.path());
    let server = home.serve(false, &[]);
    let id = submit_ok(&server.url, "tag-sqlite", secret_fields());
    // A workflow whose agent step sets a variable.
    let workflow = format!(
        "version: 1\nname: sealed\nsteps:\n  - id: ask\n    agent:\n      providers: [claude]\n      prompt: tag-wf\n      env: {{WF_SETTING: {WF_VALUE}}}\n"
    );
    let wf = post_json(
        &server.url,
        "/v1/workflows",
        TOKEN,
        &json!({"workflow": workflow, "base_dir": home.path()}).to_string(),
    );
    assert_eq!(wf.status, 201, "{}", wf.body);
    let wf_id = wf.json()["run_id"].as_str().unwrap().to_owned();
    let run = wait_for_status(&server.url, &id, "succeeded");
    wait_for_status(&server.url, &wf_id, "succeeded");

    // The CLI got the values.
    let env = dump(&home, "tag-sqlite");
    assert!(env.contains(&format!("EXTRA_API_KEY={API_KEY}")), "{env}");
    assert!(env.contains(&format!("PLAIN_VALUE={PLAIN}")), "{env}");
    assert!(
        dump(&home, "tag-wf").contains(&format!("WF_SETTING={WF_VALUE}")),
        "the workflow's agent step got its value"
    );
    // The API shows none.
    let request = &run["request"];
    assert_eq!(
        request["env"],
        json!({"EXTRA_API_KEY": "[redacted:EXTRA_API_KEY]", "PLAIN_VALUE": "[sealed]"}),
        "{run:#}"
    );
    assert!(request.get("sealed").is_none(), "{run:#}");

    // The store holds none: the database (and its WAL), every run file.
    let secrets = [API_KEY, PLAIN, FLAG, WF_VALUE];
    let mut files = Vec::new();
    files_under(&home.file("data"), &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("agentgate.db")),
        "{files:?}"
    );
    for file in &files {
        if file.file_name().is_some_and(|n| n == "queue.key") {
            continue;
        }
        assert_nowhere(
            &file.display().to_string(),
            &std::fs::read(file).unwrap(),
            &secrets,
        );
    }
    // The job's request is sealed, not emptied: the key is named.
    let job = home.job(&id);
    assert_eq!(job.request["env"]["PLAIN_VALUE"], "[sealed]");
    assert!(
        job.request["sealed"]["key"].as_str().is_some(),
        "{:#}",
        job.request
    );
}

#[test]
fn queued_secrets_are_sealed_in_postgres_and_wait_for_a_worker_with_the_key() {
    let store = fresh_database();
    let home = QueueHome::new("");
    script(&home.file("bin/claude"), DUMPER, home.path());
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let key_file = home.file("data/queue.key");
    assert!(key_file.is_file(), "serve made the queue key");

    // A worker of another host: its own (absent) key file.
    let keyless = Worker::start_with(
        &home,
        &store,
        &[],
        &[(
            "AGENTGATE_QUEUE_KEY_FILE",
            home.file("elsewhere.key").to_str().unwrap(),
        )],
    );
    let id = submit_ok(&server.url, "tag-pg", secret_fields());
    wait_until("the keyless worker to name the job it cannot open", || {
        let log = keyless.log();
        (log.contains(&id) && log.contains("which this process does not have")).then_some(())
    });
    let waiting = home_job(&store, &id);
    assert_eq!(waiting.state, agentgate_store::JobState::Queued);
    assert_eq!(waiting.attempts, 0, "nothing was charged");
    drop(keyless);

    let keyed = Worker::start_with(
        &home,
        &store,
        &[],
        &[("AGENTGATE_QUEUE_KEY_FILE", key_file.to_str().unwrap())],
    );
    wait_for_status(&server.url, &id, "succeeded");
    let env = dump(&home, "tag-pg");
    assert!(env.contains(&format!("EXTRA_API_KEY={API_KEY}")), "{env}");
    drop(keyed);

    // Nothing in the database holds a secret: every table, dumped.
    let mut pg_dump = Command::new(pg_bin("pg_dump"));
    pg_dump.arg("--data-only").arg(&store);
    let dumped = run_bounded(pg_dump, Duration::from_secs(60));
    assert_eq!(dumped.code, Some(0), "{}", dumped.all_output());
    assert!(
        dumped.stdout.contains(&id),
        "the dump holds the job: {}",
        dumped.stdout.len()
    );
    assert_nowhere("pg_dump", dumped.stdout.as_bytes(), &[API_KEY, PLAIN, FLAG]);
}

fn home_job(store: &str, id: &str) -> agentgate_store::JobRecord {
    super::worker::job(store, id)
}

/// A server binary of the test cluster's PostgreSQL.
fn pg_bin(name: &str) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.flatten()
                .map(|e| e.path().join("bin").join(name))
                .collect()
        })
        .unwrap_or_default();
    found.retain(|p| p.is_file());
    found.sort();
    found.pop().unwrap_or_else(|| PathBuf::from(name))
}
