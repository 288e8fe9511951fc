//! Session rotation with a warm process (`--warm`), against the real Claude
//! Code and Codex: the summary turn goes to the session's living process
//! (the old session), then the rotation ends that process and the turn
//! starts a new one without resuming (`warm.process: replaced`, because the
//! session rotated): the request does not carry the old turn, the new
//! session id differs, and the next turn reuses the new process.

use agentgate_core::{Config, RotationHandoff, RotationPolicy};
use agentgate_fakellm::clients::Cli;
use agentgate_providers::PermissionMode;
use serde_json::Value;

use super::session_rotation_e2e::SCRIPT;
use super::warm_run::Bench;

fn turn(b: &Bench, prompt: &str, limit: Option<u64>) -> Value {
    let mut plan = b.plan(prompt, PermissionMode::Bypass, &Config::default());
    for step in &mut plan.steps {
        step.rotation = limit.map(|max| RotationPolicy {
            max_context_tokens: max,
            handoff: RotationHandoff::Summary,
        });
    }
    let (outcome, _) = b.turn_with(&plan);
    let env = serde_json::to_value(&outcome.envelope).unwrap();
    assert_eq!(outcome.exit_code, 0, "{env:#}");
    env
}

fn a_rotation_replaces_the_warm_process(cli: Cli) {
    let b = Bench::new(cli, SCRIPT);
    let env1 = turn(&b, "turn-ALPHA", Some(1000));
    assert_eq!(env1["warm"]["process"], "started", "{cli}: {env1:#}");
    assert!(env1["context_tokens"].as_u64().unwrap() > 2000, "{env1:#}");

    let env2 = turn(&b, "turn-BETA", Some(1000));
    let attempts = env2["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{cli}: {attempts:#?}");
    // The summary came from the old session.
    assert_eq!(attempts[0]["session_id"], env1["session_id"], "{cli}");
    assert_eq!(env2["warm"]["process"], "replaced", "{cli}: {env2:#}");
    let why = env2["warm"]["replaced_because"]
        .as_str()
        .unwrap_or_default();
    assert!(why.contains("the session rotated"), "{cli}: {why}");
    assert_ne!(env2["session_id"], env1["session_id"], "{cli}: {env2:#}");
    assert_eq!(
        env2["session_rotated"]["old_session_id"],
        env1["session_id"]
    );
    let texts = b.server.last_turn_texts().join("\n");
    assert!(
        !texts.contains("turn-ALPHA")
            && texts.contains("SUMMARY-XYZ")
            && texts.contains("turn-BETA"),
        "{cli}: {texts}"
    );

    // Under the limit: the new process serves the next turn.
    let env3 = turn(&b, "turn-GAMMA", Some(1000));
    assert_eq!(env3["warm"]["process"], "reused", "{cli}: {env3:#}");
    assert_eq!(env3["session_id"], env2["session_id"]);
    assert!(env3.get("session_rotated").is_none(), "{env3:#}");
}

#[test]
fn claude_warm_rotation_replaces_the_process() {
    a_rotation_replaces_the_warm_process(Cli::Claude);
}

#[test]
fn codex_warm_rotation_replaces_the_process() {
    a_rotation_replaces_the_warm_process(Cli::Codex);
}
