//! `GET /v1/runs/{id}/events` of a real `agentgate serve`, read by a real
//! SSE client: an ended run replayed and resumed after a `Last-Event-ID`, a
//! queued run followed from before its first event (with keep-alives, a
//! line written in two parts, two clients at once), a run that
//! `agentgate run` is writing in another process, one whose process was
//! killed (it ends as abandoned), a job cancelled while queued, and
//! streams ended by shutdown.
//!
//! The events are written the way the engine writes them: `RunFiles` for
//! the queue's jobs, `agentgate run` itself for the live run.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_protocol::{Envelope, Event, EventBody, ResultEvent, TextDeltaEvent};
use agentgate_store::{FinalState, JobOutcome, JobQueue, LeaseToken, RunStore, Store};
use jiff::Timestamp;

use super::serve::Home;
use super::serve_api::{job, start, store_of};
use super::serve_support::{LIMIT, get};
use super::sse_client::{Message, Opened, open, stream};

const TOKEN: &str = "api-test-token-0123456789abcdef012";
const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

pub(super) fn event(run_id: &str, seq: u64, body: EventBody) -> Event {
    Event {
        v: 1,
        ts: "2026-05-01T12:00:00.000Z".to_owned(),
        run_id: run_id.to_owned(),
        seq,
        provider: Some("claude".to_owned()),
        attempt: Some(1),
        cut: None,
        body,
    }
}

pub(super) fn text(run_id: &str, seq: u64, text: &str) -> Event {
    event(
        run_id,
        seq,
        EventBody::TextDelta(TextDeltaEvent {
            text: text.to_owned(),
        }),
    )
}

pub(super) fn result(run_id: &str, seq: u64) -> Event {
    event(
        run_id,
        seq,
        EventBody::Result(ResultEvent {
            envelope: Box::new(Envelope {
                response: "done".to_owned(),
                ..Envelope::default()
            }),
        }),
    )
}

/// Claims the queued job `id` (the only one ready) as an executor would.
pub(super) fn claim(store: &Store, id: &str) -> LeaseToken {
    let claimed = store
        .claim("test-executor", Duration::from_secs(600), Timestamp::now())
        .unwrap()
        .unwrap();
    assert_eq!(claimed.job.job_id, id);
    claimed.token
}

pub(super) fn finish(store: &Store, id: &str, token: &LeaseToken) {
    let outcome = JobOutcome {
        state: FinalState::Succeeded,
        envelope: Some(Envelope::default()),
        error: None,
    };
    store.finish(id, token, &outcome, Timestamp::now()).unwrap();
}

/// The lines of the run's events file.
fn file_lines(store: &Store, id: &str) -> Vec<String> {
    std::fs::read_to_string(store.events_path(id).unwrap())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn ids(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| m.id.clone().unwrap_or_default())
        .collect()
}

fn data(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| m.data.clone().unwrap_or_default())
        .collect()
}

