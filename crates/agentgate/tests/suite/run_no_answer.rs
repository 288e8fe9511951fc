//! No answer is not a success, through the binary: stand-in CLIs that exit
//! 0 without the final record their format promises (assistant text
//! without Claude's `result`, nothing at all, bytes that are not Gemini's
//! format, a config-described text CLI that prints nothing) each fail
//! recoverably, and the chain moves on to the real Codex, which answers
//! from `agentgate fake-llm`. `agentgate parse` says the same of a saved
//! capture cut before its `result`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::run_chain::Chain;
use super::support::{run_bounded, workspace_root};

/// A stand-in CLI: a shell script that ignores its arguments and stdin,
/// prints `stdout` and exits 0.
fn stand_in(dir: &Path, name: &str, stdout: &str) -> PathBuf {
    let path = dir.join(name);
    let quoted = stdout.replace('\'', r"'\''");
    std::fs::write(
        &path,
        format!("#!/bin/sh\nprintf '%s' '{quoted}'\nexit 0\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

const CLAUDE_TEXT_ONLY: &str = concat!(
    r#"{"type":"system","subtype":"init","session_id":"s-mute","model":"m"}"#,
    "\n",
    r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I will fix it."}]},"session_id":"s-mute"}"#,
    "\n",
);

#[test]
fn a_chain_moves_on_from_agents_that_exit_0_without_an_answer() {
    let chain = Chain::new(
        "turns:\n  - match: {api: responses}\n    text: \"codex answers\"\n",
        &[Cli::Codex],
        json!({}),
        json!({}),
    );
    let dir = chain.scratch();
    let mute = stand_in(dir, "mute-claude", CLAUDE_TEXT_ONLY);
    let silent = stand_in(dir, "silent-claude", "");
    let garbled = stand_in(dir, "garbled-gemini", "Segmentation fault (core dumped)\n");
    let plain = stand_in(dir, "plain-cli", "");

    // The stand-ins join the config Chain wrote (JSON is YAML).
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(&chain.config).unwrap()).unwrap();
    let agents = config["agents"].as_object_mut().unwrap();
    for (name, provider, binary) in [
        ("mute", "claude", &mute),
        ("silent", "claude", &silent),
        ("garbled", "gemini", &garbled),
    ] {
        agents.insert(
            name.to_owned(),
            json!({"provider": provider, "binary": binary.display().to_string(), "timeout": "60s"}),
        );
    }
    agents.insert(
        "plain".to_owned(),
        json!({"provider": "plaintext", "timeout": "60s"}),
    );
    config["providers"] = json!({
        "plaintext": {
            "command": [plain.display().to_string()],
            "prompt": "stdin",
            "permission_modes": {"bypass": ["--yes"]},
            "output": "text",
        }
    });
    config["chains"] = json!({
        "main": {"agents": ["mute", "silent", "garbled", "plain", "codex"]}
    });
    std::fs::write(
        &chain.config,
        serde_json::to_string_pretty(&config).unwrap(),
    )
    .unwrap();

    let (run, env) = chain.run(&["--chain", "main"], "fix the bug");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "codex answers", "{env:#}");
    assert_eq!(env["agent"], "codex");
    assert!(env.get("error_type").is_none(), "{env:#}");

    let attempts = env["attempts"].as_array().unwrap();
    let agents: Vec<&str> = attempts
        .iter()
        .map(|a| a["agent"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        agents,
        ["mute", "silent", "garbled", "plain", "codex"],
        "{attempts:#?}"
    );
    for (a, words) in attempts[..4].iter().zip([
        "claude exited 0 without its closing `result` record (2 lines on stdout, all JSON",
        "claude exited 0 without its closing `result` record (nothing on stdout)",
        "gemini exited 0 without its closing `result` record (1 line on stdout, none JSON",
        "plaintext exited 0 without an answer on stdout (nothing on stdout)",
    ]) {
        assert_eq!(a["error_type"], "provider_error", "{a:#}");
        assert_eq!(a["recoverable"], true, "{a:#}");
        let message = a["error"].as_str().unwrap_or_default();
        assert!(message.starts_with(words), "{message}\n{a:#}");
    }
    assert!(attempts[4]["error_type"].is_null(), "{attempts:#?}");
}

#[test]
fn a_single_run_without_an_answer_exits_75() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let mute = stand_in(dir.path(), "claude", CLAUDE_TEXT_ONLY);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(["run", "--provider", "claude", "--compact", "--binary"])
        .arg(&mute)
        .arg("fix the bug")
        .env("HOME", dir.path())
        .env("AGENTGATE_HOME", store.path())
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null());
    let run = run_bounded(cmd, Duration::from_secs(60));
    let env: Value = super::run_e2e::last_json(&run.stdout)
        .unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()));
    assert_eq!(run.code, Some(75), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "provider_error", "{env:#}");
    assert_eq!(env["recoverable"], true);
    // What it said is kept; it is not taken for an answer.
    assert_eq!(env["session_id"], "s-mute");
}

