//! `agentgate run --provider opencode` with the REAL opencode against
//! `agentgate fake-llm`: the end-to-end matrix of the other CLIs (the
//! recipe's config names the model `fake/fake-model`, so runs pass no
//! `--model`), plus what is opencode's own: usage reported per step and
//! added up, no hidden title request, permission modes through its
//! `permission` config and its `plan` agent, its model names, its retries
//! (seen only in its error log) stopped by `--max-provider-retries`, and
//! its sessions in an SQLite database that can vanish.

use std::path::Path;
use std::time::{Duration, Instant};

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::{self, Gate, last_json, ok};
use super::support::{Client, FakeServer, Run, run_bounded};

const OPENCODE: Cli = Cli::Opencode;
const LIMIT: Duration = Duration::from_secs(180);

// ---------------------------------------------------------------- helpers

/// `agentgate run --provider opencode` without `--yolo` (which [`Gate`]
/// always passes): for the permission modes.
struct Moded {
    client: Client,
    store: tempfile::TempDir,
}

impl Moded {
    fn new(server: &FakeServer) -> Moded {
        Moded {
            client: Client::new(OPENCODE, server),
            store: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, extra: &[&str], prompt: &str) -> (Run, Value) {
        let mut cmd = self.client.agentgate();
        cmd.args(["run", "--provider", "opencode", "--compact"])
            .arg("--binary")
            .arg(&self.client.program)
            .args(extra)
            .arg(prompt)
            .env("AGENTGATE_HOME", self.store.path());
        let run = run_bounded(cmd, LIMIT);
        let env = last_json(&run.stdout)
            .unwrap_or_else(|| panic!("no envelope on stdout:\n{}", run.all_output()));
        (run, envelope(env))
    }

    fn workdir(&self) -> &Path {
        &self.client.setup.workdir
    }
}

/// The envelope, also from `--stream` output (whose last line is the
/// `result` event carrying it).
fn envelope(last: Value) -> Value {
    if last["type"] == "result" {
        last["envelope"].clone()
    } else {
        last
    }
}

/// The tools each model request declared.
fn declared_tools(server: &FakeServer) -> Vec<Vec<String>> {
    server
        .turn_requests()
        .iter()
        .map(|r| {
            r["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

/// The pids and command lines of the processes working in `dir`.
fn processes_in(dir: &Path) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd == dir) {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
        }
    }
    found
}

/// Once `agentgate run` has returned, nothing of the run may still work in
/// its folder (a few seconds cover a process still being torn down).
fn assert_no_survivors(dir: &Path) {
    let start = Instant::now();
    loop {
        let left = processes_in(dir);
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "processes outlived the run: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ----------------------------------------------- opencode's own variants

/// Every model request is the turn's: `--title ""` spares the title
/// request, whose tokens opencode would report nowhere.
fn text_without_a_title_request() {
    run_e2e::text(OPENCODE);
    let server = FakeServer::start("turns:\n  - text: \"Hi.\"\n");
    let gate = Gate::new(OPENCODE, &server);
    let (run, env) = gate.run(&[], "hello there");
    ok(OPENCODE, &run, &env);
    let posts: Vec<Value> = server
        .requests()
        .into_iter()
        .filter(|r| r["method"] == "POST")
        .collect();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert!(
        posts[0].get("side").is_none_or(Value::is_null),
        "{posts:#?}"
    );
}

/// Two steps, each with its own figures: the envelope has their sum and the
/// context of the last.
fn steps_add_up() {
    let server = FakeServer::start(
        r#"turns:
  - match: {contains: "marker", tool_result: false}
    tool_call: {name: shell, command: "echo agentgate > marker.txt"}
    usage: {input: 500, output: 20, cache_read: 100, reasoning: 3}
    thinking: "Shell first."
  - match: {tool_result: true}
    text: "Marker written."
    usage: {input: 1000, output: 50, cache_read: 200, cache_write: 30, reasoning: 7}
"#,
    );
    let gate = Gate::new(OPENCODE, &server);
    let (run, env) = gate.run(&["--stream"], "Please create the marker file.");
    let env = envelope(env);
    ok(OPENCODE, &run, &env);
    let t = &env["tokens_used"];
    // Step 1: 600 in (100 cached), 23 out (3 reasoning); step 2: 1230 in
    // (200 cached; the Chat API has no cache-write figure), 57 out (7).
    assert_eq!(t["input_tokens"], 600 + 1230, "{t:#}");
    assert_eq!(t["cache_read_input_tokens"], 300, "{t:#}");
    assert_eq!(t["output_tokens"], 23 + 57, "{t:#}");
    assert_eq!(t["total_tokens"], 1910, "{t:#}");
    assert_eq!(env["reasoning_tokens"], 10);
    assert_eq!(env["context_tokens"], 1287);
    // One usage event per step, then the attempt's total.
    let usage: Vec<Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "usage")
        .collect();
    let scopes: Vec<&str> = usage.iter().map(|e| e["scope"].as_str().unwrap()).collect();
    assert_eq!(scopes, ["turn", "turn", "total"], "{usage:#?}");
}

/// The CLI forgot the session (its database is gone): the run starts a new
/// one, once, and says so.
fn vanished_session() {
    let server = FakeServer::start("turns:\n  - text: \"Fresh answer.\"\n    repeat: true\n");
    let gate = Gate::new(OPENCODE, &server);
    let (run1, env1) = gate.run(&["--session", "gone"], "hello");
    ok(OPENCODE, &run1, &env1);
    let data = gate.home().join(".local/share/opencode");
    assert!(data.join("opencode.db").exists(), "no session database");
    std::fs::remove_dir_all(&data).unwrap();
    let (run2, env2) = gate.run(&["--session", "gone"], "hello again");
    assert_eq!(run2.code, Some(0), "{env2:#}\n{}", run2.stderr);
    assert_eq!(env2["session_recreated"], true, "{env2:#}");
    assert_eq!(env2["response"], "Fresh answer.");
    assert_ne!(env1["session_id"], env2["session_id"]);
    let attempts = env2["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    assert_eq!(attempts[0]["error_type"], "invalid_session");
    assert_eq!(attempts[0]["error"], "Session not found");
}

/// `--resume` of an id opencode never had: `invalid_session`, not retried.
fn unknown_resume_id() {
    let server = FakeServer::start("turns:\n  - text: \"never\"\n    repeat: true\n");
    let gate = Gate::new(OPENCODE, &server);
    let (run, env) = gate.run(&["--resume", "ses_0000000000000000000000000"], "hi");
    assert_eq!(run.code, Some(1), "{env:#}");
    assert_eq!(env["error_type"], "invalid_session", "{env:#}");
    assert_eq!(env["recoverable"], false);
    assert!(server.turn_requests().is_empty());
}

/// `--model` is opencode's `provider/model`; one its config does not know
/// is `invalid_model` in opencode's own words (its stdout only says
/// "Unexpected server error").
fn models() {
    let server = FakeServer::start("turns:\n  - text: \"Model ok.\"\n    repeat: true\n");
    let gate = Gate::new(OPENCODE, &server);
    let (run, env) = gate.run(&["--model", "fake/fake-model"], "hi");
    ok(OPENCODE, &run, &env);
    assert_eq!(env["response"], "Model ok.");
    assert_eq!(env["model"], "fake/fake-model");
    assert_eq!(server.turn_requests()[0]["model"], "fake-model");
    // An unknown model is retried once without one: opencode's own default.
    let (run, env) = gate.run(&["--model", "nope/x"], "hi");
    assert_eq!(run.code, Some(0), "{env:#}");
    assert_eq!(env["response"], "Model ok.");
    let first = &env["attempts"][0];
    assert_eq!(first["error_type"], "invalid_model", "{env:#}");
    let error = first["error"].as_str().unwrap();
    assert!(error.starts_with("Model not found: nope/x"), "{error}");
    let note = env["model_resolution"].as_str().unwrap();
    assert!(
        note.contains("'nope/x' was rejected") && note.contains("own default"),
        "{note}"
    );
}

/// opencode retries a 429 five times, waiting as `retry-after` says, and
/// says so only in its error log: `--max-provider-retries 0` stops it at the
/// first failure instead of five 30-second waits.
fn retries_are_stopped() {
    let server = FakeServer::start(
        "turns:\n  - repeat: true\n    error: {kind: rate_limit, retry_after: 30}\n",
    );
    let gate = Gate::new(OPENCODE, &server);
    let (run, env) = gate.run(&["--max-provider-retries", "0", "--stream"], "trigger");
    let env = envelope(env);
    assert_eq!(env["error_type"], "rate_limit", "{env:#}\n{}", run.stderr);
    assert_eq!(run.code, Some(75));
    let error = env["error"].as_str().unwrap();
    assert!(error.contains("--max-provider-retries 0"), "{error}");
    assert!(error.contains("Rate limit reached"), "{error}");
    assert_eq!(server.turn_requests().len(), 1, "opencode retried");
    assert!(
        run.stdout.contains(r#""kind":"retry""#),
        "no retry event: {}",
        run.stdout
    );
    assert_no_survivors(gate.workdir());
}

const TOOL_SCRIPT: &str = r#"turns:
  - match: {contains: "marker", tool_result: false}
    text: "Running it."
    tool_call: {name: shell, command: "echo agentgate > marker.txt"}
  - match: {tool_result: true}
    text: "Marker written."
"#;

/// `default`: commands need approval, so an unattended run refuses them;
/// opencode stops at the refusal without an answer.
fn default_mode_refuses_commands() {
    let server = FakeServer::start(TOOL_SCRIPT);
    let gate = Moded::new(&server);
    let (run, env) = gate.run(&["--stream"], "Please create the marker file.");
    // opencode stops at the refusal without a step that ends the turn: no
    // answer, a recoverable failure (a chain moves on) that names it.
    assert_eq!(run.code, Some(75), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "provider_error", "{env:#}");
    assert_eq!(env["recoverable"], true, "{env:#}");
    let error = env["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("without a `step_finish` record that ends the turn")
            && error.contains("permission requested: bash"),
        "{error}"
    );
    assert!(!gate.workdir().join("marker.txt").exists());
    let tools = &env["metadata"]["tool_activity"];
    assert_eq!(
        (tools["call_count"].as_u64(), tools["error_count"].as_u64()),
        (Some(1), Some(1)),
        "{tools:#}"
    );
    assert!(
        run.stdout.contains("permission requested: bash"),
        "no notice of the refusal: {}",
        run.stdout
    );
    // opencode ends the turn at the refusal.
    assert_eq!(server.turn_requests().len(), 1);
    assert_eq!(env["response"], "Running it.");
}

/// `acceptEdits`: a file edit goes through, a command is refused (and
/// opencode stops there, without an answer).
fn accept_edits_allows_edits_only() {
    let server = FakeServer::start(
        r#"turns:
  - match: {contains: "notes", tool_result: false}
    tool_call: {name: write, args: {filePath: "notes.txt", content: "hi\n"}}
  - match: {tool_result: true}
    times: 1
    tool_call: {name: shell, command: "echo agentgate > marker.txt"}
  - match: {tool_result: true}
    text: "Done."
"#,
    );
    let gate = Moded::new(&server);
    let (run, env) = gate.run(&["--permission-mode", "acceptEdits"], "Write the notes.");
    // The refused command ends opencode's turn early: no answer, a
    // recoverable failure; the edit made before it stays.
    assert_eq!(run.code, Some(75), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "provider_error", "{env:#}");
    assert!(
        env["error"]
            .as_str()
            .is_some_and(|e| e.contains("permission requested: bash")),
        "{env:#}"
    );
    assert_eq!(
        std::fs::read_to_string(gate.workdir().join("notes.txt")).unwrap(),
        "hi\n"
    );
    assert!(!gate.workdir().join("marker.txt").exists());
    let tools = &env["metadata"]["tool_activity"];
    assert_eq!(tools["call_count"], 2, "{tools:#}");
    assert_eq!(tools["write_count"], 1, "{tools:#}");
    assert_eq!(tools["error_count"], 1, "{tools:#}");
}

/// `plan`: opencode's read-only `plan` agent, with neither edit nor shell
/// tools offered to the model.
fn plan_mode_offers_no_edit_or_shell_tools() {
    let server =
        FakeServer::start("turns:\n  - match: {contains: \"Plan Mode\"}\n    text: \"A plan.\"\n");
    let gate = Moded::new(&server);
    let (run, env) = gate.run(&["--permission-mode", "plan"], "What would you change?");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(
        env["response"], "A plan.",
        "the plan agent's reminder is missing"
    );
    let tools = declared_tools(&server);
    assert_eq!(tools.len(), 1);
    for t in ["bash", "edit", "write"] {
        assert!(!tools[0].iter().any(|x| x == t), "{t} offered: {tools:?}");
    }
    assert!(tools[0].iter().any(|x| x == "read"), "{tools:?}");
}

/// Bypass (`--yolo`) offers the shell and runs it: the common tool case.
fn bypass_runs_commands() {
    run_e2e::tool(OPENCODE);
}

/// Cancelling and timing out leave nothing of opencode running.
fn stops_leave_no_survivors() {
    run_e2e::sigint(OPENCODE);
    let server = FakeServer::start("turns:\n  - hang: true\n    repeat: true\n");
    let gate = Gate::new(OPENCODE, &server);
    let (run, env) = gate.run(&["--timeout", "6s"], "hang please");
    assert_eq!(run.code, Some(124), "{env:#}");
    assert_eq!(env["error_type"], "timeout");
    assert_no_survivors(gate.workdir());
}

/// opencode (a Bun executable) unpacks an 11 MB library into its temp
/// folder at every start and leaves it there: the run gives it a temp
/// folder of its own and removes it, so the temp folder agentgate was
/// given is as empty after the run as before.
#[test]
fn a_run_leaves_nothing_in_the_temp_folder() {
    let server = FakeServer::start("turns:\n  - text: \"Hi.\"\n");
    let mut moded = Moded::new(&server);
    let tmp = tempfile::tempdir().unwrap();
    let tmp_path = tmp.path().display().to_string();
    moded.client.setup.env.retain(|(k, _)| k != "TMPDIR");
    moded.client.setup.env.push(("TMPDIR".into(), tmp_path));
    let (run, env) = moded.run(&["--no-store", "--permission-mode", "bypass"], "hello");
    ok(OPENCODE, &run, &env);
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left in the temp folder: {left:?}");
}

#[test]
fn text_turn() {
    text_without_a_title_request()
}
#[test]
fn tool_turn_reports_the_shell_tool() {
    bypass_runs_commands()
}
#[test]
fn thinking_turn_reports_reasoning() {
    run_e2e::thinking(OPENCODE)
}
#[test]
fn system_instructions_reach_the_model() {
    run_e2e::system(OPENCODE)
}
#[test]
fn usage_is_what_the_script_declared() {
    run_e2e::usage(OPENCODE)
}
#[test]
fn usage_of_every_step_adds_up() {
    steps_add_up()
}
#[test]
fn session_resumes_by_name() {
    run_e2e::session(OPENCODE)
}
#[test]
fn vanished_session_is_recreated_once() {
    vanished_session()
}
#[test]
fn an_unknown_resume_id_is_an_invalid_session() {
    unknown_resume_id()
}
#[test]
fn provider_errors_are_typed() {
    run_e2e::errors(OPENCODE)
}
#[test]
fn server_errors_and_context_overflow_are_typed() {
    // A 500 is retried five times (at once: `retry_after: 0`), then fails
    // with its status.
    let server = FakeServer::start(
        "turns:\n  - repeat: true\n    error: {kind: server_error, retry_after: 0}\n",
    );
    let gate = Gate::new(OPENCODE, &server);
    let (run, env) = gate.run(&[], "trigger");
    assert_eq!(
        env["error_type"], "provider_error",
        "{env:#}\n{}",
        run.stderr
    );
    assert_eq!(
        (run.code, env["recoverable"].as_bool()),
        (Some(75), Some(true))
    );
    assert_eq!(server.turn_requests().len(), 6, "opencode's own retries");
    // A context overflow is not retried.
    run_e2e::error_case(
        OPENCODE,
        "kind: context_too_long",
        "context_overflow",
        false,
        1,
    );
}
#[test]
fn models_are_provider_slash_model() {
    models()
}
#[test]
fn internal_retries_are_stopped() {
    retries_are_stopped()
}
#[test]
fn hangs_end_at_the_timeouts() {
    run_e2e::timeout(OPENCODE)
}
#[test]
fn sigint_cancels_with_130_and_nothing_survives() {
    stops_leave_no_survivors()
}
#[test]
fn the_run_is_stored() {
    run_e2e::store(OPENCODE)
}
#[test]
fn default_permission_mode_refuses_commands() {
    default_mode_refuses_commands()
}
#[test]
fn accept_edits_mode_allows_edits_only() {
    accept_edits_allows_edits_only()
}
#[test]
fn plan_mode_is_read_only() {
    plan_mode_offers_no_edit_or_shell_tools()
}
