//! Quota accounts: a usage limit belongs to the account a provider's CLI is
//! logged in to. Runs naming the same account (config `account:` or
//! `AGENTGATE_<PROVIDER>_ACCOUNT`) skip an exhausted provider until its
//! reset; runs naming another account still try it. The REAL Claude Code
//! and Codex against `agentgate fake-llm`, one store.

use serde_json::{Value, json};

use super::run_chain::{
    CLAUDE_OUT_OF_QUOTA, Chain, QUOTA_RESET, QUOTA_RUN, assert_skipped_first, attempts,
};
use super::run_e2e::last_json;
use super::support::run_bounded;
use agentgate_fakellm::clients::Cli;

const LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

#[test]
fn an_exhausted_account_is_skipped_and_another_account_is_tried() {
    let chain = Chain::new(
        CLAUDE_OUT_OF_QUOTA,
        &[Cli::Claude, Cli::Codex],
        json!({}),
        json!({
            "chains": {"main": {"agents": ["claude", "codex"]}},
            "providers": {"claude": {"account": "team-a"}}
        }),
    );
    let at = |now: &str, account: Option<&str>, prompt: &str| {
        let mut cmd = chain.command(&["--chain", "main"], prompt);
        cmd.env("AGENTGATE_NOW", now);
        if let Some(a) = account {
            cmd.env("AGENTGATE_CLAUDE_ACCOUNT", a);
        }
        let run = run_bounded(cmd, LIMIT);
        let env =
            last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()));
        assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
        env
    };
    let anthropic_calls = || chain.apis().iter().filter(|a| *a == "anthropic").count();

    // The config's account (team-a) runs out.
    let env = at("2029-12-31T20:00:00Z", None, QUOTA_RUN);
    assert_eq!(env["response"], "codex answers");
    assert_eq!(attempts(&env)[0]["error_type"], "quota");
    let before = anthropic_calls();
    assert!(before >= 1);

    // The same account, before the reset: claude is not run.
    let env = at("2029-12-31T23:00:00Z", None, "do the task");
    let a = attempts(&env);
    assert_eq!(a[0]["skipped"], true, "{a:#?}");
    let why = a[0]["error"].as_str().unwrap_or_default();
    assert!(why.contains("account team-a"), "{a:#?}");
    let skip = assert_skipped_first(chain.store(), &env, "claude", "claude", "quota");
    assert_eq!(skip["reset_at"], QUOTA_RESET, "{skip:#}");
    assert_eq!(anthropic_calls(), before, "claude was called");

    // Another account named by the environment (it wins over the file):
    // its quota is its own, so claude is tried.
    let env = at("2029-12-31T23:00:00Z", Some("team-b"), "do the task");
    assert_ne!(attempts(&env)[0]["skipped"], true, "{env:#}");
    assert!(anthropic_calls() > before, "team-b's claude was not tried");

    // The environment naming team-a again is the same account as the
    // file's: skipped.
    let calls = anthropic_calls();
    let env = at("2029-12-31T23:30:00Z", Some("team-a"), "do the task");
    assert_eq!(attempts(&env)[0]["skipped"], true, "{env:#}");
    assert_eq!(anthropic_calls(), calls);

    // `agentgate quota` reads this host's account and lists the others.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .arg("--config")
        .arg(&chain.config)
        .args(["quota", "--json"])
        .env_clear()
        .env("AGENTGATE_HOME", chain.store())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let team_a = rows
        .iter()
        .find(|r| r["provider"] == "claude" && r["account"] == "team-a")
        .unwrap_or_else(|| panic!("no claude@team-a row: {rows:#?}"));
    assert_eq!(team_a["status"], "exhausted", "{team_a:#}");
    assert_eq!(team_a["reset_at"], QUOTA_RESET, "{team_a:#}");
    assert!(
        !rows
            .iter()
            .any(|r| r["provider"] == "claude" && r["account"].is_null()),
        "the unnamed account is listed though this host names one: {rows:#?}"
    );
}

#[test]
fn an_invalid_account_in_the_environment_is_refused_before_any_run() {
    let chain = Chain::new(
        "turns:\n  - repeat: true\n    text: \"hi\"\n",
        &[Cli::Claude],
        json!({}),
        json!({}),
    );
    let mut cmd = chain.command(&["--agent", "claude"], "do the task");
    cmd.env("AGENTGATE_CLAUDE_ACCOUNT", "team a");
    let run = run_bounded(cmd, LIMIT);
    assert_ne!(run.code, Some(0), "{}", run.all_output());
    assert!(
        run.stderr.contains("AGENTGATE_CLAUDE_ACCOUNT is invalid"),
        "{}",
        run.stderr
    );
    assert!(chain.apis().is_empty(), "a CLI ran: {:?}", chain.apis());
}
