//! The answer in readable chunks (`run --stream --coalesce`), the text of
//! a stream cut before its final record kept in the envelope (salvage),
//! and the timeout's warnings and extension, through the binary: the real
//! Claude Code against `agentgate fake-llm`, and stand-in CLIs where the
//! behaviour is a CLI that stops early or takes its time.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::{Gate, last_json, ok};
use super::support::{FakeServer, run_bounded};

/// The events printed with `--stream`, as JSON.
fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The `answer_chunk` events' texts, in order, with their offsets checked.
fn chunks(events: &[Value]) -> Vec<String> {
    let mut offset = 0;
    let mut out = Vec::new();
    for (i, c) in events
        .iter()
        .filter(|e| e["type"] == "answer_chunk")
        .enumerate()
    {
        assert_eq!(c["index"], i as u64, "{c}");
        assert_eq!(c["offset"], offset, "{c}");
        let text = c["text"].as_str().unwrap().to_owned();
        offset += text.len() as u64;
        out.push(text);
    }
    out
}

const PARAGRAPHS: [&str; 4] = [
    "The first paragraph says what the change is about, in one sentence.",
    "The second one explains why: the old code read the file twice.",
    "The third lists the tests that cover it and how to run them.",
    "The last one says what is left to do.",
];

#[test]
fn claude_streams_its_answer_in_chunks_cut_at_paragraphs() {
    let answer = PARAGRAPHS.join("\n\n");
    let script = format!(
        "turns:\n  - match: {{contains: \"explain\"}}\n    text: {}\n    chunk_chars: 7\n",
        serde_json::to_string(&answer).unwrap()
    );
    let server = FakeServer::start(&script);
    let gate = Gate::new(Cli::Claude, &server);
    let (run, env) = gate.run(
        &[
            "--stream",
            "--coalesce",
            "paragraph",
            "--coalesce-min-interval",
            "0",
            "--coalesce-max-chars",
            "90",
        ],
        "explain the change",
    );
    ok(Cli::Claude, &run, &env["envelope"]);
    let events = events(&run.stdout);
    let response = env["envelope"]["response"].as_str().unwrap();
    assert_eq!(response, answer);
    let cut = chunks(&events);
    let chunks = cut;
    // Concatenated, the chunks are the answer; each paragraph is a chunk
    // (two would pass 90 characters), cut after its blank line.
    assert_eq!(chunks.concat(), response, "{chunks:#?}");
    assert_eq!(chunks.len(), PARAGRAPHS.len(), "{chunks:#?}");
    for (chunk, paragraph) in chunks.iter().zip(PARAGRAPHS) {
        assert!(chunk.starts_with(paragraph), "{chunks:#?}");
    }
    for chunk in &chunks[..chunks.len() - 1] {
        assert!(chunk.ends_with("\n\n"), "{chunks:#?}");
    }
    // The chunks come before the result, which stays the last event.
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.last(), Some(&"result"));
    let last_chunk = kinds.iter().rposition(|k| *k == "answer_chunk").unwrap();
    let message = kinds.iter().position(|k| *k == "message").unwrap();
    assert!(message < last_chunk, "{kinds:?}");
    // Without --coalesce, no chunk.
    let (run, _) = gate.run(&["--stream"], "explain the change");
    assert!(
        events_of(&run.stdout)
            .iter()
            .all(|e| e["type"] != "answer_chunk")
    );
}

fn events_of(stdout: &str) -> Vec<Value> {
    events(stdout)
}

/// A stand-in CLI: a shell script run with its arguments ignored.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn run_stand_in(provider: &str, binary: &Path, extra: &[&str]) -> (i32, String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(["run", "--provider", provider, "--compact", "--binary"])
        .arg(binary)
        .args(extra)
        .arg("do the task")
        .env("HOME", dir.path())
        .env("AGENTGATE_HOME", store.path())
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null());
    let run = run_bounded(cmd, Duration::from_secs(120));
    let last = last_json(&run.stdout).unwrap_or_else(|| panic!("no output:\n{}", run.all_output()));
    let env = if last["type"] == "result" {
        last["envelope"].clone()
    } else {
        last
    };
    (run.code.unwrap_or(-1), run.stdout, env)
}

/// Gemini's stream-json: an init, the answer in deltas, then (cut here)
/// no `result` record.
const GEMINI_DELTAS_NO_RESULT: &str = r#"printf '%s\n' '{"type":"init","session_id":"g-cut","model":"gemini-2.5-pro"}'
printf '%s\n' '{"type":"message","role":"assistant","content":"Half of the ","delta":true}'
printf '%s\n' '{"type":"message","role":"assistant","content":"answer.\n\nAnd more","delta":true}'
printf '%s\n' '{"type":"message","role":"assistant","content":" of it","delta":true}'
exit 0
"#;

