//! Session rotation (`max_context_tokens`) with the real Claude Code and
//! Codex against `agentgate fake-llm`, whose scripted usage makes each
//! turn's context length known: a first turn of 2000 + 10 tokens passes a
//! limit of 1000, so the second turn starts a new native session (the
//! request does not carry the first turn; with `summary` it carries the
//! old session's summary), the store keeps both ids and why, `agentgate
//! sessions` shows it, and a third turn, under the limit, resumes.

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::{Gate, ok};
use super::support::{FakeServer, agentgate_ok};

/// The summary request (the old session's extra turn) is matched by a
/// phrase of `agentgate_core::SUMMARY_REQUEST`.
pub(super) const SCRIPT: &str = r#"turns:
  - match: {contains: "concise summary"}
    text: "SUMMARY-XYZ: the task was counting apples"
    usage: {input: 60, output: 8}
  - match: {contains: "turn-ALPHA"}
    text: "reply-alpha"
    usage: {input: 2000, output: 10}
  - match: {contains: "turn-BETA"}
    text: "reply-beta"
    usage: {input: 300, output: 20}
  - match: {contains: "turn-GAMMA"}
    text: "reply-gamma"
    usage: {input: 400, output: 20}
"#;

fn turn_texts(request: &Value) -> String {
    request["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|m| m["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

fn rotates_then_resumes(cli: Cli, handoff: &[&str]) {
    let server = FakeServer::start(SCRIPT);
    let gate = Gate::new(cli, &server);
    let mut args = vec!["--session", "work", "--max-context-tokens", "1000"];
    args.extend_from_slice(handoff);
    let summary = handoff.contains(&"summary");

    let (run1, env1) = gate.run(&args, "turn-ALPHA");
    ok(cli, &run1, &env1);
    // The prompt's 2000 tokens and the output as the CLI counted it (Claude
    // Code's stream gives the output count of the message's first record).
    let context1 = env1["context_tokens"].as_u64().unwrap_or(0);
    assert!((2001..=2010).contains(&context1), "{cli}: {env1:#}");
    assert!(env1.get("session_rotated").is_none(), "{cli}: {env1:#}");
    let requests_before = server.turn_requests().len();

    let (run2, env2) = gate.run(&args, "turn-BETA");
    assert_eq!(run2.code, Some(0), "{cli}: {env2:#}\n{}", run2.stderr);
    assert_eq!(env2["response"], "reply-beta", "{cli}: {env2:#}");
    assert_ne!(
        env2["session_id"], env1["session_id"],
        "{cli}: no new session"
    );
    let rotated = &env2["session_rotated"];
    assert_eq!(
        rotated["old_session_id"], env1["session_id"],
        "{cli}: {env2:#}"
    );
    assert_eq!(rotated["context_tokens"], context1);
    assert_eq!(rotated["max_context_tokens"], 1000);
    assert_eq!(
        rotated["reason"],
        format!("context {context1} tokens > max_context_tokens 1000")
    );
    assert_eq!(rotated["handoff"], if summary { "summary" } else { "none" });
    let new_requests: Vec<Value> = server.turn_requests()[requests_before..].to_vec();
    let last = turn_texts(new_requests.last().unwrap());
    assert!(
        !last.contains("turn-ALPHA") && !last.contains("reply-alpha"),
        "{cli}: the rotated turn carried the old session: {last}"
    );
    assert!(last.contains("turn-BETA"), "{cli}: {last}");
    let attempts = env2["attempts"].as_array().unwrap();
    if summary {
        // One extra turn of the old session, asked for its summary, whose
        // answer starts the new session's first prompt.
        assert_eq!(attempts.len(), 2, "{cli}: {attempts:#?}");
        assert_eq!(attempts[0]["session_id"], env1["session_id"]);
        let asked = turn_texts(&new_requests[0]);
        assert!(
            asked.contains("concise summary") && asked.contains("turn-ALPHA"),
            "{cli}: the summary was not asked of the old session: {asked}"
        );
        assert!(last.contains("SUMMARY-XYZ"), "{cli}: {last}");
        // The summary turn is part of the run's cost, as its own attempt.
        let priced = env2["cost"]["attempts"].as_array().map(Vec::len);
        assert_eq!(priced, Some(2), "{cli}: {:#}", env2["cost"]);
    } else {
        assert_eq!(attempts.len(), 1, "{cli}: {attempts:#?}");
        assert_eq!(new_requests.len(), 1, "{cli}: {new_requests:#?}");
        assert!(!last.contains("SUMMARY-XYZ"), "{cli}: {last}");
    }
    let context2 = env2["context_tokens"].as_u64().unwrap_or(0);
    assert!((301..=320).contains(&context2), "{cli}: {env2:#}");

    // Under the limit: the third turn resumes the new session.
    let (run3, env3) = gate.run(&args, "turn-GAMMA");
    ok(cli, &run3, &env3);
    assert_eq!(env3["session_id"], env2["session_id"], "{cli}: {env3:#}");
    assert!(env3.get("session_rotated").is_none(), "{cli}: {env3:#}");
    let texts = server.last_turn_texts().join("\n");
    assert!(texts.contains("turn-BETA"), "{cli}: {texts}");

    // The store keeps both ids and why; `agentgate sessions` shows it.
    let listed = agentgate_ok(gate.store_home(), &["sessions", "work", "--json"]);
    let session: Value = serde_json::from_str(listed.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(session["native_session_id"], env2["session_id"]);
    assert_eq!(session["turns"], 3);
    assert_eq!(session["context_tokens"], env3["context_tokens"]);
    assert!(
        session["context_tokens"].as_u64().unwrap() > 400,
        "{session:#}"
    );
    let rotations = session["rotations"].as_array().unwrap();
    assert_eq!(rotations.len(), 1, "{session:#}");
    assert_eq!(rotations[0]["old_native_id"], env1["session_id"]);
    assert_eq!(rotations[0]["new_native_id"], env2["session_id"]);
    assert_eq!(rotations[0]["reason"], rotated["reason"]);
    assert_eq!(rotations[0]["run_id"], env2["run_id"]);
    let table = agentgate_ok(gate.store_home(), &["sessions"]).stdout;
    let old = env1["session_id"].as_str().unwrap();
    let new = env2["session_id"].as_str().unwrap();
    assert!(
        table.contains("rotated ") && table.contains(&format!("{old} -> {new}")),
        "{table}"
    );
}

#[test]
fn claude_rotates_with_a_summary() {
    rotates_then_resumes(Cli::Claude, &["--rotate-handoff", "summary"]);
}

#[test]
fn codex_rotates_with_a_summary() {
    rotates_then_resumes(Cli::Codex, &["--rotate-handoff", "summary"]);
}

#[test]
fn claude_rotates_without_a_handoff() {
    rotates_then_resumes(Cli::Claude, &[]);
}

#[test]
fn codex_rotates_without_a_handoff() {
    rotates_then_resumes(Cli::Codex, &[]);
}
