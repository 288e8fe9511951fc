//! `agentgate health` with the real CLIs on PATH and an isolated home:
//! installed versions, login evidence, missing binaries, exit codes, JSON,
//! and no model request.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::support::{FakeServer, Run, clis_bin_dir, clis_dir, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(120);

/// `agentgate health ARGS` from an empty environment plus `vars`, with the
/// real CLIs (and nothing named cursor-agent or agy) on PATH.
fn health(home: &Path, args: &[&str], vars: &[(&str, &str)]) -> Run {
    let bin = clis_bin_dir();
    let mut cmd = Command::new(AGENTGATE);
    cmd.arg("health")
        .args(args)
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
        )
        .env("HOME", home)
        .env("TMPDIR", std::env::temp_dir())
        .envs(vars.iter().copied())
        .current_dir(home);
    let run = run_bounded(cmd, LIMIT);
    assert!(
        !run.timed_out,
        "health did not finish:\n{}",
        run.all_output()
    );
    run
}

fn json(run: &Run) -> Vec<Value> {
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.all_output()));
    v["providers"].as_array().unwrap().clone()
}

fn entry<'a>(all: &'a [Value], name: &str) -> &'a Value {
    all.iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} missing from {all:?}"))
}

/// The pinned versions, from clis/package.json (or the package.json of the
/// install the tests drive).
fn pinned() -> Vec<(&'static str, String)> {
    let text = std::fs::read_to_string(clis_dir().join("package.json")).unwrap();
    let pkg: Value = serde_json::from_str(&text).unwrap();
    let deps = &pkg["dependencies"];
    [
        ("claude", "@anthropic-ai/claude-code"),
        ("codex", "@openai/codex"),
        ("gemini", "@google/gemini-cli"),
        ("qwen", "@qwen-code/qwen-code"),
        ("opencode", "opencode-ai"),
    ]
    .into_iter()
    .map(|(name, package)| (name, deps[package].as_str().unwrap().to_owned()))
    .collect()
}

#[test]
fn reports_every_real_cli_without_calling_a_model() {
    let server =
        FakeServer::start("turns:\n  - repeat: true\n    text: \"should never be asked\"\n");
    let home = tempfile::tempdir().unwrap();
    let v1 = format!("{}/v1", server.url);
    // The bound on each `--version` is the test's own (a Node.js CLI can
    // take over the default 10 s to start on a loaded 2-core machine); a
    // probe that hangs is agentgate-core's `probe_kills_a_hung_cli`.
    let run = health(
        home.path(),
        &["--json", "--timeout", "100"],
        &[
            ("ANTHROPIC_API_KEY", "sk-ant-secret-value"),
            ("ANTHROPIC_BASE_URL", &server.url),
            ("OPENAI_BASE_URL", &v1),
            ("GOOGLE_GEMINI_BASE_URL", &server.url),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert!(
        !run.all_output().contains("sk-ant-secret-value"),
        "a secret was printed:\n{}",
        run.all_output()
    );
    let all = json(&run);
    for (name, version) in pinned() {
        let p = entry(&all, name);
        assert_eq!(p["installed"], true, "{p}");
        assert_eq!(p["usable"], true, "{p}");
        assert_eq!(p["version"], version.as_str(), "{p}");
        assert_eq!(p["sessions"], true, "{p}");
        assert!(p["path"].as_str().unwrap().ends_with(name), "{p}");
        assert!(p["latency_ms"].is_u64(), "{p}");
    }
    let claude = entry(&all, "claude");
    assert_eq!(claude["login"]["state"], "api_key_env", "{claude}");
    assert_eq!(claude["login"]["evidence"][0], "ANTHROPIC_API_KEY is set");
    for name in ["codex", "gemini", "qwen"] {
        assert_eq!(entry(&all, name)["login"]["state"], "none_found");
    }
    let cursor = entry(&all, "cursor");
    assert_eq!(cursor["installed"], false, "{cursor}");
    assert!(cursor["path"].is_null());
    assert!(
        server.requests().iter().all(|r| r["method"] != "POST"),
        "a model request was made: {:?}",
        server.requests()
    );
}

#[test]
fn table_shows_login_state() {
    let home = tempfile::tempdir().unwrap();
    let with_key = health(
        home.path(),
        &["--provider", "claude"],
        &[("ANTHROPIC_API_KEY", "k")],
    );
    assert_eq!(with_key.code, Some(0), "{}", with_key.all_output());
    let row = with_key
        .stdout
        .lines()
        .find(|l| l.starts_with("claude "))
        .unwrap();
    assert!(row.contains("api key env"), "{row}");
    let without = health(home.path(), &["--provider", "claude"], &[]);
    assert_eq!(without.code, Some(0), "{}", without.all_output());
    let row = without
        .stdout
        .lines()
        .find(|l| l.starts_with("claude "))
        .unwrap();
    assert!(row.contains("none found"), "{row}");
}

#[test]
fn a_requested_missing_cli_exits_1() {
    let home = tempfile::tempdir().unwrap();
    let run = health(home.path(), &["--provider", "cursor", "--json"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    let all = json(&run);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["installed"], false);
    assert_eq!(all[0]["usable"], false);

    let nowhere = home.path().join("no-such-claude");
    let run = health(
        home.path(),
        &["--provider", "claude"],
        &[("AGENTGATE_CLAUDE_BIN", nowhere.to_str().unwrap())],
    );
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    assert!(run.stdout.contains("not found"), "{}", run.stdout);
    assert!(run.stdout.contains("no-such-claude"), "{}", run.stdout);

    // Without --provider, a missing CLI is reported, not an error.
    let run = health(home.path(), &[], &[]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let cursor = run
        .stdout
        .lines()
        .find(|l| l.starts_with("cursor "))
        .unwrap();
    assert!(cursor.contains(" no "), "{cursor}");
}

#[test]
fn a_failing_version_probe_is_unusable() {
    let home = tempfile::tempdir().unwrap();
    let fake = home.path().join("claude");
    std::fs::write(&fake, "#!/bin/sh\necho 'cannot find module' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let run = health(
        home.path(),
        &["--provider", "claude", "--json"],
        &[("AGENTGATE_CLAUDE_BIN", fake.to_str().unwrap())],
    );
    assert_eq!(run.code, Some(1), "{}", run.all_output());
    let all = json(&run);
    assert_eq!(all[0]["installed"], true);
    assert_eq!(all[0]["usable"], false);
    assert!(
        all[0]["probe_error"]
            .as_str()
            .unwrap()
            .contains("cannot find module"),
        "{}",
        all[0]
    );
}
