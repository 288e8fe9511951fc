//! The CLIs' own knobs, with the REAL CLIs against `agentgate fake-llm`
//! where a CLI is involved: `--reasoning-effort` reaches Codex's request
//! (`reasoning.effort`), Claude Code's (`output_config.effort`) and Gemini
//! CLI's (`thinkingConfig`) and Qwen Code's (`reasoning_effort`, through its
//! settings), `--thinking-budget` Claude's and Gemini's
//! budget; `--max-turns` stops Claude Code after exactly N model requests
//! with error `max_turns`. With a CLI described in the config (a shell
//! line): `env_remove` keeps a provider-home variable from the child,
//! `--extra-args-mode replace` replaces the configured extra arguments,
//! and `--output text` prints the answer alone.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

/// `agentgate run --provider CLI --yolo --compact ARGS "Say hi."` in the
/// recipe's environment.
fn run_cli(client: &Client, args: &[&str]) -> (Run, Value) {
    let store = tempfile::tempdir().unwrap();
    let program = client.program.display().to_string();
    let mut cmd = client.agentgate();
    cmd.args([
        "run",
        "--provider",
        client.setup.cli.binary(),
        "--yolo",
        "--compact",
        "--binary",
        &program,
    ])
    .args(args)
    .arg("Say hi.")
    .env("AGENTGATE_HOME", store.path());
    let run = run_bounded(cmd, LIMIT);
    let env =
        last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()));
    (run, env)
}

/// The `reasoning` fields of each model request, as fake-llm logged them.
fn reasoning_sent(server: &FakeServer) -> Vec<Value> {
    server
        .turn_requests()
        .iter()
        .map(|r| r["reasoning"].clone())
        .collect()
}

const HELLO: &str = "turns:\n  - text: \"Hello.\"\n    repeat: true\n";

#[test]
fn codex_effort_in_request() {
    let server = FakeServer::start(HELLO);
    let client = Client::new(Cli::Codex, &server);
    let (run, env) = run_cli(&client, &["--reasoning-effort", "high"]);
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let sent = reasoning_sent(&server);
    assert!(!sent.is_empty(), "no model request");
    for r in &sent {
        assert_eq!(r["reasoning"]["effort"], "high", "{sent:#?}");
    }
    assert_eq!(env["effort"]["requested"], "high", "{env:#}");
    assert_eq!(env["effort"]["applied"], "high", "{env:#}");
    assert_eq!(env["effort"]["via"][0], "-c model_reasoning_effort");
    // A level off the scale is refused before anything runs.
    let bad = run_bad(&client, &["--reasoning-effort", "ultra"]);
    assert_eq!(bad.code, Some(2), "{}", bad.all_output());
    assert!(
        bad.stderr.contains("not a reasoning effort"),
        "{}",
        bad.stderr
    );
    assert_eq!(server.turn_requests().len(), sent.len());
}

