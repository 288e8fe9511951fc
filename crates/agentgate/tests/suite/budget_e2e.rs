//! Budgets with the REAL CLIs against `agentgate fake-llm` (docs/guide/cost.md,
//! Budgets): `--max-cost` stops Claude Code mid-run from the usage it
//! streams, `--max-tokens` stops Codex from the gateway's per-call usage,
//! each after a `budget_warning` at 80%, the error `budget` (exit 1) and no
//! process of the CLI left; a session whose budget is spent refuses its
//! next turn before any model call.
//!
//! The scripts loop on tool calls for ever: only the budget ends the run.
//! Each call's input dominates its cost (Claude Code's stream gives a
//! message's input tokens with its first event, its output later), so the
//! call that crosses is known: Claude Sonnet 4.5 at $3 per million input
//! tokens, 20,000 a call: $0.06 a call; the limit $0.14 warns at the second
//! call ($0.12) and stops at the third ($0.18).

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

/// A shell command that records its shell's pid, process group and parent
/// (the CLI) in `pids`, one per line.
const RECORD_PIDS: &str =
    "echo $$ >> pids; cut -d' ' -f5 /proc/$$/stat >> pids; echo $PPID >> pids";

/// A script whose every model call asks for the shell tool again.
fn looping_script(cli: Cli, usage: &str) -> String {
    let call = match cli {
        Cli::Codex => format!(r#"{{name: exec_command, args: {{cmd: "{RECORD_PIDS}"}}}}"#),
        _ => format!(
            r#"{{name: {}, command: "{RECORD_PIDS}"}}"#,
            cli.shell_tool()
        ),
    };
    format!(
        "turns:\n  - repeat: true\n    text: \"Once more.\"\n    tool_call: {call}\n    usage: {usage}\n"
    )
}

fn run(client: &Client, cwd: &Path, store: &Path, extra: &[&OsStr]) -> Run {
    let cli = client.setup.cli;
    let mut cmd = client.agentgate();
    cmd.args(["run", "--provider", cli.binary(), "--yolo", "--stream"])
        .arg("--binary")
        .arg(&client.program)
        .args(["--model", &client.setup.model])
        .arg("--cwd")
        .arg(cwd)
        .args(extra)
        .arg("Keep going, please.")
        .env("AGENTGATE_HOME", store);
    run_bounded(cmd, LIMIT)
}

fn events(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

fn envelope(events: &[Value]) -> Value {
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "result")
        .map(|e| e["envelope"].clone())
        .unwrap_or_default()
}

fn warnings(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "status" && e["kind"] == "budget_warning")
        .cloned()
        .collect()
}

/// Whether any process is `pid` or in process group `pgid`.
fn alive(pid: u32, pgid: Option<u32>) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        let Ok(n) = e.file_name().to_string_lossy().parse::<u32>() else {
            return false;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // Fields after the command's closing parenthesis: state, ppid, pgrp.
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
        let group: Option<u32> = rest.split_whitespace().nth(2).and_then(|g| g.parse().ok());
        n == pid || (pgid.is_some() && group == pgid)
    })
}

/// Every pid and group the tool calls recorded is gone.
fn assert_nothing_left(cwd: &Path) {
    let text = std::fs::read_to_string(cwd.join("pids")).expect("the tool ran at least once");
    let ids: Vec<u32> = text.lines().map(|l| l.trim().parse().unwrap()).collect();
    for rec in ids.chunks(3) {
        let (shell, group, cli) = (rec[0], rec[1], rec[2]);
        assert!(
            !alive(shell, Some(group)),
            "shell {shell} or its group {group} is left"
        );
        assert!(!alive(cli, None), "the CLI {cli} is left");
    }
}

