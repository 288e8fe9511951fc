//! `--reasoning-fallback` and Codex's turn usage from the CLIs' OWN
//! session files, with the REAL Claude Code and Codex run directly (not
//! through agentgate) against `agentgate fake-llm`: agentgate reads the
//! reasoning and tokens of a session its store never saw, and reports a
//! resumed Codex thread's turn by its own figures, not the thread's
//! running total.

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::run_chain::Chain;

const LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The JSON lines of a CLI's stdout.
fn records(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn reasoning_fallback_reads_claude_codes_own_session_file() {
    let chain = Chain::new(
        "turns:\n  - match: {api: anthropic}\n    repeat: true\n    thinking: \"Claude plan:\\n\\nanswer from the file.\"\n    text: \"done\"\n    usage: {input: 120, output: 8}\n",
        &[Cli::Claude],
        json!({}),
        json!({}),
    );
    // Claude Code, run directly: agentgate's store never sees this session.
    let direct = chain.client(Cli::Claude).run("go", LIMIT);
    assert_eq!(direct.code, Some(0), "{}", direct.all_output());
    let id = records(&direct.stdout)
        .iter()
        .rev()
        .find(|r| r["type"] == "result")
        .and_then(|r| r["session_id"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no session id: {}", direct.stdout));
    let requests = chain.server.turn_requests().len();

    let (run, env) = chain.run(
        &["--agent", "claude", "--resume", &id, "--reasoning-fallback"],
        "ignored",
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(chain.server.turn_requests().len(), requests, "the CLI ran");
    assert_eq!(env["fallback"]["from"], "session_file", "{env:#}");
    let path = env["fallback"]["path"].as_str().unwrap();
    assert!(
        path.ends_with(&format!(
            "/projects/{}/{id}.jsonl",
            slug(chain.client(Cli::Claude).setup.workdir.to_str().unwrap())
        )),
        "{path}"
    );
    assert_eq!(env["session_id"], json!(id));
    assert_eq!(env["provider"], "claude");
    assert_eq!(env["run_id"], "");
    assert_eq!(env["response"], "");
    assert!(
        env["reasoning"]
            .as_str()
            .unwrap()
            .contains("answer from the file."),
        "{env:#}"
    );
    assert_eq!(
        env["reasoning_summary"],
        "Claude plan: answer from the file."
    );
    assert_eq!(env["metadata"]["reasoning_source"], "session_log");
    assert_eq!(env["metadata"]["token_usage_available"], true);
    assert_eq!(env["tokens_used"]["input_tokens"], 120, "{env:#}");
    assert_eq!(env["tokens_used"]["output_tokens"], 8, "{env:#}");
}

/// Claude Code's project folder name for a working folder.
fn slug(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

const CODEX_TURNS: &str = "turns:\n  \
    - match: {api: responses, contains: \"first turn\"}\n    repeat: true\n    thinking: \"Codex plan: the first.\"\n    text: \"one\"\n    usage: {input: 200, output: 10, reasoning: 4}\n  \
    - match: {api: responses, contains: \"second turn\"}\n    repeat: true\n    thinking: \"Codex plan: the second.\"\n    text: \"two\"\n    usage: {input: 300, output: 12, reasoning: 5}\n";

#[test]
fn codex_rollout_gives_the_fallback_and_a_resumed_turns_own_usage() {
    let chain = Chain::new(CODEX_TURNS, &[Cli::Codex], json!({}), json!({}));
    // Codex, run directly: a thread agentgate never saw.
    let direct = chain.client(Cli::Codex).run("first turn", LIMIT);
    assert_eq!(direct.code, Some(0), "{}", direct.all_output());
    let thread = records(&direct.stdout)
        .iter()
        .find(|r| r["type"] == "thread.started")
        .and_then(|r| r["thread_id"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no thread id: {}", direct.stdout));
    let requests = chain.server.turn_requests().len();

    // The fallback reads the rollout file.
    let (run, env) = chain.run(
        &[
            "--agent",
            "codex",
            "--resume",
            &thread,
            "--reasoning-fallback",
        ],
        "ignored",
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(chain.server.turn_requests().len(), requests, "the CLI ran");
    assert_eq!(env["fallback"]["from"], "session_file", "{env:#}");
    let path = env["fallback"]["path"].as_str().unwrap();
    assert!(path.contains("/.codex/sessions/"), "{path}");
    assert!(path.ends_with(&format!("-{thread}.jsonl")), "{path}");
    assert_eq!(env["provider"], "codex");
    assert!(
        env["reasoning"]
            .as_str()
            .unwrap()
            .contains("Codex plan: the first."),
        "{env:#}"
    );
    assert_eq!(env["tokens_used"]["input_tokens"], 200, "{env:#}");
    // Visible output and reasoning (OpenAI counts both).
    assert_eq!(env["tokens_used"]["output_tokens"], 14, "{env:#}");
    assert_eq!(env["reasoning_tokens"], 4, "{env:#}");

    // A turn of that thread through agentgate: its own figures, not the
    // thread's running total (200 + 300 input).
    let (run, env) = chain.run(&["--agent", "codex", "--resume", &thread], "second turn");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "two");
    assert_eq!(env["session_id"], json!(thread));
    assert_eq!(env["tokens_used"]["input_tokens"], 300, "{env:#}");
    assert_eq!(env["tokens_used"]["output_tokens"], 17, "{env:#}");
    assert_eq!(env["reasoning_tokens"], 5, "{env:#}");

    // Now the store has a run of it: the fallback reads the store.
    let run_id = env["run_id"].clone();
    let (run, env) = chain.run(
        &[
            "--agent",
            "codex",
            "--resume",
            &thread,
            "--reasoning-fallback",
        ],
        "ignored",
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["fallback"]["from"], "store", "{env:#}");
    assert_eq!(env["run_id"], run_id);
    assert!(
        env["reasoning"]
            .as_str()
            .unwrap()
            .contains("Codex plan: the second."),
        "{env:#}"
    );
}