/// A plain-text CLI's answer is its final record only once it exited: one
/// killed by a signal after printing part of it crashed.
#[test]
fn a_text_cli_killed_after_printing_is_not_a_success() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let script = dir.path().join("half-cli");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf 'half an answer\\n'\nkill -KILL $$\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = dir.path().join("agentgate.yaml");
    let yaml = json!({
        "version": 1,
        "providers": {"half": {"command": [script.display().to_string()], "prompt": "stdin", "output": "text"}},
    });
    std::fs::write(&config, serde_json::to_string_pretty(&yaml).unwrap()).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.arg("--config")
        .arg(&config)
        .args(["run", "--provider", "half", "--compact", "go"])
        .env("HOME", dir.path())
        .env("AGENTGATE_HOME", store.path())
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null());
    let run = run_bounded(cmd, Duration::from_secs(60));
    let env: Value = super::run_e2e::last_json(&run.stdout)
        .unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()));
    assert_eq!(run.code, Some(75), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "provider_error", "{env:#}");
    assert_eq!(env["response"], "half an answer", "{env:#}");
}

/// A real capture of Claude Code's answer, cut before its `result`.
fn claude_text_only_capture(dir: &Path) -> PathBuf {
    let full =
        std::fs::read_to_string(workspace_root().join(
            "crates/agentgate-providers/tests/fixtures/decode/claude/text_stream_json.stdout",
        ))
        .unwrap();
    let kept: Vec<&str> = full
        .lines()
        .filter(|l| !l.contains(r#""type":"result""#))
        .collect();
    assert_eq!(kept.len(), full.lines().count() - 1);
    let path = dir.join("cut.stdout");
    std::fs::write(&path, kept.join("\n") + "\n").unwrap();
    path
}

#[test]
fn parse_reports_a_capture_without_its_final_record() {
    let dir = tempfile::tempdir().unwrap();
    let capture = claude_text_only_capture(dir.path());
    for exit_code in [&["--exit-code", "0"][..], &[]] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.args(["parse", "--provider", "claude"])
            .args(exit_code)
            .arg(&capture)
            .env("HOME", dir.path())
            .current_dir(dir.path());
        let run = run_bounded(cmd, Duration::from_secs(30));
        // parse itself worked; the envelope says the run failed.
        assert_eq!(run.code, Some(0), "{}", run.all_output());
        let env: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(
            env["error_type"], "provider_error",
            "{exit_code:?}: {env:#}"
        );
        assert_eq!(env["recoverable"], true, "{env:#}");
        assert_eq!(env["exit_code"], 75, "{env:#}");
        let message = env["error"].as_str().unwrap();
        assert!(
            message.contains("claude") && message.contains("without its closing `result` record"),
            "{message}"
        );
        // The text it printed is kept as the response.
        assert_eq!(env["response"], "done", "{env:#}");
    }
    // The event stream ends with the error, then the result.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(["parse", "--provider", "claude", "--events"])
        .arg(&capture)
        .current_dir(dir.path());
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let n = events.len();
    assert_eq!(events[n - 2]["type"], "error", "{events:#?}");
    assert_eq!(events[n - 2]["kind"], "provider_error", "{events:#?}");
    assert_eq!(events[n - 1]["type"], "result");
}