#[test]
fn max_cost_stops_claude_code_mid_run() {
    let server = FakeServer::start(&looping_script(Cli::Claude, "{input: 20000, output: 10}"));
    let client = Client::new(Cli::Claude, &server);
    let cwd = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let run = run(
        &client,
        cwd.path(),
        store.path(),
        &["--max-cost".as_ref(), "0.14".as_ref()],
    );
    let all = run.all_output();
    assert_eq!(run.code, Some(1), "{all}");
    let events = events(&run);
    let env = envelope(&events);
    assert_eq!(env["error_type"], "budget", "{env:#}");
    assert_eq!(env["recoverable"], false);
    let error = env["error"].as_str().unwrap();
    assert!(
        error.starts_with("stopped: the run passed a budget: the run's limit: $0."),
        "{error}"
    );
    assert!(error.ends_with(" of $0.14"), "{error}");
    // Stopped at the third call: neither before nor left to go on.
    let calls = server.turn_requests().len();
    assert!((3..=4).contains(&calls), "{calls} model calls: {all}");
    let usd = env["tokens_used"]["cost_usd"].as_f64().unwrap();
    assert!(usd > 0.14 && usd < 0.14 + 0.06 * 2.0, "{usd}: {env:#}");
    // One warning, at the second call's $0.12 (86%), before the stop.
    let warned = warnings(&events);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert_eq!(warned[0]["budget"], "the run's limit");
    assert_eq!(warned[0]["measure"], "cost");
    let share = warned[0]["share"].as_f64().unwrap();
    assert!((0.8..1.0).contains(&share), "{share}");
    assert_nothing_left(cwd.path());
}

#[test]
fn max_tokens_stops_codex_from_its_gateways_calls() {
    let server = FakeServer::start(&looping_script(Cli::Codex, "{input: 5000, output: 100}"));
    let client = Client::new(Cli::Codex, &server);
    let cwd = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let run = run(
        &client,
        cwd.path(),
        store.path(),
        &[
            "--gateway".as_ref(),
            "--max-tokens".as_ref(),
            "12000".as_ref(),
        ],
    );
    let all = run.all_output();
    assert_eq!(run.code, Some(1), "{all}");
    let events = events(&run);
    let env = envelope(&events);
    assert_eq!(env["error_type"], "budget", "{env:#}");
    assert!(
        env["error"]
            .as_str()
            .unwrap()
            .ends_with("the run's limit: 15300 tokens of 12000"),
        "{env:#}"
    );
    // 5,100 tokens a call: the warning at the second (10,200, 85%), the
    // stop at the third (15,300), each told by the gateway.
    let calls: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "model_call")
        .collect();
    assert!(calls.len() >= 3, "{all}");
    let warned = warnings(&events);
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert_eq!(warned[0]["measure"], "tokens");
    assert_eq!(warned[0]["spent"].as_f64(), Some(10_200.0));
    let turns = server.turn_requests().len();
    assert!((3..=4).contains(&turns), "{turns} model calls: {all}");
    assert_nothing_left(cwd.path());
}

#[test]
fn a_spent_session_budget_refuses_the_next_turn() {
    let server = FakeServer::start(
        "turns:\n  - repeat: true\n    text: \"Noted.\"\n    usage: {input: 20000, output: 10}\n",
    );
    let client = Client::new(Cli::Claude, &server);
    let cwd = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let config = store.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        "version: 1\nbudgets:\n  sessions: {max_cost: 0.05}\n",
    )
    .unwrap();
    let turn = || {
        let mut cmd = client.agentgate();
        cmd.arg("--config")
            .arg(&config)
            .args([
                "run",
                "--provider",
                "claude",
                "--yolo",
                "--session",
                "notes",
            ])
            .arg("--binary")
            .arg(&client.program)
            .args(["--model", &client.setup.model])
            .arg("--cwd")
            .arg(cwd.path())
            .arg("Note this, please.")
            .env("AGENTGATE_HOME", store.path());
        run_bounded(cmd, LIMIT)
    };
    // The first turn spends $0.06 of the session's $0.05: it is stopped.
    let first = turn();
    let env: Value = serde_json::from_str(&first.stdout).unwrap();
    assert_eq!(env["error_type"], "budget", "{}", first.all_output());
    assert!(
        env["error"]
            .as_str()
            .unwrap()
            .contains("the budget of session notes: $0.06"),
        "{env:#}"
    );
    let calls = server.turn_requests().len();
    assert_eq!(calls, 1);
    // The next is refused before any CLI starts.
    let second = turn();
    assert_eq!(second.code, Some(1), "{}", second.all_output());
    let env: Value = serde_json::from_str(&second.stdout).unwrap();
    assert_eq!(env["error_type"], "budget");
    let error = env["error"].as_str().unwrap();
    assert!(
        error.starts_with("over budget: the budget of session notes: $0.06")
            && error.contains(" of $0.05 spent already by 1 run"),
        "{error}"
    );
    assert_eq!(
        env["reset_at"],
        Value::Null,
        "a session's budget never resets"
    );
    assert_eq!(env["attempts"].as_array().map(Vec::len), Some(0), "{env:#}");
    assert_eq!(server.turn_requests().len(), calls, "no model call");
}

