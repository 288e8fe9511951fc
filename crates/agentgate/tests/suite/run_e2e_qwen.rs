//! `agentgate run --provider qwen` with the REAL Qwen Code against
//! `agentgate fake-llm`: the end-to-end matrix of the other CLIs, with
//! Qwen's own usage semantics (cumulative per session, a background
//! memory-extraction request), its errors (up to 0.2x exit 0, the error
//! only in the answer; from 0.24 exit 1 with a failed `result`), its
//! permission modes, and its re-launched child process, which
//! must not outlive a stopped run.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::cli_versions::{
    qwen_api_error_exit, qwen_requests_at_a_context_overflow, qwen_retries_a_broken_stream,
};
use super::run_e2e::{self, Gate, last_json, ok};
use super::support::{Client, FakeServer, Run, run_bounded};

const QWEN: Cli = Cli::Qwen;

// ---------------------------------------------------------------- helpers

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

/// Qwen's node processes working in `dir` (the one started and the child
/// it re-launches), not agentgate or its keeper, whose argv names qwen too.
fn qwen_processes(dir: &Path) -> Vec<(u32, String)> {
    processes_in(dir)
        .into_iter()
        .filter(|(pid, cmd)| {
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
            let is_node = exe
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("node"));
            is_node && cmd.contains("qwen")
        })
        .collect()
}

/// Once `agentgate run` has returned, nothing of the run may still work in
/// its folder (the sweep of the process group is done before it returns;
/// a few seconds cover a process that is still being torn down).
fn assert_no_survivors(dir: &Path) {
    let start = Instant::now();
    loop {
        let left = processes_in(dir);
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "processes of the run survived it: {left:#?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One API call as Qwen recorded it in its session file.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    input: u64,
    output: u64,
    cached: u64,
    thoughts: u64,
    /// `managed-auto-memory-extractor` for the background request.
    subagent: Option<String>,
}

/// Every API call recorded in Qwen's session file `id`, in order: Qwen
/// keeps one `ui_telemetry` record per response, and replays them to
/// compute its cumulative `result.usage` when a session is resumed.
fn recorded_calls(home: &Path, id: &str) -> Vec<Call> {
    let projects = home.join(".qwen/projects");
    let file = std::fs::read_dir(&projects)
        .unwrap()
        .flatten()
        .map(|p| p.path().join("chats").join(format!("{id}.jsonl")))
        .find(|f| f.is_file())
        .unwrap_or_else(|| panic!("no session file {id}.jsonl under {}", projects.display()));
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["subtype"] == "ui_telemetry")
        .map(|r| r["systemPayload"]["uiEvent"].clone())
        .filter(|e| e["event.name"] == "qwen-code.api_response")
        .map(|e| Call {
            input: e["input_token_count"].as_u64().unwrap(),
            output: e["output_token_count"].as_u64().unwrap(),
            cached: e["cached_content_token_count"].as_u64().unwrap(),
            thoughts: e["thoughts_token_count"].as_u64().unwrap(),
            subagent: e["subagent_name"].as_str().map(str::to_owned),
        })
        .collect()
}

const MEMORY: &str = "managed-auto-memory-extractor";

/// A run's `tokens_used` must be exactly the calls it made: `calls` (the
/// scripted turn and the background request), nothing of earlier turns.
fn assert_tokens_are(env: &Value, calls: &[Call]) {
    let t = &env["tokens_used"];
    let input: u64 = calls.iter().map(|c| c.input).sum();
    let output: u64 = calls.iter().map(|c| c.output).sum();
    let cached: u64 = calls.iter().map(|c| c.cached).sum();
    assert_eq!(t["input_tokens"], input, "{t:#} for {calls:#?}");
    assert_eq!(t["output_tokens"], output, "{t:#} for {calls:#?}");
    assert_eq!(t["cache_read_input_tokens"], cached, "{t:#}");
    assert_eq!(t["total_tokens"], input + output, "{t:#}");
    let thoughts: u64 = calls.iter().map(|c| c.thoughts).sum();
    assert_eq!(env["reasoning_tokens"], thoughts, "{env:#}");
    assert_eq!(env["metadata"]["token_usage_available"], true);
}

