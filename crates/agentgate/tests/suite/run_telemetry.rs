//! Seed 000's telemetry files and forms, with the REAL Claude Code against
//! `agentgate fake-llm`: `--debug-prompt` saves the prompt sent, redacted,
//! in the run folder; `quota_inbox:` gets a file per quota error;
//! `--envelope wrapper` prints the wrappers' envelope.

use std::process::Command;

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::run_chain::{CLAUDE_OUT_OF_QUOTA, Chain, QUOTA_RUN};
use super::support::run_bounded;

const LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// `agentgate runs show RUN` on the chain's store.
fn runs_show(chain: &Chain, run_id: &str) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(["runs", "show", run_id])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", chain.scratch())
        .env("AGENTGATE_HOME", chain.store());
    let run = run_bounded(cmd, LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    serde_json::from_str(&run.stdout).unwrap()
}

const SECRET: &str = "s3cr3t-token-value-0123456789";

#[test]
fn debug_prompt_saves_the_prompt_sent_with_secrets_redacted() {
    let chain = Chain::new(
        "turns:\n  - match: {api: anthropic}\n    repeat: true\n    text: \"noted\"\n",
        &[Cli::Claude],
        json!({}),
        json!({}),
    );
    let env_flag = format!("DEPLOY_API_KEY={SECRET}");
    let prompt = format!("Check the deploy; the key is {SECRET}.");
    let (run, env) = chain.run(
        &["--agent", "claude", "--debug-prompt", "--env", &env_flag],
        &prompt,
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let run_id = env["run_id"].as_str().unwrap();
    let path = chain.store().join("runs").join(run_id).join("prompt.txt");
    let saved = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", path.display(), run.stderr));
    assert!(saved.contains("Check the deploy; the key is "), "{saved}");
    assert!(!saved.contains(SECRET), "the secret was saved: {saved}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let shown = runs_show(&chain, run_id);
    assert_eq!(shown["prompt_path"], json!(path.display().to_string()));

    // Without the flag, no prompt is saved.
    let (run, env) = chain.run(&["--agent", "claude"], "again");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let shown = runs_show(&chain, env["run_id"].as_str().unwrap());
    assert_eq!(shown["prompt_path"], Value::Null);
}

#[test]
fn a_quota_error_is_written_to_the_quota_inbox() {
    let inbox = tempfile::tempdir().unwrap();
    let chain = Chain::new(
        CLAUDE_OUT_OF_QUOTA,
        &[Cli::Claude],
        json!({}),
        json!({"quota_inbox": inbox.path().join("inbox").display().to_string()}),
    );
    let (run, env) = chain.run(&["--agent", "claude"], QUOTA_RUN);
    assert_eq!(env["error_type"], "quota", "{env:#}\n{}", run.stderr);
    let files: Vec<_> = std::fs::read_dir(inbox.path().join("inbox"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.ends_with("-claude-usage-limit.json"), "{name}");
    let msg: Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    assert_eq!(msg["type"], "quota_exhausted");
    assert_eq!(msg["provider"], "claude");
    assert_eq!(msg["run_id"], env["run_id"]);
    assert_eq!(msg["severity"], "high");
    assert_eq!(msg["reset_at"], env["reset_at"]);
    assert_eq!(msg["retry_time"], env["reset_at"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn the_wrapper_envelope_has_the_wrapper_fields_only() {
    let chain = Chain::new(
        "turns:\n  - match: {api: anthropic}\n    repeat: true\n    thinking: \"First\\n\\nlook.\"\n    text: \"done\"\n",
        &[Cli::Claude],
        json!({}),
        json!({}),
    );
    let (run, env) = chain.run(&["--agent", "claude", "--envelope", "wrapper"], "go");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let mut keys: Vec<&str> = env
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "metadata",
            "reasoning",
            "response",
            "session_id",
            "tokens_used"
        ],
        "{env:#}"
    );
    assert_eq!(env["response"], "done");
    // No tool ran: tool_activity is left out, as the wrappers did.
    assert!(env["metadata"].get("tool_activity").is_none(), "{env:#}");
    assert_eq!(env["reasoning"], "First look.", "{env:#}");
    assert_eq!(env["metadata"]["reasoning_source"], "raw_output");
}

#[test]
fn reasoning_fallback_reads_a_sessions_figures_without_running_the_cli() {
    let chain = Chain::new(
        "turns:\n  - match: {api: anthropic}\n    repeat: true\n    thinking: \"Plan:\\n\\nanswer briefly.\"\n    text: \"done\"\n    usage: {input: 120, output: 8}\n",
        &[Cli::Claude],
        json!({}),
        json!({}),
    );
    let (run, first) = chain.run(&["--agent", "claude", "--session", "chat"], "go");
    assert_eq!(run.code, Some(0), "{first:#}\n{}", run.stderr);
    assert!(
        first["reasoning"]
            .as_str()
            .unwrap()
            .contains("answer briefly"),
        "{first:#}"
    );
    let requests = chain.server.turn_requests().len();

    let (run, env) = chain.run(
        &[
            "--agent",
            "claude",
            "--session",
            "chat",
            "--reasoning-fallback",
        ],
        "ignored",
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(chain.server.turn_requests().len(), requests, "the CLI ran");
    assert_eq!(env["run_id"], first["run_id"]);
    assert_eq!(env["session_id"], first["session_id"]);
    assert_eq!(env["reasoning"], first["reasoning"]);
    assert_eq!(env["reasoning_summary"], "Plan: answer briefly.");
    assert_eq!(env["tokens_used"], first["tokens_used"]);
    assert_eq!(env["metadata"]["reasoning_source"], "raw_output");
    assert_eq!(env["response"], "");

    // By native id too; an unknown session is exit 2.
    let id = first["session_id"].as_str().unwrap();
    let (run, env) = chain.run(&["--resume", id, "--reasoning-fallback"], "ignored");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(env["reasoning"], first["reasoning"]);
    let run = run_bounded(
        chain.command(&["--session", "nope", "--reasoning-fallback"], "x"),
        LIMIT,
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(run.stderr.contains("no session `nope`"), "{}", run.stderr);
}