#[test]
fn qwen_effort_in_request() {
    let server = FakeServer::start(HELLO);
    let client = Client::new(Cli::Qwen, &server);
    // A model Qwen Code knows to reason: its `model.reasoningEffort`
    // setting (in the run's copy of the system settings) becomes the Chat
    // Completions `reasoning_effort`; `minimal` is raised to `low`.
    let (run, env) = run_cli(
        &client,
        &["--model", "gpt-5.1", "--reasoning-effort", "minimal"],
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let sent = reasoning_sent(&server);
    assert!(!sent.is_empty(), "no model request");
    for r in &sent {
        assert_eq!(r["reasoning_effort"], "low", "{sent:#?}");
    }
    assert_eq!(env["effort"]["requested"], "minimal", "{env:#}");
    assert_eq!(env["effort"]["applied"], "low", "{env:#}");
    assert_eq!(env["effort"]["via"][0], "settings model.reasoningEffort");
    // The user's own settings file is left alone.
    let user = std::fs::read_to_string(client.setup.home.join(".qwen/settings.json")).unwrap();
    assert!(!user.contains("reasoningEffort"), "{user}");
}

/// A run expected to fail before any JSON is printed.
fn run_bad(client: &Client, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(["run", "--provider", client.setup.cli.binary(), "--no-store"])
        .args(args)
        .arg("Say hi.")
        .stdin(std::process::Stdio::null());
    run_bounded(cmd, LIMIT)
}

#[test]
fn claude_effort() {
    let server = FakeServer::start(HELLO);
    let client = Client::new(Cli::Claude, &server);
    // A model with effort: `--effort` becomes `output_config.effort`.
    let (run, env) = run_cli(
        &client,
        &["--model", "claude-opus-4-8", "--reasoning-effort", "low"],
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let sent = reasoning_sent(&server);
    assert!(
        sent.iter().any(|r| r["output_config"]["effort"] == "low"),
        "{sent:#?}"
    );
    assert_eq!(env["effort"]["applied"], "low", "{env:#}");
    assert_eq!(env["effort"]["via"][0], "--effort");
    // A model that thinks with a budget: MAX_THINKING_TOKENS sets it.
    let before = sent.len();
    let (run, env) = run_cli(
        &client,
        &["--model", "claude-sonnet-4-5", "--thinking-budget", "5000"],
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let sent = reasoning_sent(&server);
    let budgets: Vec<&Value> = sent[before..]
        .iter()
        .map(|r| &r["thinking"]["budget_tokens"])
        .collect();
    assert!(budgets.iter().any(|b| **b == 5000), "{sent:#?}");
    assert_eq!(env["effort"]["thinking_budget"], 5000, "{env:#}");
    assert_eq!(env["effort"]["via"][0], "MAX_THINKING_TOKENS");
}

#[test]
fn gemini_thinking_budget() {
    let server = FakeServer::start(HELLO);
    let client = Client::new(Cli::Gemini, &server);
    let (run, env) = run_cli(
        &client,
        &["--model", "gemini-2.5-flash", "--thinking-budget", "1234"],
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let sent = reasoning_sent(&server);
    assert!(
        sent.iter()
            .any(|r| r["thinkingConfig"]["thinkingBudget"] == 1234),
        "{sent:#?}"
    );
    assert_eq!(env["effort"]["thinking_budget"], 1234, "{env:#}");
    // An effort level becomes the budget agentgate maps it to (low: 1024).
    let before = sent.len();
    let (run, env) = run_cli(
        &client,
        &["--model", "gemini-2.5-flash", "--reasoning-effort", "low"],
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let sent = reasoning_sent(&server);
    assert!(
        sent[before..]
            .iter()
            .any(|r| r["thinkingConfig"]["thinkingBudget"] == 1024),
        "{sent:#?}"
    );
    assert_eq!(env["effort"]["applied"], "low", "{env:#}");
}

#[test]
fn claude_max_turns() {
    // The model asks for a tool every time: only the limit ends the run.
    let server = FakeServer::start(
        "turns:\n  - tool_call: {name: shell, command: \"echo again\"}\n    repeat: true\n",
    );
    let client = Client::new(Cli::Claude, &server);
    let model = client.setup.model.clone();
    let (run, env) = run_cli(&client, &["--model", &model, "--max-turns", "2"]);
    assert_eq!(env["error_type"], "max_turns", "{env:#}\n{}", run.stderr);
    assert_eq!(env["recoverable"], false, "{env:#}");
    assert_eq!(run.code, Some(1), "{env:#}");
    assert_eq!(server.turn_requests().len(), 2, "{:#?}", server.requests());
}

/// A CLI described in the config: a shell line printing whether the
/// provider-home variable reached it, and its arguments.
fn echo_config(dir: &Path) -> std::path::PathBuf {
    let config = dir.join("agentgate.yaml");
    std::fs::write(
        &config,
        r#"version: 1
providers:
  echoenv:
    command: [/bin/sh, -c, 'echo "home=${{CLAUDE_CONFIG_DIR:-unset}} keep=${{KEEP_ME:-unset}} args=$*"', sh]
    prompt: stdin
    output: text
    extra_args: [--global]
    env_remove: [CLAUDE_CONFIG_DIR]
  failing:
    command: [/bin/sh, -c, 'echo "it broke" >&2; exit 3']
    prompt: stdin
    output: text
"#,
    )
    .unwrap();
    config
}

fn run_described(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(["run", "--config"])
        .arg(echo_config(dir))
        .args(args)
        .arg("Say hi.")
        .env("AGENTGATE_HOME", dir.join("store"))
        .env("CLAUDE_CONFIG_DIR", "/somewhere/else")
        .env("KEEP_ME", "kept")
        .stdin(std::process::Stdio::null());
    run_bounded(cmd, LIMIT)
}

#[test]
fn env_remove_replace_and_text_output() {
    let dir = tempfile::tempdir().unwrap();
    // env_remove drops the provider home; other variables pass; text
    // output is the answer alone.
    let run = run_described(dir.path(), &["--provider", "echoenv", "--output", "text"]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert_eq!(run.stdout, "home=unset keep=kept args=--global\n");
    // The task's arguments follow the configured ones, or replace them.
    let run = run_described(
        dir.path(),
        &[
            "--provider",
            "echoenv",
            "--output",
            "text",
            "--extra-arg=--task",
        ],
    );
    assert_eq!(run.stdout, "home=unset keep=kept args=--global --task\n");
    let run = run_described(
        dir.path(),
        &[
            "--provider",
            "echoenv",
            "--output",
            "text",
            "--extra-arg=--task",
            "--extra-args-mode",
            "replace",
        ],
    );
    assert_eq!(run.stdout, "home=unset keep=kept args=--task\n");
    // A failure: nothing on stdout, the error on stderr, the run's code;
    // the run is recorded as usual.
    let run = run_described(dir.path(), &["--provider", "failing", "--output", "text"]);
    assert_eq!(run.stdout, "", "{}", run.all_output());
    assert!(run.stderr.contains("agentgate: "), "{}", run.stderr);
    assert!(run.stderr.contains("it broke"), "{}", run.stderr);
    assert_ne!(run.code, Some(0));
    let runs = super::support::agentgate_ok(&dir.path().join("store"), &["runs", "--json"]);
    assert!(runs.stdout.contains("failing"), "{}", runs.stdout);
}