/// A run with `--stream`: its envelope (from the `result` event) and the
/// `error` event, which carries what the envelope has no field for (the
/// HTTP status, the evidence).
fn run_streamed(gate: &Gate, extra: &[&str], prompt: &str) -> (Run, Value, Value) {
    let mut args = vec!["--stream"];
    args.extend_from_slice(extra);
    let run = run_bounded(gate.command(&args, prompt), Duration::from_secs(240));
    let events: Vec<Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let find = |ty: &str| {
        events
            .iter()
            .rev()
            .find(|e| e["type"] == ty)
            .cloned()
            .unwrap_or_else(|| panic!("no {ty} event:\n{}", run.all_output()))
    };
    let envelope = find("result")["envelope"].clone();
    let error = find("error");
    (run, envelope, error)
}

/// A run of a scripted error: it must end with `kind`, `recoverable` and
/// agentgate's exit code, found in Qwen's answer (Qwen itself exits 0 up
/// to 0.2x, 1 from 0.24: [`qwen_api_error_exit`]), with
/// the failed request's HTTP `status`. Qwen's own retries are bounded to
/// none (`--max-provider-retries 0`); a 429 or 5xx still costs its seven
/// unconditional attempts (about 80 s).
fn error_case(
    script_error: &str,
    kind: &str,
    recoverable: bool,
    exit: i32,
    status: u16,
) -> FakeServer {
    let server = FakeServer::start(&format!(
        "turns:\n  - repeat: true\n    error: {{{script_error}}}\n"
    ));
    let gate = Gate::new(QWEN, &server);
    let (run, env, error) = run_streamed(&gate, &["--max-provider-retries", "0"], "trigger");
    assert_eq!(
        env["error_type"], kind,
        "{script_error}: {env:#}\n{}",
        run.stderr
    );
    assert_eq!(env["recoverable"], recoverable, "{script_error}: {env:#}");
    assert_eq!(run.code, Some(exit), "{script_error}: {env:#}");
    assert_eq!(env["exit_code"], exit);
    assert!(
        env["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("[API Error:")),
        "{env:#}"
    );
    assert_eq!(
        env["attempts"][0]["exit_code"],
        qwen_api_error_exit(),
        "{env:#}"
    );
    assert_eq!(
        error["provider_status"], status,
        "{script_error}: {error:#}"
    );
    // The failure is in the answer up to 0.2x (a pattern finds it), in a
    // failed `result` from 0.24 (structured evidence).
    let evidence = if qwen_api_error_exit() == 0 {
        "pattern"
    } else {
        "structured"
    };
    assert_eq!(error["source"], evidence, "{error:#}");
    server
}

fn model_requests(server: &FakeServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r["method"] == "POST" && r.get("api").is_some())
        .count()
}

// ---------------------------------------------------------------- the matrix

#[test]
fn text_turn() {
    run_e2e::text(QWEN);
}

#[test]
fn tool_turn_reports_the_shell_tool() {
    run_e2e::tool(QWEN);
}

#[test]
fn thinking_turn_reports_reasoning() {
    run_e2e::thinking(QWEN);
}

#[test]
fn system_instructions_reach_the_model() {
    run_e2e::system(QWEN);
}

#[test]
fn the_run_is_stored() {
    run_e2e::store(QWEN);
}

/// Qwen's `result.usage` adds the memory-extraction request it sends after
/// a turn without tools; the envelope reports the scripted call plus that
/// request, as Qwen recorded them, with the reasoning tokens.
#[test]
fn usage_is_the_scripted_call_plus_the_background_request() {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"count\"}\n    text: \"Counted.\"\n    usage: {input: 1000, output: 50, cache_read: 200, cache_write: 30, reasoning: 7}\n",
    );
    let gate = Gate::new(QWEN, &server);
    let (run, env) = gate.run(&[], "Please count the tokens.");
    ok(QWEN, &run, &env);
    assert_eq!(env["response"], "Counted.");
    let calls = recorded_calls(gate.home(), env["session_id"].as_str().unwrap());
    // OpenAI counts cached input in the prompt (1000 + 200 + 30) and
    // reasoning in the output (50 + 7).
    assert_eq!(
        calls[0],
        Call {
            input: 1230,
            output: 57,
            cached: 200,
            thoughts: 7,
            subagent: None
        }
    );
    assert_eq!(calls.len(), 2, "{calls:#?}");
    assert_eq!(calls[1].subagent.as_deref(), Some(MEMORY));
    let side = server
        .requests()
        .iter()
        .filter(|r| r["side"] == "memory")
        .count();
    assert_eq!(side, 1, "one background request");
    assert_tokens_are(&env, &calls);
    // The context is the conversation's last call, not the side request.
    assert_eq!(env["context_tokens"], 1287, "{env:#}");
    // Reasoning tokens come from Qwen's session file (stream-json has none).
    assert_eq!(env["reasoning_tokens"], 7, "{env:#}");
}