#[test]
fn a_step_whose_agents_day_is_spent_is_skipped_and_the_chain_goes_on() {
    let server = FakeServer::start(
        "turns:\n  - repeat: true\n    text: \"Noted.\"\n    usage: {input: 20000, output: 10}\n",
    );
    let client = Client::new(Cli::Claude, &server);
    let cwd = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let config = store.path().join("agentgate.yaml");
    let program = client.program.display();
    let model = &client.setup.model;
    std::fs::write(
        &config,
        format!(
            "version: 1\nagents:\n  first:\n    provider: claude\n    binary: {program}\n    model: {model}\n  \
             second:\n    provider: claude\n    binary: {program}\n    model: {model}\n\
             chains:\n  pair:\n    agents: [first, second]\n\
             budgets:\n  agents:\n    first: {{day: {{max_cost: 0.05}}}}\n"
        ),
    )
    .unwrap();
    let run_with = |choice: &[&str]| {
        let mut cmd = client.agentgate();
        cmd.arg("--config")
            .arg(&config)
            .arg("run")
            .args(choice)
            .args(["--yolo", "--cwd"])
            .arg(cwd.path())
            .arg("Note this, please.")
            .env("AGENTGATE_HOME", store.path());
        run_bounded(cmd, LIMIT)
    };
    // The agent `first` spends $0.06 of its day's $0.05 (stopped as it
    // crosses it).
    let spend = run_with(&["--agent", "first"]);
    let env: Value = serde_json::from_str(&spend.stdout).unwrap();
    assert_eq!(env["error_type"], "budget", "{}", spend.all_output());
    assert_eq!(server.turn_requests().len(), 1);
    // The chain skips it and runs `second`.
    let chain = run_with(&["--chain", "pair"]);
    assert_eq!(chain.code, Some(0), "{}", chain.all_output());
    let env: Value = serde_json::from_str(&chain.stdout).unwrap();
    assert_eq!(env["agent"], "second", "{env:#}");
    let attempts = env["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{env:#}");
    assert_eq!(attempts[0]["skipped"], true);
    assert_eq!(attempts[0]["error_type"], "budget");
    let why = attempts[0]["error"].as_str().unwrap();
    assert!(
        why.contains("the day budget of agent first: $0.0602 of $0.05 spent already by 1 run"),
        "{why}"
    );
    assert!(attempts[0]["reset_at"].is_string(), "{env:#}");
    // Said by a `skipped` status event: the step, `budget`, the window's
    // reset.
    let skip = super::run_chain::assert_skipped_first(
        store.path(),
        &env,
        "claude",
        "first (claude)",
        "budget",
    );
    assert!(
        skip["message"]
            .as_str()
            .unwrap()
            .starts_with("skipped first (claude): over budget: the day budget of agent first"),
        "{skip:#}"
    );
    assert_eq!(
        server.turn_requests().len(),
        2,
        "only `second` called the model"
    );
}