#[test]
fn a_line_over_the_limit_in_an_older_log_is_streamed_as_its_note_and_the_stream_goes_on() {
    let home = Home::new("0");
    let server = start(&home, &[]);
    let store = store_of(&home);
    store
        .enqueue(&job("old-run", &["claude"], None), Timestamp::now())
        .unwrap();
    let token = claim(&store, "old-run");
    let mut files = store.create_run_files("old-run").unwrap();
    files.write_event(&text("old-run", 0, "a")).unwrap();
    // What a version before the line limit could write: a 33 MiB line.
    let long = format!(
        "{{\"v\":1,\"ts\":\"2026-05-01T12:00:00.000Z\",\"run_id\":\"old-run\",\"seq\":1,\
         \"type\":\"text_delta\",\"text\":\"{}\"}}\n",
        "t".repeat(33 * 1024 * 1024)
    );
    let path = store.events_path("old-run").unwrap();
    std::io::Write::write_all(
        &mut std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap(),
        long.as_bytes(),
    )
    .unwrap();
    files.write_event(&result("old-run", 2)).unwrap();
    finish(&store, "old-run", &token);

    let all = stream(&server.url, "/v1/runs/old-run/events", TOKEN, None).rest();
    assert_eq!(ids(&all), ["0", "1", "2"]);
    let note = all[1].json();
    assert_eq!(note["type"], "log", "{note}");
    assert_eq!(note["cut"]["original_bytes"], long.len() - 1);
    assert!(
        note["message"]
            .as_str()
            .unwrap()
            .contains("over the line limit"),
        "{note}"
    );
    assert_eq!(all[2].json()["type"], "result");
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn an_ended_run_is_replayed_and_resumed_after_a_last_event_id() {
    let home = Home::new("0");
    let server = start(&home, &[]);
    let store = store_of(&home);
    store
        .enqueue(&job("done-run", &["claude"], None), Timestamp::now())
        .unwrap();
    let token = claim(&store, "done-run");
    let mut files = store.create_run_files("done-run").unwrap();
    for (seq, piece) in ["a", "b", "c"].iter().enumerate() {
        files
            .write_event(&text("done-run", seq as u64, piece))
            .unwrap();
    }
    files.write_event(&result("done-run", 3)).unwrap();
    finish(&store, "done-run", &token);
    let lines = file_lines(&store, "done-run");
    let url = &server.url;

    let all = stream(url, "/v1/runs/done-run/events", TOKEN, None).rest();
    assert_eq!(ids(&all), ["0", "1", "2", "3"]);
    assert_eq!(
        data(&all),
        lines,
        "each message's data is the file's line, exactly"
    );
    assert!(all.iter().all(|m| m.event.is_none()), "{all:?}");

    let after = stream(url, "/v1/runs/done-run/events", TOKEN, Some("1")).rest();
    assert_eq!(ids(&after), ["2", "3"]);
    assert_eq!(data(&after), lines[2..]);
    let after_result = stream(url, "/v1/runs/done-run/events", TOKEN, Some("3")).rest();
    assert!(after_result.is_empty(), "{after_result:?}");

    // Not a seq, whether garbage or not ASCII: refused, never read as
    // absent (which would replay the whole stream).
    for bad in ["seven", "-1", "1.5", "３", "1é", "é"] {
        match open(url, "/v1/runs/done-run/events", Some(TOKEN), Some(bad)) {
            Opened::Refused(400, body) => {
                assert!(
                    body.contains("invalid_parameter") && body.contains("Last-Event-ID"),
                    "{bad}: {body}"
                );
            }
            Opened::Refused(status, body) => panic!("{bad}: {status} {body}"),
            Opened::Stream(_) => panic!("a bad Last-Event-ID {bad:?} was accepted"),
        }
    }
    match open(url, "/v1/runs/nothing/events", Some(TOKEN), None) {
        Opened::Refused(404, body) => assert!(body.contains("not_found"), "{body}"),
        Opened::Refused(status, body) => panic!("{status} {body}"),
        Opened::Stream(_) => panic!("an unknown run has a stream"),
    }
    match open(url, "/v1/runs/done-run/events", None, None) {
        Opened::Refused(401, body) => assert!(body.contains("unauthorized"), "{body}"),
        Opened::Refused(status, body) => panic!("{status} {body}"),
        Opened::Stream(_) => panic!("a stream without the token"),
    }
}

#[test]
fn a_queued_run_is_followed_from_before_its_start_to_its_result() {
    let home = Home::new("0");
    let server = start(&home, &["--sse-keep-alive", "0.2"]);
    let store = store_of(&home);
    store
        .enqueue(&job("later", &["claude"], None), Timestamp::now())
        .unwrap();
    let path = "/v1/runs/later/events";
    let mut first = stream(&server.url, path, TOKEN, None);
    let mut second = stream(&server.url, path, TOKEN, None);

    // Nothing to send yet: the stream is kept alive with comments.
    let idle = first.next().unwrap();
    assert_eq!(idle.comments, ["keep-alive"], "{idle:?}");
    assert_eq!((idle.id.as_ref(), idle.data.as_ref()), (None, None));

    let token = claim(&store, "later");
    let mut files = store.create_run_files("later").unwrap();
    files.write_event(&text("later", 0, "hello")).unwrap();
    let m = first.next_event().unwrap();
    assert_eq!(m.id.as_deref(), Some("0"));
    assert_eq!(m.json()["text"], "hello");

    // A line that reaches the file in two writes is sent once, whole.
    let line = serde_json::to_string(&text("later", 1, "split in two")).unwrap();
    let (head, tail) = line.split_at(line.len() / 2);
    let mut raw = std::fs::OpenOptions::new()
        .append(true)
        .open(store.events_path("later").unwrap())
        .unwrap();
    raw.write_all(head.as_bytes()).unwrap();
    raw.flush().unwrap();
    let keep_alive = first.next().unwrap();
    assert_eq!(keep_alive.comments, ["keep-alive"], "{keep_alive:?}");
    raw.write_all(format!("{tail}\n").as_bytes()).unwrap();
    let m = first.next_event().unwrap();
    assert_eq!(
        (m.id.as_deref(), m.data.as_deref()),
        (Some("1"), Some(line.as_str()))
    );

    files.write_event(&result("later", 2)).unwrap();
    let m = first.next_event().unwrap();
    assert_eq!(m.json()["type"], "result");
    // A job's stream ends once the job is final (a job may run again after
    // a result): the executor ends it right after its run.
    finish(&store, "later", &token);
    assert!(first.rest().is_empty(), "nothing after the last result");
    assert_eq!(m.id.as_deref(), Some("2"));

    let lines = file_lines(&store, "later");
    let both = second.rest();
    assert_eq!(ids(&both), ["0", "1", "2"]);
    assert_eq!(data(&both), lines);
}

/// A stand-in Claude Code: its init line, then (bounded) waits for the file
/// `go` next to it, then its result.
const SLOW_CLAUDE: &str = r#"#!/bin/bash
dir="$(dirname "$0")"
cat > /dev/null
echo '{"type":"system","subtype":"init","session_id":"sess-live","model":"fake-model"}'
for _ in $(seq 1 300); do
  [ -e "$dir/go" ] && break
  sleep 0.1
done
echo '{"type":"assistant","message":{"content":[{"type":"text","text":"live answer"}]},"session_id":"sess-live"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"live answer","session_id":"sess-live","num_turns":1}'
"#;

/// `agentgate run` with [`SLOW_CLAUDE`] in the serve home's store, and the
/// id of its run once stored.
fn start_live_run(home: &Home, store: &Store) -> (tempfile::TempDir, std::process::Child, String) {
    let stand_in_dir = tempfile::tempdir().unwrap();
    let script = stand_in_dir.path().join("claude");
    std::fs::write(&script, SLOW_CLAUDE).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = Command::new(AGENTGATE)
        .args(["run", "--provider", "claude", "--compact", "--binary"])
        .arg(&script)
        .arg("answer live")
        .env("AGENTGATE_HOME", home.path().join("data"))
        .env_remove("AGENTGATE_LOG")
        .current_dir(stand_in_dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let run_id = loop {
        if let Some(r) = store.list_runs(1, 0).unwrap().runs.into_iter().next() {
            break r.record.run_id;
        }
        assert!(started.elapsed() < LIMIT, "agentgate run stored no run");
        std::thread::sleep(Duration::from_millis(20));
    };
    (stand_in_dir, run, run_id)
}

/// Reads `live` up to the `session` event (the stand-in then waits).
fn until_session(live: &mut super::sse_client::Stream) -> Vec<Message> {
    let mut seen = Vec::new();
    loop {
        let m = live.next_event().unwrap();
        let kind = m.json()["type"].as_str().unwrap().to_owned();
        seen.push(m);
        if kind == "session" {
            return seen;
        }
        assert_ne!(kind, "result", "{seen:?}");
    }
}

#[test]
fn a_run_that_agentgate_run_is_writing_is_followed_live() {
    let home = Home::new("0");
    let server = start(&home, &[]);
    let store = store_of(&home);
    let (stand_in_dir, run, run_id) = start_live_run(&home, &store);
    let path = format!("/v1/runs/{run_id}/events");
    let mut live = stream(&server.url, &path, TOKEN, None);
    // The stand-in waits for `go`: these events arrive while the run runs.
    let mut seen = until_session(&mut live);
    assert_eq!(
        store.get_run(&run_id).unwrap().unwrap().summary.status,
        agentgate_store::RunStatus::Running
    );
    std::fs::write(stand_in_dir.path().join("go"), "").unwrap();
    seen.extend(live.rest());
    let out = run.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");

    let expected: Vec<String> = (0..seen.len()).map(|n| n.to_string()).collect();
    assert_eq!(ids(&seen), expected, "gap-free from 0");
    assert_eq!(seen.last().unwrap().json()["type"], "result");
    assert_eq!(data(&seen), file_lines(&store, &run_id));
    let text: String = seen
        .iter()
        .map(Message::json)
        .filter(|e| e["type"] == "text_delta" || e["type"] == "message")
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect();
    assert!(text.contains("live answer"), "{seen:?}");
}

#[test]
fn a_job_cancelled_while_queued_ends_its_stream_and_shutdown_ends_the_others() {
    let home = Home::new("0");
    let server = start(&home, &["--sse-keep-alive", "0.2"]);
    let store = store_of(&home);
    store
        .enqueue(&job("never", &["claude"], None), Timestamp::now())
        .unwrap();
    store
        .enqueue(&job("waiting", &["claude"], None), Timestamp::now())
        .unwrap();
    let mut cancelled = stream(&server.url, "/v1/runs/never/events", TOKEN, None);
    let mut waiting = stream(&server.url, "/v1/runs/waiting/events", TOKEN, None);
    assert_eq!(cancelled.next().unwrap().comments, ["keep-alive"]);

    store.cancel("never", None, Timestamp::now()).unwrap();
    let end = cancelled.next_event().unwrap();
    assert_eq!(end.event.as_deref(), Some("end"), "{end:?}");
    assert_eq!(end.id, None, "the end message is not a protocol event");
    let body = end.json();
    assert_eq!(body["run_id"], "never");
    assert_eq!(body["status"], "cancelled");
    assert!(cancelled.next().is_none(), "the stream ends after `end`");
    let shown = get(&server.url, "/v1/runs/never", Some(TOKEN));
    assert_eq!(shown.json()["status"], "cancelled");

    assert_eq!(waiting.next().unwrap().comments, ["keep-alive"]);
    let (status, _, stderr) = server.stop("TERM");
    assert!(status.success(), "{status:?} {stderr}");
    assert!(
        !stderr.contains("still open after the grace"),
        "an event stream held the shutdown to the grace: {stderr}"
    );
    assert!(waiting.rest().is_empty());
}

#[test]
fn a_run_whose_process_was_killed_ends_its_stream_as_abandoned() {
    let home = Home::new("0");
    let server = start(&home, &[]);
    let store = store_of(&home);
    let (_stand_in_dir, mut run, run_id) = start_live_run(&home, &store);
    let path = format!("/v1/runs/{run_id}/events");
    let mut live = stream(&server.url, &path, TOKEN, None);
    until_session(&mut live);
    // agentgate dies mid-run (its keeper ends the CLI): no `result` is written.
    run.kill().unwrap();
    run.wait().unwrap();
    let end = live.next_event().unwrap();
    assert_eq!(end.event.as_deref(), Some("end"), "{end:?}");
    assert_eq!(end.json()["status"], "abandoned", "{end:?}");
    assert_eq!(end.json()["run_id"], run_id.as_str());
    assert!(live.next().is_none());
    let lines = file_lines(&store, &run_id);
    assert!(
        !lines.iter().any(|l| l.contains("\"type\":\"result\"")),
        "{lines:?}"
    );
}
