//! A damaged row of a real SQLite store (a JSON column cut short, a
//! timestamp that is not one) does not take the runs list down: `GET
//! /v1/runs`, `agentgate runs --server` and `agentgate runs` list the other
//! runs and name the damaged one, with why.

use std::process::{Command, Output, Stdio};

use agentgate_store::{JobQueue, RunKind, RunRecord, RunStore};
use jiff::Timestamp;

use super::serve::Home;
use super::serve_api::{job, start, store_of};
use super::serve_support::get;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const TOKEN: &str = "api-test-token-0123456789abcdef012";

fn at(second: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + second).unwrap()
}

/// `agentgate ARGS` on `home`'s data folder, with the token.
fn agentgate(home: &Home, args: &[&str]) -> Output {
    Command::new(AGENTGATE)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .env("AGENTGATE_HOME", home.path().join("data"))
        .env("AGENTGATE_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn run_record(id: &str, second: i64) -> RunRecord {
    RunRecord {
        run_id: id.to_owned(),
        started_at: at(second),
        providers: vec!["claude".to_owned()],
        model: None,
        session: None,
        cwd: None,
        prompt_bytes: 2,
        kind: RunKind::Agent,
        parent_run_id: None,
        labels: Default::default(),
    }
}

#[test]
fn a_damaged_row_is_named_and_the_other_runs_listed_by_the_api_and_the_cli() {
    let home = Home::new("0");
    let store = store_of(&home);
    for (i, id) in ["r0", "r1", "r2"].into_iter().enumerate() {
        store
            .enqueue(&job(id, &["claude"], None), at(i as i64))
            .unwrap();
        store
            .insert_run(&run_record(&format!("local-{id}"), i as i64))
            .unwrap();
    }
    drop(store);
    // The damage bypasses the file's own checks, as a torn write or a
    // hand edit would.
    let db = home.path().join("data").join(agentgate_store::DB_FILE_NAME);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "PRAGMA ignore_check_constraints = ON;
         UPDATE jobs SET request = '{\"prompt\": \"cut sh' WHERE job_id = 'r1';
         UPDATE runs SET started_at = 'yesterday' WHERE run_id = 'local-r1';",
    )
    .unwrap();
    drop(conn);

    let server = start(&home, &[]);
    let r = get(&server.url, "/v1/runs", Some(TOKEN));
    assert_eq!(r.status, 200, "{r:?}");
    let page = r.json();
    let ids: Vec<&str> = page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["r2", "r0"], "{page}");
    let bad = page["unreadable"].as_array().unwrap();
    assert_eq!(bad.len(), 1, "{page}");
    assert_eq!(bad[0]["run_id"], "r1");
    assert!(
        bad[0]["error"].as_str().unwrap().contains("run request"),
        "{page}"
    );

    let out = agentgate(&home, &["runs", "--server", &server.url]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("r2") && stdout.contains("r0") && !stdout.contains("r1 "),
        "{stdout}"
    );
    assert!(stderr.contains("run r1 cannot be read"), "{stderr}");

    let out = agentgate(&home, &["runs"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("local-r2") && stdout.contains("local-r0"),
        "{stdout}"
    );
    assert!(!stdout.contains("local-r1"), "{stdout}");
    assert!(
        stderr.contains("run local-r1 cannot be read") && stderr.contains("yesterday"),
        "{stderr}"
    );
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}