#[test]
fn a_stream_cut_before_its_final_record_keeps_its_text_and_is_still_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let cli = script(dir.path(), "gemini", GEMINI_DELTAS_NO_RESULT);
    let (code, stdout, env) = run_stand_in(
        "gemini",
        &cli,
        &[
            "--stream",
            "--coalesce",
            "paragraph",
            "--coalesce-min-interval",
            "0",
        ],
    );
    assert_eq!(code, 75, "{env:#}");
    assert_eq!(env["error_type"], "provider_error", "{env:#}");
    assert_eq!(env["recoverable"], true);
    let said = "Half of the answer.\n\nAnd more of it";
    assert_eq!(env["response"], said, "{env:#}");
    // The chunks say the same, the first cut at the paragraph.
    let cut = chunks(&events(&stdout));
    assert_eq!(cut, ["Half of the answer.\n\n", "And more of it"]);
}

/// Claude's stream-json: an init, `n` messages `pause` seconds apart, then
/// its result.
fn slow_claude(dir: &Path, n: u32, pause: &str) -> PathBuf {
    let body = format!(
        r#"printf '%s\n' '{{"type":"system","subtype":"init","session_id":"s-slow","model":"m"}}'
i=0
while [ $i -lt {n} ]; do
  sleep {pause}
  printf '%s\n' '{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"working"}}]}},"session_id":"s-slow"}}'
  i=$((i+1))
done
printf '%s\n' '{{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s-slow"}}'
"#
    );
    script(dir, "claude", &body)
}

fn statuses<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["type"] == "status" && e["kind"] == kind)
        .collect()
}

#[test]
fn a_timeout_warns_before_it_ends_the_attempt() {
    let dir = tempfile::tempdir().unwrap();
    // Silent for 60 s: only the timeout ends it.
    let cli = slow_claude(dir.path(), 1, "60");
    let (code, stdout, env) = run_stand_in(
        "claude",
        &cli,
        &["--stream", "--timeout", "3s", "--timeout-warn", "50%"],
    );
    assert_eq!(code, 124, "{env:#}");
    assert_eq!(env["error_type"], "timeout");
    let events = events(&stdout);
    let warnings = statuses(&events, "timeout_warning");
    assert_eq!(warnings.len(), 1, "{events:#?}");
    let w = warnings[0];
    assert!(w["remaining_ms"].as_u64().unwrap() <= 1500, "{w}");
    assert!(w["deadline"].is_string(), "{w}");
    // The warning comes before the attempt's error.
    let at = |pred: &dyn Fn(&Value) -> bool| events.iter().position(pred).unwrap();
    assert!(at(&|e| e["kind"] == "timeout_warning") < at(&|e| e["type"] == "error"));
    // Without --timeout-warn (the default), no warning.
    let (code, stdout, _) = run_stand_in("claude", &cli, &["--stream", "--timeout", "2s"]);
    assert_eq!(code, 124);
    assert!(statuses(&events_of(&stdout), "timeout_warning").is_empty());
}

#[test]
fn a_cli_that_keeps_printing_outlives_its_timeout_with_extend_on_activity() {
    let dir = tempfile::tempdir().unwrap();
    // Prints every 0.3 s for about 4.5 s, then its result.
    let cli = slow_claude(dir.path(), 15, "0.3");
    let (code, stdout, env) = run_stand_in(
        "claude",
        &cli,
        &[
            "--stream",
            "--timeout",
            "2s",
            "--extend-on-activity",
            "2s",
            "--max-timeout",
            "60s",
        ],
    );
    assert_eq!(code, 0, "{env:#}");
    assert_eq!(env["response"], "done");
    let all = events(&stdout);
    let extended = statuses(&all, "timeout_extended");
    assert!(!extended.is_empty(), "no extension: {stdout}");
    for e in &extended {
        assert_eq!(e["extended_by_ms"], 2000, "{e}");
    }
    // The same CLI without the extension times out.
    let (code, _, env) = run_stand_in("claude", &cli, &["--timeout", "2s"]);
    assert_eq!(code, 124, "{env:#}");
    // And with a max_timeout below what it needs, too, saying it was extended.
    let (code, _, env) = run_stand_in(
        "claude",
        &cli,
        &[
            "--timeout",
            "1s",
            "--extend-on-activity",
            "1s",
            "--max-timeout",
            "2s",
        ],
    );
    assert_eq!(code, 124, "{env:#}");
    let message = env["error"].as_str().unwrap();
    assert!(message.contains("extended by"), "{message}");
}

#[test]
fn timeout_warnings_without_a_timeout_are_named_in_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let cli = slow_claude(dir.path(), 0, "0");
    let (_, stdout, _) = run_stand_in("claude", &cli, &["--dry-run", "--timeout-warn", "80%"]);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let warnings = report["warnings"].to_string();
    assert!(warnings.contains("timeout_warn"), "{report:#}");
    let (_, stdout, _) = run_stand_in(
        "claude",
        &cli,
        &["--dry-run", "--timeout", "1m", "--timeout-warn", "80%"],
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        !report["warnings"].to_string().contains("timeout_warn"),
        "{report:#}"
    );
}
