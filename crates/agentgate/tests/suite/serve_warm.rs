//! A served session with `warm: true`: the REAL Claude Code against
//! `agentgate fake-llm` under a real `agentgate serve`. Two runs of the
//! session are served by one living process of the server's, and `kill -9`
//! of the server leaves none of it.

use std::process::Command;
use std::time::{Duration, Instant};

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::serve_queue_support::{TOKEN, wait_until};
use super::serve_support::{Serve, get, post_json, serve_with_cli_env};
use super::support::{Client, FakeServer};
use super::warm_real::THREE_TURNS;

fn group_alive(pgid: u64) -> bool {
    Command::new("kill")
        .args(["-0", "--", &format!("-{pgid}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Submit a turn of session `chat` and wait for its envelope.
fn turn(serve: &Serve, client: &Client, prompt: &str) -> Value {
    let submitted = post_json(
        &serve.url,
        "/v1/runs",
        TOKEN,
        &json!({
            "prompt": prompt,
            "providers": ["claude"],
            "session": "chat",
            "warm": true,
            "warm_idle": "2m",
            "permission_mode": "bypass",
            "model": client.setup.model,
            "binary": client.program,
            "cwd": client.setup.workdir,
            "timeout": "120s",
        })
        .to_string(),
    );
    assert_eq!(submitted.status, 201, "{}", submitted.body);
    let run = submitted.json()["run_id"].as_str().unwrap().to_owned();
    wait_until("the run's end", || {
        let v = get(&serve.url, &format!("/v1/runs/{run}"), Some(TOKEN)).json();
        (!v["envelope"].is_null()).then(|| v["envelope"].clone())
    })
}

#[test]
fn a_served_warm_session_keeps_one_process_and_it_dies_with_the_server() {
    let server = FakeServer::start(THREE_TURNS);
    let client = Client::new(Cli::Claude, &server);
    let home = tempfile::tempdir().unwrap();
    let serve = serve_with_cli_env(home.path(), &client.setup.env, TOKEN, &[]);

    // A request for warm without a session is refused, naming the field.
    let refused = post_json(
        &serve.url,
        "/v1/runs",
        TOKEN,
        &json!({"prompt": "p", "providers": ["claude"], "warm": true}).to_string(),
    );
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert_eq!(refused.json()["error"]["field"], "warm", "{}", refused.body);

    let first = turn(&serve, &client, "turn ONE");
    let context = format!("{first:#}");
    assert_eq!(first["response"], "reply-one", "{context}");
    assert_eq!(first["warm"]["process"], "started", "{context}");
    let pgid = first["warm"]["pgid"].as_u64().unwrap();
    assert!(
        group_alive(pgid),
        "the process lives after the run: {context}"
    );

    let second = turn(&serve, &client, "turn TWO");
    let context = format!("{second:#}");
    assert_eq!(second["response"], "reply-two", "{context}");
    assert_eq!(second["warm"]["process"], "reused", "{context}");
    assert_eq!(second["warm"]["pgid"], pgid, "{context}");
    assert_eq!(second["warm"]["turn"], 2, "{context}");
    assert_eq!(second["session_id"], first["session_id"], "{context}");
    let last = server.turn_requests().last().unwrap().to_string();
    assert!(
        last.contains("reply-one"),
        "the second turn carries the first: {last}"
    );

    // kill -9 of the server: the keeper ends the warm process's group.
    assert!(
        Command::new("kill")
            .args(["-KILL", &serve.pid().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + Duration::from_secs(15);
    while group_alive(pgid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !group_alive(pgid),
        "the warm CLI survived kill -9 of its server"
    );
}
