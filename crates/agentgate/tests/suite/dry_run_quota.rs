//! `agentgate run --dry-run` (the planned invocation, nothing run, nothing
//! stored) and `agentgate quota` (the usage-limit state a real Claude Code
//! run against `agentgate fake-llm` leaves behind).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::{Gate, last_json};
use super::support::{FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(60);

fn agentgate(home: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(args)
        .env("AGENTGATE_HOME", home)
        .stdin(std::process::Stdio::null());
    run_bounded(cmd, LIMIT)
}

/// A `--binary` that leaves a marker file behind if anything runs it.
fn trap(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let marker = dir.join("ran");
    let bin = dir.join("cli.sh");
    std::fs::write(&bin, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    (bin, marker)
}

fn dry_run(provider: &str, extra: &[&str]) -> (Run, Value) {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (bin, marker) = trap(dir.path());
    let mut args = vec![
        "run",
        "--provider",
        provider,
        "--dry-run",
        "--yolo",
        "--env",
        "OPENAI_API_KEY=sk-secret",
        "--env",
        "PLAIN_VAR=visible",
        "--binary",
        bin.to_str().unwrap(),
        "--no-unattended-instruction",
    ];
    args.extend_from_slice(extra);
    args.push("héllo world");
    let run = agentgate(home.path(), &args);
    assert!(!marker.exists(), "{provider}: --dry-run ran the CLI");
    let out = run.all_output();
    assert!(
        !out.contains("sk-secret"),
        "{provider}: secret leaked: {out}"
    );
    let listed = agentgate(home.path(), &["runs", "--json"]);
    assert_eq!(listed.stdout.trim(), "", "{provider}: a run was stored");
    let plan: Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{provider}: not one JSON object ({e}): {out}"));
    assert_eq!(plan["program"], bin.to_str().unwrap());
    assert_eq!(plan["env"]["OPENAI_API_KEY"], "[redacted:OPENAI_API_KEY]");
    assert_eq!(plan["env"]["PLAIN_VAR"], "visible");
    assert_eq!(plan["prompt_bytes"], "héllo world".len());
    // 11 characters, four to a token (as estimated_output_tokens).
    assert_eq!(plan["prompt_tokens_estimate"], 2);
    assert_eq!(plan["provider"], provider);
    assert!(plan["model_resolution"].is_null());
    (run, plan)
}

/// `agentgate HEAD EXTRA hi` that must succeed: its JSON plan.
fn planned(home: &Path, head: &[&str], extra: &[&str]) -> Value {
    let mut args = head.to_vec();
    args.extend_from_slice(extra);
    args.push("hi");
    let run = agentgate(home, &args);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    serde_json::from_str(run.stdout.trim()).unwrap()
}

fn argv(plan: &Value) -> Vec<String> {
    plan["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

fn has_pair(argv: &[String], a: &str, b: &str) -> bool {
    argv.windows(2).any(|w| w[0] == a && w[1] == b)
}

#[test]
fn dry_run_plans_claude_without_running_it() {
    let (run, plan) = dry_run("claude", &["--model", "opus-x", "--system", "Be terse."]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let argv = argv(&plan);
    assert!(
        has_pair(&argv, "--permission-mode", "bypassPermissions"),
        "{argv:?}"
    );
    assert!(has_pair(&argv, "--model", "opus-x"), "{argv:?}");
    assert!(
        has_pair(&argv, "--append-system-prompt", "Be terse."),
        "{argv:?}"
    );
    assert_eq!(plan["model"], "opus-x");
    assert!(plan["error"].is_null());
}

#[test]
fn dry_run_plans_codex_and_gemini() {
    let (run, plan) = dry_run("codex", &["--model", "gpt-x"]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let codex = argv(&plan);
    assert!(codex.iter().any(|a| a == "gpt-x"), "{codex:?}");
    assert!(codex.iter().any(|a| a == "exec"), "{codex:?}");

    let (run, plan) = dry_run("gemini", &["--model", "gem-x", "--system", "Be terse."]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let gemini = argv(&plan);
    assert!(has_pair(&gemini, "--approval-mode", "yolo"), "{gemini:?}");
    assert!(has_pair(&gemini, "-m", "gem-x"), "{gemini:?}");
    assert_eq!(plan["prompt_on_stdin"], true);
    // The system prompt file went to a scratch folder that is gone.
    let system = plan["env"]["GEMINI_SYSTEM_MD"].as_str().unwrap();
    assert!(!Path::new(system).exists(), "{system} was left behind");
}

#[test]
fn dry_run_with_a_missing_binary_fails_with_exit_2() {
    let home = tempfile::tempdir().unwrap();
    let run = agentgate(
        home.path(),
        &[
            "run",
            "--provider",
            "claude",
            "--dry-run",
            "--binary",
            "/nonexistent/claude",
            "hi",
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    let plan: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let message = plan["error"]["message"].as_str().unwrap();
    assert!(message.contains("was not found"), "{message}");
    assert!(message.contains("/nonexistent/claude"), "{message}");
    assert!(plan["program"].is_null());

    let run = agentgate(
        home.path(),
        &["run", "--provider", "nosuch", "--dry-run", "hi"],
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    let plan: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert!(
        plan["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown provider")
    );
}

/// A chain is planned step by step: the model resolution of each, the
/// prompt's pieces, the policies, and a step whose CLI is missing.
#[test]
fn dry_run_plans_every_step_of_a_chain() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (bin, marker) = trap(dir.path());
    let config = dir.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\nproviders:\n  claude:\n    binary: {bin}\n    models:\n      fast: claude-haiku-x\n  \
             codex:\n    binary: /nonexistent/codex\n    default_model: gpt-d\n",
            bin = bin.display()
        ),
    )
    .unwrap();
    let run = agentgate(
        home.path(),
        &[
            "--config",
            config.to_str().unwrap(),
            "run",
            "--provider",
            "claude,codex",
            "--on-dirty",
            "stash",
            "--dry-run",
            "--model",
            "fast",
            "plan the release",
        ],
    );
    assert!(!marker.exists(), "--dry-run ran the CLI");
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    let plan: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let steps = plan["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{plan:#}");
    assert_eq!(steps[0]["provider"], "claude");
    assert_eq!(steps[0]["model"], "claude-haiku-x");
    assert_eq!(
        steps[0]["model_resolution"],
        "claude model 'fast' -> 'claude-haiku-x' (alias)"
    );
    assert!(has_pair(&argv(&steps[0]), "--model", "claude-haiku-x"));
    // Codex has no alias `fast`: the flag's name goes as is.
    assert_eq!(steps[1]["model"], "fast");
    assert_eq!(steps[1]["default_model"], "gpt-d");
    assert!(
        steps[1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/codex"),
        "{plan:#}"
    );
    assert_eq!(plan["on_dirty"], "stash");
    // The prompt: the task and the unattended instruction.
    let kinds: Vec<&str> = steps[0]["prompt_parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["task", "instruction"], "{plan:#}");
    assert!(steps[0]["prompt_bytes"].as_u64().unwrap() > "plan the release".len() as u64);

    // Without --model, Codex gets its default_model, and says so.
    let run = agentgate(
        home.path(),
        &[
            "--config",
            config.to_str().unwrap(),
            "run",
            "--provider",
            "codex",
            "--dry-run",
            "hi",
        ],
    );
    let plan: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(plan["model"], "gpt-d");
    assert_eq!(
        plan["model_resolution"],
        "codex model (none requested) -> 'gpt-d' (default_model)"
    );
}

/// An agent's tiers: its `model` by default, `model_fast` with --tier fast,
/// and --model over both; the agent's mode sets the permission mode.
#[test]
fn dry_run_resolves_an_agents_model_tier() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        "version: 1\nagents:\n  triage:\n    provider: claude\n    binary: /bin/true\n    \
         model: claude-deep-x\n    model_fast: claude-quick-x\n    mode: classify\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let plan = |extra: &[&str]| {
        let head = ["--config", config, "run", "--agent", "triage", "--dry-run"];
        planned(home.path(), &head, extra)
    };
    let deep = plan(&[]);
    assert_eq!(deep["model"], "claude-deep-x");
    assert_eq!(deep["model_source"], "agent");
    assert_eq!(deep["agent"], "triage");
    assert!(
        has_pair(&argv(&deep), "--permission-mode", "plan"),
        "{deep:#}"
    );
    assert_eq!(plan(&["--tier", "fast"])["model"], "claude-quick-x");
    let flag = plan(&["--tier", "fast", "--model", "other-x"]);
    assert_eq!(flag["model"], "other-x");
    assert_eq!(flag["model_source"], "flag");
}

/// A usage-limit error from the real Claude Code leaves `claude` exhausted
/// until the reset time in the provider's words; other providers stay unknown.
#[test]
fn quota_shows_the_reset_time_of_a_claude_usage_limit() {
    let reset = jiff::Timestamp::now().as_second() + 2 * 3600;
    let server = FakeServer::start(&format!(
        "turns:\n  - repeat: true\n    error: {{kind: insufficient_quota, message: \"Claude AI usage limit reached|{reset}\", retry_after: 0}}\n"
    ));
    let gate = Gate::new(Cli::Claude, &server);
    let home = tempfile::tempdir().unwrap();
    let mut cmd = gate.command(&["--max-provider-retries", "1"], "trigger");
    cmd.env("AGENTGATE_HOME", home.path());
    let run = run_bounded(cmd, Duration::from_secs(180));
    let env =
        last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()));
    assert_eq!(env["error_type"], "quota", "{env:#}");
    let run_id = env["run_id"].as_str().unwrap();

    let quota = agentgate(home.path(), &["quota", "--json"]);
    assert_eq!(quota.code, Some(0), "{}", quota.all_output());
    let rows: Vec<Value> = quota
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = |p: &str| {
        rows.iter()
            .find(|r| r["provider"] == p)
            .unwrap_or_else(|| panic!("no {p} row: {}", quota.stdout))
    };
    let claude = row("claude");
    assert_eq!(claude["status"], "exhausted", "{claude:#}");
    let reset_at: jiff::Timestamp = claude["reset_at"].as_str().unwrap().parse().unwrap();
    assert!((reset_at.as_second() - reset).abs() <= 1, "{claude:#}");
    let left = claude["reset_in_seconds"].as_i64().unwrap();
    assert!(left > 0 && left <= 2 * 3600, "{claude:#}");
    assert!(
        claude["source"].as_str().unwrap().contains(run_id),
        "{claude:#}"
    );
    assert_eq!(row("codex")["status"], "unknown");

    // A dry run in the same store says the next run would skip claude,
    // unless --ignore-quota.
    let plan = |extra: &[&str]| {
        let head = ["run", "-p", "claude", "--dry-run", "--binary", "/bin/true"];
        planned(home.path(), &head, extra)
    };
    let skipped = plan(&[]);
    assert_eq!(
        skipped["skipped"]["reason"], "quota exhausted",
        "{skipped:#}"
    );
    assert_eq!(skipped["skipped"]["reset_at"], claude["reset_at"]);
    assert!(plan(&["--ignore-quota"])["skipped"].is_null());
}

/// `--dry-run --gateway` says where the calls would go, with which
/// credential (named, never shown) and under which limits; a provider the
/// gateway cannot serve is the plan's error, before anything runs.
#[test]
fn dry_run_with_a_gateway_names_the_upstream_the_key_and_the_limits() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (bin, marker) = trap(dir.path());
    let plan = |provider: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.args(["run", "--provider", provider, "--dry-run", "--gateway"])
            .args(["--max-output-tokens", "50", "--max-model-time", "2m"])
            .args(["--env", "ANTHROPIC_API_KEY=sk-ant-dry-run-secret"])
            .arg("--binary")
            .arg(&bin)
            .arg("hi")
            .env("AGENTGATE_HOME", home.path())
            .env("HOME", home.path())
            .env_remove("ANTHROPIC_BASE_URL")
            .stdin(std::process::Stdio::null());
        run_bounded(cmd, LIMIT)
    };
    let run = plan("claude");
    let out = run.all_output();
    assert_eq!(run.code, Some(0), "{out}");
    assert!(!out.contains("sk-ant-dry-run-secret"), "{out}");
    assert!(!marker.exists(), "--dry-run ran the CLI");
    let planned: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let g = &planned["gateway"];
    assert_eq!(g["api"], "anthropic_messages", "{planned:#}");
    assert_eq!(g["upstream"], "https://api.anthropic.com", "{planned:#}");
    assert_eq!(g["key_mode"], "api_key", "{planned:#}");
    assert_eq!(g["key_source"], "ANTHROPIC_API_KEY", "{planned:#}");
    assert_eq!(g["limits"]["max_output_tokens"], 50, "{planned:#}");
    assert_eq!(g["limits"]["max_model_time_s"], 120.0, "{planned:#}");
    assert!(g["limits"]["max_model_calls"].is_null(), "{planned:#}");
    // cursor-agent has no base-URL setting: the plan says so.
    let run = plan("cursor");
    let planned: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(planned["error"]["kind"], "invalid_input", "{planned:#}");
    assert!(
        planned["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the model gateway cannot serve cursor"),
        "{planned:#}"
    );
}