/// Two runs on one `--session`, then `--resume` of its id: each reports its
/// own calls, although Qwen's totals grow over the whole session.
#[test]
fn session_resumes_by_name_and_reports_each_turn() {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"first\"}\n    text: \"One.\"\n    usage: {input: 100, output: 10}\n  - match: {contains: \"second\"}\n    repeat: true\n    text: \"Two.\"\n    usage: {input: 300, output: 20}\n",
    );
    let gate = Gate::new(QWEN, &server);
    let (run1, env1) = gate.run(&["--session", "work"], "the first turn");
    ok(QWEN, &run1, &env1);
    let id = env1["session_id"].as_str().unwrap().to_owned();
    let after1 = recorded_calls(gate.home(), &id);
    assert_tokens_are(&env1, &after1);
    assert_eq!(after1[0].input, 100);

    let (run2, env2) = gate.run(&["--session", "work"], "the second turn");
    ok(QWEN, &run2, &env2);
    assert_eq!(env2["response"], "Two.");
    assert_eq!(
        env2["session_id"], env1["session_id"],
        "the session changed"
    );
    assert_eq!(env2["session_recreated"], false);
    let after2 = recorded_calls(gate.home(), &id);
    let turn2 = &after2[after1.len()..];
    assert_eq!(turn2[0].input, 300, "{turn2:#?}");
    assert!(turn2.iter().any(|c| c.subagent.as_deref() == Some(MEMORY)));
    assert_tokens_are(&env2, turn2);
    // The second request carried the first turn.
    let texts = server.last_turn_texts();
    assert!(
        texts.iter().any(|t| t.contains("the first turn")),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("One.")), "{texts:?}");

    // --resume takes the native id directly; the store still knows the
    // session's totals by that id.
    let (run3, env3) = gate.run(&["--resume", &id], "the second turn again");
    ok(QWEN, &run3, &env3);
    assert_eq!(env3["session_id"], env1["session_id"]);
    let after3 = recorded_calls(gate.home(), &id);
    assert_tokens_are(&env3, &after3[after2.len()..]);
}

/// Qwen forgot the session (its `~/.qwen/projects` was wiped): the run
/// starts a new one, once, and says so.
#[test]
fn vanished_session_is_recreated_once() {
    let server = FakeServer::start("turns:\n  - text: \"Fresh answer.\"\n    repeat: true\n");
    let gate = Gate::new(QWEN, &server);
    let (run1, env1) = gate.run(&["--session", "gone"], "hello");
    ok(QWEN, &run1, &env1);
    let projects = gate.home().join(".qwen/projects");
    assert!(projects.is_dir(), "Qwen keeps its sessions elsewhere");
    std::fs::remove_dir_all(&projects).unwrap();
    let (run2, env2) = gate.run(&["--session", "gone"], "hello again");
    assert_eq!(run2.code, Some(0), "{env2:#}\n{}", run2.stderr);
    assert_eq!(env2["session_recreated"], true, "{env2:#}");
    assert_eq!(env2["response"], "Fresh answer.");
    assert_ne!(env1["session_id"], env2["session_id"]);
    let attempts = env2["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    assert_eq!(attempts[0]["error_type"], "invalid_session");
    assert!(
        attempts[0]["error"]
            .as_str()
            .unwrap()
            .contains("No saved session found"),
        "{attempts:#?}"
    );
}

/// `--add-dir` becomes `--include-directories`: Qwen tells the model about
/// the extra folder.
#[test]
fn extra_directories_reach_the_workspace() {
    let server = FakeServer::start("turns:\n  - text: \"Seen.\"\n    repeat: true\n");
    let gate = Gate::new(QWEN, &server);
    let extra = tempfile::tempdir().unwrap();
    let extra_dir = extra.path().canonicalize().unwrap();
    let (run, env) = gate.run(&["--add-dir", extra_dir.to_str().unwrap()], "hello");
    ok(QWEN, &run, &env);
    let first = server.turn_requests().remove(0);
    let mentions = first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["text"].as_str())
        .any(|t| t.contains(extra_dir.to_str().unwrap()));
    assert!(mentions, "{first:#}");
}

