//! Events reach an SSE client as they are written, not at the server's next
//! poll: a stand-in CLI prints line N, then waits until the client has
//! received it (the test touches `seen-N` for each line it reads) before it
//! prints line N+1. The server's polls are set to 30 s
//! (`AGENTGATE_TEST_EVENT_POLL_MS`), longer than the stand-in waits for a
//! line to be seen (10 s): only the bells can explain a run that
//! completes; with polling alone the stand-in gives up on line 2 (it
//! writes `gave-up`) and the test fails.
//!
//! Once with `serve`'s own executor on SQLite (the in-process bell), once
//! with an `agentgate worker` running the job on PostgreSQL, followed
//! through a `serve --no-executor` (`NOTIFY agentgate_events`).

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::serve_queue_support::{QueueHome, TOKEN, submit_ok};
use super::serve_support::{Env, Serve};
use super::sse_client::stream;
use super::store_postgres::fresh_database;
use super::worker::Worker;

/// Lines the stand-in prints in lockstep with the client.
const LINES: u32 = 5;

/// The stand-in `claude`: its init line, then `LINES` answers, each
/// printed only once `seen-N` of the line before exists (waiting at most
/// 10 s; then it notes `gave-up N` and stops waiting), then its result.
const LOCKSTEP_CLAUDE: &str = r#"#!/bin/bash
dir='@DIR@'
cat > /dev/null
echo '{"type":"system","subtype":"init","session_id":"sess-lock","model":"fake-model"}'
for n in $(seq 1 @LINES@); do
  echo '{"type":"assistant","message":{"content":[{"type":"text","text":"line-'"$n"' "}]},"session_id":"sess-lock"}'
  seen=no
  for _ in $(seq 1 200); do
    if [ -e "$dir/seen-$n" ]; then seen=yes; break; fi
    sleep 0.05
  done
  if [ "$seen" = no ]; then echo "gave-up $n" >> "$dir/gave-up"; break; fi
done
echo '{"type":"result","subtype":"success","is_error":false,"result":"lockstep done","session_id":"sess-lock","num_turns":1}'
"#;

/// A queue home whose `claude` is [`LOCKSTEP_CLAUDE`].
fn lockstep_home() -> QueueHome {
    let home = QueueHome::new("queue:\n  lease: 5s\n");
    let script = LOCKSTEP_CLAUDE
        .replace("@DIR@", home.path().to_str().unwrap())
        .replace("@LINES@", &LINES.to_string());
    let claude = home.file("bin/claude");
    std::fs::write(&claude, script).unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    home
}

/// `agentgate serve ARGS` on `home`, its event streams polling every 30 s.
fn serve_polling_slowly(home: &QueueHome, args: &[&str]) -> Serve {
    let bin = home.file("bin");
    let env = Env {
        home: home.path(),
        bin: &bin,
        vars: vec![
            ("AGENTGATE_TOKEN", TOKEN.to_owned()),
            (
                "AGENTGATE_CONFIG",
                home.file("agentgate.yaml").display().to_string(),
            ),
            ("AGENTGATE_TEST_EVENT_POLL_MS", "30000".to_owned()),
        ],
    };
    Serve::start(&env, args)
}

/// Follows job `id` through `server`, touching `seen-N` as soon as line N
/// arrives; the lines' numbers in the order received, up to the result.
fn follow_in_lockstep(home: &QueueHome, server: &Serve, id: &str) -> Vec<u32> {
    let mut events = stream(&server.url, &format!("/v1/runs/{id}/events"), TOKEN, None);
    let mut seen = Vec::new();
    loop {
        let message = events
            .next_event()
            .unwrap_or_else(|| panic!("the stream ended before the result; seen {seen:?}"));
        let event = message.json();
        if let Some(n) = line_number(&event) {
            std::fs::write(home.file(&format!("seen-{n}")), b"").unwrap();
            seen.push(n);
        }
        if event["type"] == "result" {
            assert_eq!(event["envelope"]["response"], "lockstep done", "{event:#}");
            return seen;
        }
    }
}

/// N of an event whose text is `line-N`.
fn line_number(event: &serde_json::Value) -> Option<u32> {
    let text = event["text"].as_str()?;
    text.trim().strip_prefix("line-")?.parse().ok()
}

fn assert_each_line_was_seen_before_the_next(home: &QueueHome, seen: &[u32]) {
    let gave_up = std::fs::read_to_string(home.file("gave-up")).unwrap_or_default();
    assert!(
        gave_up.is_empty(),
        "the stand-in waited in vain for the client to see a line ({gave_up:?}): \
         the event reached the client only at a poll; seen {seen:?}"
    );
    assert_eq!(seen, (1..=LINES).collect::<Vec<_>>());
}

#[test]
fn a_local_run_is_streamed_line_by_line_as_its_cli_prints() {
    let home = lockstep_home();
    let server = serve_polling_slowly(&home, &[]);
    let id = submit_ok(&server.url, "lockstep", json!({}));
    let seen = follow_in_lockstep(&home, &server, &id);
    assert_each_line_was_seen_before_the_next(&home, &seen);
    home.wait_for_state(&id, agentgate_store::JobState::Succeeded);
}

#[test]
fn a_workers_run_is_streamed_line_by_line_through_another_serve_on_postgres() {
    let store = fresh_database();
    let home = lockstep_home();
    let server = serve_polling_slowly(&home, &["--no-executor", "--store", &store]);
    let _worker = Worker::start(&home, &store, &[]);
    let id = submit_ok(&server.url, "lockstep", json!({}));
    let seen = follow_in_lockstep(&home, &server, &id);
    assert_each_line_was_seen_before_the_next(&home, &seen);
}
