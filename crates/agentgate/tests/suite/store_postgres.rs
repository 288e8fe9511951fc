//! The PostgreSQL store end to end: the real Claude Code against
//! `fake-llm`, recorded with `--store postgres://...` in a fresh database of
//! the test cluster (AGENTGATE_TEST_POSTGRES, which scripts/test.sh
//! starts); read back by `agentgate runs` and by `agentgate serve`'s event
//! stream, which read the events from the database's table.

use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::{Gate, ok};
use super::serve_support::{Env, Serve};
use super::sse_client;
use super::support::{FakeServer, run_bounded};

const TOKEN: &str = "pg-test-token-0123456789abcdef0123";

/// A new, empty database on the test cluster; its URL.
pub fn fresh_database() -> String {
    let admin = std::env::var("AGENTGATE_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "AGENTGATE_TEST_POSTGRES is not set: these tests need a PostgreSQL server \
             (scripts/test.sh starts one with scripts/pg-cluster.sh)"
        )
    });
    let name = format!(
        "agt_e2e_{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let mut psql = Command::new("psql");
    psql.arg(&admin)
        .args(["-v", "ON_ERROR_STOP=1", "-qc"])
        .arg(format!("CREATE DATABASE {name} TEMPLATE template0"));
    let made = run_bounded(psql, Duration::from_secs(30));
    assert!(made.code == Some(0), "{}", made.all_output());
    let (head, query) = admin.split_once('?').unwrap_or((&admin, ""));
    let base = &head[..head.rfind('/').unwrap()];
    format!("{base}/{name}?{query}")
}

fn agentgate(home: &std::path::Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("AGENTGATE_HOME", home);
    cmd
}

#[test]
fn a_real_run_and_its_session_live_in_postgres_and_read_back_from_it() {
    let url = fresh_database();
    let server = FakeServer::start("turns:\n  - text: \"First.\"\n  - text: \"Second.\"\n");
    let gate = Gate::new(Cli::Claude, &server);
    let (run, first) = gate.run(&["--store", &url, "--session", "pg-s"], "remember me");
    ok(Cli::Claude, &run, &first);
    // The second run finds the store in its config file's `store:`.
    let config = tempfile::tempdir().unwrap();
    let config_file = config.path().join("agentgate.yaml");
    std::fs::write(&config_file, format!("version: 1\nstore: {url}\n")).unwrap();
    let config_arg = config_file.display().to_string();
    let (run, second) = gate.run(&["--config", &config_arg, "--session", "pg-s"], "and again");
    ok(Cli::Claude, &run, &second);
    assert_eq!(
        second["session_id"], first["session_id"],
        "the second turn resumed the session the database mapped `pg-s` to"
    );
    let first_id = first["run_id"].as_str().unwrap();

    // Nothing of the run went to a SQLite file; the events are not a file.
    let home = gate.store_home();
    assert!(!home.join("agentgate.db").exists());
    let run_dir = home.join("runs").join(first_id);
    assert!(run_dir.join("stderr.log").is_file());
    assert!(!run_dir.join("events.jsonl").exists());

    // Another process, with only the URL, lists both runs and the events.
    // Named by AGENTGATE_STORE.
    let mut list = agentgate(home, &["runs", "--json"]);
    list.env("AGENTGATE_STORE", &url);
    let listed = run_bounded(list, Duration::from_secs(30));
    assert!(listed.code == Some(0), "{}", listed.all_output());
    assert!(
        listed.stdout.contains(first_id)
            && listed.stdout.contains(second["run_id"].as_str().unwrap())
    );
    let shown = run_bounded(
        agentgate(
            home,
            &["--store", &url, "runs", "show", first_id, "--events"],
        ),
        Duration::from_secs(30),
    );
    assert!(shown.code == Some(0), "{}", shown.all_output());
    let events: Vec<Value> = shown
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.first().unwrap()["type"], "start");
    assert_eq!(events.last().unwrap()["envelope"]["response"], "First.");
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>());

    // The password never shows, not even in the error of a database that
    // is not there.
    let (head, query) = url.split_once('?').unwrap();
    let base = &head[..head.rfind('/').unwrap()];
    let bad = format!("{base}/no_such_db?{query}").replacen("agentgate@", "agentgate:hunter22@", 1);
    let failed = run_bounded(
        agentgate(home, &["runs", "--store", &bad]),
        Duration::from_secs(60),
    );
    assert_ne!(failed.code, Some(0));
    assert!(
        !failed.all_output().contains("hunter22") && failed.all_output().contains("no_such_db"),
        "{}",
        failed.all_output()
    );

    // `agentgate serve` on the same database streams the stored events from
    // the table, the same lines.
    let serve_home = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let env = Env {
        home: serve_home.path(),
        bin: bin.path(),
        vars: vec![("AGENTGATE_TOKEN", TOKEN.to_owned())],
    };
    let serve = Serve::start(&env, &["--store", &url]);
    let mut stream = sse_client::stream(
        &serve.url,
        &format!("/v1/runs/{first_id}/events"),
        TOKEN,
        None,
    );
    let messages = stream.rest();
    let streamed: Vec<Value> = messages
        .iter()
        .filter(|m| m.id.is_some())
        .map(sse_client::Message::json)
        .collect();
    assert_eq!(streamed, events, "the stream is the stored events");
    let _ = serve.stop("TERM");
}