/// The permission modes decide which tools Qwen declares: none that change
/// anything by default, edits with acceptEdits, everything with bypass.
#[test]
fn permission_modes_decide_the_declared_tools() {
    let server = FakeServer::start("turns:\n  - text: \"Fine.\"\n    repeat: true\n");
    let client = Client::new(QWEN, &server);
    let store = tempfile::tempdir().unwrap();
    let mut declared = Vec::new();
    for mode in ["default", "acceptEdits", "bypass"] {
        let before = server.turn_requests().len();
        let mut cmd = client.agentgate();
        cmd.args([
            "run",
            "--provider",
            "qwen",
            "--compact",
            "--permission-mode",
            mode,
        ])
        .arg("--binary")
        .arg(&client.program)
        .arg("hello")
        .env("AGENTGATE_HOME", store.path());
        let run = run_bounded(cmd, Duration::from_secs(180));
        let env = last_json(&run.stdout).unwrap();
        ok(QWEN, &run, &env);
        let request = server.turn_requests().remove(before);
        let tools: Vec<String> = request["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect();
        declared.push(tools);
    }
    let has = |tools: &[String], name: &str| tools.iter().any(|t| t == name);
    assert!(!has(&declared[0], "write_file") && !has(&declared[0], "run_shell_command"));
    assert!(has(&declared[1], "write_file") && has(&declared[1], "edit"));
    assert!(!has(&declared[1], "run_shell_command"));
    assert!(has(&declared[2], "write_file") && has(&declared[2], "run_shell_command"));
}

// ---------------------------------------------------------------- errors

/// A 429: Qwen retries it seven times whatever agentgate says, but no more:
/// `--max-provider-retries 0` overrides the user's `maxRetries: 3` (which
/// would multiply the requests and add minute-long waits).
#[test]
fn error_rate_limit() {
    let server = FakeServer::start("turns:\n  - repeat: true\n    error: {kind: rate_limit}\n");
    let gate = Gate::new(QWEN, &server);
    let settings = gate.home().join(".qwen/settings.json");
    let mut user: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    user["model"]["generationConfig"]["maxRetries"] = 3.into();
    std::fs::write(&settings, user.to_string()).unwrap();
    let (run, env, error) = run_streamed(&gate, &["--max-provider-retries", "0"], "trigger");
    assert_eq!(env["error_type"], "rate_limit", "{env:#}\n{}", run.stderr);
    assert_eq!(env["recoverable"], true);
    assert_eq!(run.code, Some(75));
    assert_eq!(error["provider_status"], 429, "{error:#}");
    assert_eq!(env["attempts"][0]["exit_code"], qwen_api_error_exit());
    assert_eq!(model_requests(&server), 7, "{:#?}", server.requests());
    // The user's settings file is left as it was.
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(after, user);
}

#[test]
fn error_insufficient_quota() {
    error_case("kind: insufficient_quota", "quota", true, 75, 429);
}

#[test]
fn error_overloaded() {
    error_case("kind: overloaded", "overloaded", true, 75, 503);
}

/// The errors Qwen does not retry: one request each (a context overflow
/// two before 0.24: Qwen compressed the conversation and tried once more; an invalid
/// model two: agentgate retries once without `--model`, and the script
/// rejects that too).
#[test]
fn errors_that_fail_at_once() {
    for (script, kind, recoverable, exit, status, requests) in [
        ("kind: auth", "auth", false, 1, 401, 1),
        ("kind: invalid_model", "invalid_model", true, 75, 404, 2),
        (
            "kind: invalid_model, status: 400",
            "invalid_model",
            true,
            75,
            400,
            2,
        ),
        (
            "kind: context_too_long",
            "context_overflow",
            false,
            1,
            400,
            qwen_requests_at_a_context_overflow(),
        ),
    ] {
        let server = error_case(script, kind, recoverable, exit, status);
        assert_eq!(model_requests(&server), requests, "{script}");
    }
}

/// A cut stream is a `network` error. Qwen Code 0.24 first asks again
/// (twice) with a retry that names no cause: `--max-provider-retries 0`
/// stops it at the first as a recoverable `provider_error`, and without
/// the flag its report of the cut decides.
#[test]
fn a_cut_stream_is_a_network_error() {
    let server = FakeServer::start(
        "turns:\n  - repeat: true\n    text: [partial, never-sent]\n    fail: mid_stream\n",
    );
    let gate = Gate::new(QWEN, &server);
    let (run, env) = gate.run(&["--max-provider-retries", "0"], "trigger");
    assert_eq!(run.code, Some(75), "{env:#}\n{}", run.stderr);
    assert_eq!(env["recoverable"], true);
    if !qwen_retries_a_broken_stream() {
        assert_eq!(env["error_type"], "network", "{env:#}\n{}", run.stderr);
        return;
    }
    assert_eq!(env["error_type"], "provider_error", "{env:#}");
    let error = env["error"].as_str().unwrap();
    assert!(error.starts_with("stopped qwen after 1 retries"), "{error}");
    let before = model_requests(&server);
    let (run, env) = gate.run(&[], "trigger");
    assert_eq!(env["error_type"], "network", "{env:#}\n{}", run.stderr);
    assert_eq!(run.code, Some(75));
    assert_eq!(
        model_requests(&server) - before,
        3,
        "{:#?}",
        server.requests()
    );
}

/// Without a usable API key Qwen exits 1 before it reaches the model.
#[test]
fn no_credentials_is_credential_unavailable() {
    let server = FakeServer::start("turns:\n  - text: \"unused\"\n");
    let gate = Gate::new(QWEN, &server);
    let (run, env) = gate.run(&["--env", "OPENAI_API_KEY="], "hello");
    assert_eq!(
        env["error_type"], "credential_unavailable",
        "{env:#}\n{}",
        run.stderr
    );
    assert_eq!(env["attempts"][0]["exit_code"], 1);
    assert_eq!(run.code, Some(75));
    assert_eq!(model_requests(&server), 0);
}

// ---------------------------------------------------------------- stopping

/// The wall clock and the idle watchdog stop Qwen and the child it
/// re-launched.
#[test]
fn hangs_end_at_the_timeouts_and_leave_no_process() {
    let server = FakeServer::start("turns:\n  - hang: true\n    repeat: true\n");
    let gate = Gate::new(QWEN, &server);
    let (run, env) = gate.run(&["--timeout", "10s"], "hang please");
    assert_eq!(run.code, Some(124), "{env:#}");
    assert_eq!(env["error_type"], "timeout");
    assert!(
        !server.turn_requests().is_empty(),
        "Qwen never reached the model"
    );
    assert_no_survivors(gate.workdir());
    let (run, env) = gate.run(&["--idle-timeout", "5s"], "hang please");
    assert_eq!(run.code, Some(124), "{env:#}");
    assert_eq!(env["error_type"], "idle_timeout");
    assert_no_survivors(gate.workdir());
}

/// SIGINT to agentgate while Qwen (two node processes) waits for the model:
/// the run ends with 130 and neither process survives.
#[test]
fn sigint_cancels_with_130_and_leaves_no_process() {
    let server = FakeServer::start("turns:\n  - hang: true\n    repeat: true\n");
    let gate = Gate::new(QWEN, &server);
    let mut cmd = gate.command(&[], "hang please");
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    let start = Instant::now();
    while server.turn_requests().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "qwen never reached the model"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let running = qwen_processes(gate.workdir());
    assert!(
        running.len() >= 2,
        "Qwen runs as a node process and its re-launched child: {running:#?}"
    );
    Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let env = last_json(&stdout).unwrap_or_else(|| panic!("no envelope: {stdout}"));
    assert_eq!(out.status.code(), Some(130), "{env:#}");
    assert_eq!(env["error_type"], "cancelled");
    assert_no_survivors(gate.workdir());
}
