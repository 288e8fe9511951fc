//! `agentgate run --permission-mode ask` with the REAL CLIs against
//! `agentgate fake-llm`: the CLI asks before each tool call, the config's
//! `approvals:` policy (reads allowed, everything else denied) answers,
//! each request and decision is an event on `--stream` with the rule that
//! decided, the envelope counts them, and the refused write leaves no
//! file.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::cli_versions::qwen_stops_at_a_refusal;
use super::support::{Client, FakeServer, run_bounded};

const CONFIG: &str = "version: 1
approvals:
  default: deny
  rules:
    - class: read
      decision: allow
    - command: \"cat *\"
      decision: allow
";

/// A read of `input.txt`, then a write of `denied.txt`, each a tool call
/// of `cli`: in `target` (a folder outside the CLI's) where the CLI asks
/// about such paths, else relative (Gemini refuses paths outside its
/// folder without asking; Codex's calls are shell commands).
fn script(cli: Cli, target: &Path) -> String {
    let t = target.display();
    let (read, write) = match cli {
        Cli::Claude => (
            format!("{{name: Read, args: {{file_path: \"{t}/input.txt\"}}}}"),
            format!("{{name: Write, args: {{file_path: \"{t}/denied.txt\", content: \"no\"}}}}"),
        ),
        Cli::Codex => (
            "{name: shell, command: \"cat input.txt\"}".to_owned(),
            "{name: shell, command: \"echo hi > denied.txt\"}".to_owned(),
        ),
        // opencode asks about a path outside its folder first, apart; it
        // reads without asking.
        Cli::Opencode => (
            "{name: read, args: {filePath: \"input.txt\"}}".to_owned(),
            "{name: write, args: {filePath: \"denied.txt\", content: \"no\"}}".to_owned(),
        ),
        Cli::Gemini => (
            "{name: read_file, args: {file_path: \"input.txt\"}}".to_owned(),
            "{name: write_file, args: {file_path: \"denied.txt\", content: \"no\"}}".to_owned(),
        ),
        _ => (
            format!("{{name: read_file, args: {{file_path: \"{t}/input.txt\"}}}}"),
            format!(
                "{{name: write_file, args: {{file_path: \"{t}/denied.txt\", content: \"no\"}}}}"
            ),
        ),
    };
    format!(
        "turns:\n  - match: {{contains: \"READ\"}}\n    times: 1\n    tool_call: {read}\n  - match: {{tool_result: true}}\n    times: 1\n    tool_call: {write}\n  - match: {{tool_result: true}}\n    text: \"done\"\n"
    )
}

fn reads_allowed_writes_refused(cli: Cli) {
    let target = tempfile::tempdir().unwrap();
    let server = FakeServer::start(&script(cli, target.path()));
    let client = Client::new(cli, &server);
    let dir = client.setup.workdir.clone();
    for d in [target.path(), dir.as_path()] {
        std::fs::write(d.join("input.txt"), "the input\n").unwrap();
    }
    let config = tempfile::tempdir().unwrap();
    let config_file = config.path().join("agentgate.yaml");
    std::fs::write(&config_file, CONFIG).unwrap();
    let store = tempfile::tempdir().unwrap();

    let mut cmd = client.agentgate();
    cmd.args([
        "run",
        "--provider",
        cli.binary(),
        "--permission-mode",
        "ask",
        "--stream",
    ])
    .arg("--config")
    .arg(&config_file)
    .arg("--binary")
    .arg(&client.program);
    match cli {
        Cli::Codex => cmd.args(["--model", "agentgate-fake-model"]),
        Cli::Opencode => cmd.args(["--model", &format!("fake/{}", client.setup.model)]),
        _ => cmd.args(["--model", &client.setup.model]),
    };
    cmd.arg("please READ then write")
        .env("AGENTGATE_HOME", store.path())
        .current_dir(&dir)
        .stdin(Stdio::null());
    let run = run_bounded(cmd, Duration::from_secs(180));
    let events: Vec<Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let context = format!("{cli}: {}\n{events:#?}", run.all_output());
    let env = events
        .iter()
        .rev()
        .find(|e| e["type"] == "result")
        .map(|e| e["envelope"].clone())
        .unwrap_or_else(|| panic!("no result event: {context}"));
    let requests: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "approval_request")
        .collect();
    let decisions: Vec<(String, String, String, String)> = events
        .iter()
        .filter(|e| e["type"] == "approval_decision")
        .map(|e| {
            let request = requests
                .iter()
                .find(|r| r["request_id"] == e["request_id"])
                .unwrap_or_else(|| panic!("a decision of no request: {context}"));
            let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
            (
                text(&request["class"]),
                text(&e["decision"]),
                text(&e["by"]),
                text(&e["rule"]),
            )
        })
        .collect();
    assert_eq!(run.code, Some(0), "{context}");
    // opencode and Qwen Code 0.24 end their turn when a permission is
    // refused, without asking the model again; the others go on to the
    // scripted answer.
    let stops = cli == Cli::Opencode || (cli == Cli::Qwen && qwen_stops_at_a_refusal());
    let answer = if stops { "" } else { "done" };
    assert_eq!(env["response"], answer, "{context}");
    assert_eq!(decisions.len(), requests.len(), "{context}");
    // The write was asked about and refused by the default; what the CLI
    // asked about its read (a read, or Codex's `cat`) was allowed by a rule.
    let denied: Vec<&(String, String, String, String)> =
        decisions.iter().filter(|d| d.1 == "deny").collect();
    assert_eq!(denied.len(), 1, "{context}");
    assert!(
        matches!(denied[0].0.as_str(), "write" | "shell"),
        "{context}"
    );
    assert_eq!(
        (denied[0].2.as_str(), denied[0].3.as_str()),
        ("policy", "default"),
        "{context}"
    );
    for allowed in decisions.iter().filter(|d| d.1 != "deny") {
        assert_eq!(allowed.1, "allow", "{context}");
        assert!(allowed.3.starts_with("approvals.rules["), "{context}");
    }
    let counts = &env["approvals"];
    assert_eq!(counts["requested"], requests.len(), "{context}");
    assert_eq!(counts["denied"], 1, "{context}");
    assert_eq!(counts["allowed"], requests.len() - 1, "{context}");
    for d in [target.path(), dir.as_path()] {
        assert!(!d.join("denied.txt").exists(), "{context}");
    }
    // The read ran: its output reached the model.
    assert!(
        server
            .turn_requests()
            .iter()
            .any(|r| r.to_string().contains("the input")),
        "{context}"
    );
}

#[test]
fn claude_asks_and_the_policy_answers() {
    reads_allowed_writes_refused(Cli::Claude);
}

#[test]
fn codex_asks_and_the_policy_answers() {
    reads_allowed_writes_refused(Cli::Codex);
}

#[test]
fn gemini_asks_and_the_policy_answers() {
    reads_allowed_writes_refused(Cli::Gemini);
}

#[test]
fn qwen_asks_and_the_policy_answers() {
    reads_allowed_writes_refused(Cli::Qwen);
}

#[test]
fn opencode_asks_and_the_policy_answers() {
    reads_allowed_writes_refused(Cli::Opencode);
}

/// A CLI with no long-lived mode agentgate drives cannot ask: the run is
/// refused before any process starts, saying which CLIs can.
#[test]
fn a_cli_without_a_long_lived_mode_cannot_ask() {
    let store = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args([
        "run",
        "--provider",
        "cursor",
        "--binary",
        "/bin/true",
        "--permission-mode",
        "ask",
        "--compact",
        "hello",
    ])
    .env("AGENTGATE_HOME", store.path())
    .stdin(Stdio::null());
    let run = run_bounded(cmd, Duration::from_secs(60));
    let env: Value = run
        .stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no envelope: {}", run.all_output()));
    assert_eq!(env["error_type"], "invalid_input", "{env:#}");
    assert!(
        env["error"]
            .as_str()
            .is_some_and(|e| e.contains("cursor cannot ask for permission")),
        "{env:#}"
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
}

/// `--dry-run` shows the command line that mode `ask` runs: the CLI's
/// long-lived one, asking on stdio.
#[test]
fn a_dry_run_in_ask_mode_shows_the_long_lived_command() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args([
        "run",
        "--dry-run",
        "--provider",
        "claude",
        "--binary",
        "/bin/true",
        "--permission-mode",
        "ask",
        "hello",
    ])
    .stdin(Stdio::null());
    let run = run_bounded(cmd, Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let argv = report.to_string();
    assert!(
        argv.contains("\"--input-format\",\"stream-json\""),
        "{report:#}"
    );
    assert!(
        argv.contains("\"--permission-prompt-tool\",\"stdio\""),
        "{report:#}"
    );
}
