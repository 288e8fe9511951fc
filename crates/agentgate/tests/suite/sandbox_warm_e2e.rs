//! Warm sessions under `strict` and `container`, and a warm process's
//! model gateway, against the REAL CLIs and `agentgate fake-llm`, through
//! the run engine with a holder (as `serve` and the session host run
//! them: `warm_run.rs`'s bench).
//!
//! - `strict`: the long-lived process starts in the sandbox with a gateway
//!   that lives as long as it does; two turns, one process: each turn's
//!   probe finds the machine's loopback server and an outside address
//!   unreachable, `~/.ssh` hidden, writes outside refused, and the turn's
//!   answer came through the gateway (its own `model_call` events, its own
//!   envelope `gateway` with that turn's calls only).
//! - A gateway's limits count afresh each turn: `max_model_calls: 1` ends
//!   both turns with `budget`, the second served by the same process, its
//!   first call forwarded and numbered 1 again.
//! - `container`: the process runs in one podman container for both turns
//!   (the image's marker file seen each time), and the container is gone
//!   once the holder ends the process.

use std::path::Path;

use agentgate_core::{Config, Decision, StepGateway, StepSandbox};
use agentgate_fakellm::clients::Cli;
use agentgate_protocol::SandboxLevel;
use agentgate_providers::PermissionMode;
use serde_json::Value;

use super::sandbox_e2e::{ANSWER, Probe, finding, plant_ssh_key, shell_call};
use super::warm_run::Bench;

/// An address outside the machine nobody answers (RFC 5737).
const OUTSIDE: &str = "192.0.2.1:80";

/// A script for two turns: the first's prompt (with "turn ONE") gets the
/// tool call running `commands[0]`, the second's `commands[1]`, a tool's
/// result gets [`ANSWER`]. (A turn's latest input can carry the previous
/// turn's tool result too, so the prompt's text decides first.)
fn script(cli: Cli, commands: [&str; 2]) -> String {
    let mut yaml = "turns:\n".to_owned();
    for (word, command) in ["turn ONE", "turn TWO"].into_iter().zip(commands) {
        yaml.push_str(&format!(
            "  - match: {{contains: \"{word}\"}}\n    repeat: true\n    text: \"Probing.\"\n    tool_call: {}\n",
            shell_call(cli, command)
        ));
    }
    yaml.push_str(&format!(
        "  - match: {{tool_result: true}}\n    repeat: true\n    text: \"{ANSWER}\"\n"
    ));
    yaml
}

/// The prompts of the two turns.
const PROMPTS: [&str; 2] = [
    "Probe the sandbox (turn ONE).",
    "Probe it again (turn TWO).",
];

/// One turn of `bench`'s session with each step given `sandbox` and
/// `gateway`: its envelope and events.
fn turn(
    bench: &Bench,
    prompt: &str,
    config: &Config,
    sandbox: Option<&StepSandbox>,
    gateway: Option<&StepGateway>,
) -> (Value, Vec<Value>) {
    let mut plan = bench.plan(prompt, PermissionMode::Bypass, config);
    // Gemini CLI 0.61.0 over ACP asks, in yolo mode, before the second
    // turn's probe once the first one's write outside was refused (seen
    // under the sandbox only); the run's approval policy answers, and the
    // default one denies. Here it allows: the sandbox still refuses.
    if bench.client.setup.cli == Cli::Gemini {
        plan.approvals.default = Decision::Allow;
    }
    for step in &mut plan.steps {
        if let Some(s) = sandbox {
            step.sandbox = Some(s.clone());
        }
        if let Some(g) = gateway {
            step.gateway = Some(g.clone());
        }
    }
    let (outcome, events) = bench.turn_with(&plan);
    (serde_json::to_value(&outcome.envelope).unwrap(), events)
}

/// The calls of a turn's `model_call` events, by number.
fn call_numbers(events: &[Value]) -> Vec<u64> {
    events
        .iter()
        .filter(|e| e["type"] == "model_call")
        .filter_map(|e| e["call"].as_u64())
        .collect()
}

fn warm_strict(cli: Cli) {
    let probe = Probe::new();
    // The second turn's probe writes into another folder outside: Gemini
    // CLI asks before a command that touches a path whose denial an
    // earlier command's output told of (its own sandbox's "expansion"
    // request), which agentgate's default policy refuses.
    let outside_2 = tempfile::tempdir().unwrap();
    let first = probe.command(Some(OUTSIDE));
    let second = first.replace(
        &probe.outside.path().display().to_string(),
        &outside_2.path().display().to_string(),
    );
    let bench = Bench::new(cli, &script(cli, [&first, &second]));
    plant_ssh_key(&bench.client);
    let work = bench.client.setup.workdir.clone();
    let sandbox = StepSandbox::at(SandboxLevel::Strict);
    let gateway = StepGateway::default();
    let mut pgid = None;
    for (n, prompt) in PROMPTS.into_iter().enumerate() {
        for file in ["loopback.txt", "remote.txt", "ssh.txt", "outside.txt"] {
            let _ = std::fs::remove_file(work.join(file));
        }
        let (env, events) = turn(
            &bench,
            prompt,
            &Config::default(),
            Some(&sandbox),
            Some(&gateway),
        );
        let all = format!("{env:#}\n{events:#?}");
        // ACP CLIs give the turn's texts together ('Probing.' first).
        let answer = env["response"].as_str().unwrap_or_default();
        assert!(answer.ends_with(ANSWER), "{cli} turn {n}: {all}");
        let expected = if n == 0 { "started" } else { "reused" };
        assert_eq!(env["warm"]["process"], expected, "{cli} turn {n}: {all}");
        match pgid {
            None => pgid = Some(env["warm"]["pgid"].clone()),
            Some(ref first) => assert_eq!(&env["warm"]["pgid"], first, "{cli}: {all}"),
        }
        for (file, what) in [
            ("loopback.txt", "the machine's loopback server was reached"),
            ("remote.txt", "an outside address was reached"),
            ("ssh.txt", "~/.ssh was readable"),
            ("outside.txt", "it wrote outside the workspace"),
        ] {
            assert_eq!(
                finding(&work, file, &all),
                "refused",
                "{cli} turn {n}: {what}"
            );
        }
        for outside in [probe.outside.path(), outside_2.path()] {
            assert!(!outside.join("escape.txt").exists(), "{cli}");
        }
        let sb = &env["sandbox"];
        assert_eq!(sb["level"], "strict", "{cli}: {sb:#}");
        assert_eq!(sb["network"]["state"], "enforced", "{cli}: {sb:#}");
        assert_eq!(sb["network"]["by"], "network namespace", "{cli}: {sb:#}");
        // This turn's calls, through the process's gateway, numbered from
        // 1, and the envelope's gateway report counts them alone.
        let numbers = call_numbers(&events);
        assert!(numbers.len() >= 2, "{cli} turn {n}: {numbers:?}: {all}");
        assert_eq!(numbers[0], 1, "{cli} turn {n}: {numbers:?}");
        assert_eq!(
            env["gateway"]["model_calls"].as_u64(),
            Some(numbers.len() as u64),
            "{cli} turn {n}: {all}"
        );
        assert_eq!(env["metadata"]["usage_source"], "wire", "{cli}: {all}");
    }
}

#[test]
fn claude_warm_turns_in_strict() {
    warm_strict(Cli::Claude);
}

#[test]
fn codex_warm_turns_in_strict() {
    warm_strict(Cli::Codex);
}

#[test]
fn gemini_warm_turns_in_strict() {
    warm_strict(Cli::Gemini);
}

#[test]
fn qwen_warm_turns_in_strict() {
    warm_strict(Cli::Qwen);
}

#[test]
fn opencode_warm_turns_in_strict() {
    warm_strict(Cli::Opencode);
}

/// A warm process's gateway counts each turn's limits afresh: with one
/// model call allowed, each turn's second call is refused and the turn
/// ends with `budget`; the second turn, served by the same process, gets
/// its first call forwarded.
#[test]
fn a_warm_gateways_limits_count_afresh_each_turn() {
    let cli = Cli::Claude;
    let probe = "echo probed > probed.txt";
    let bench = Bench::new(cli, &script(cli, [probe, probe]));
    let mut gateway = StepGateway::default();
    gateway.limits.max_model_calls = Some(1);
    let mut first_pgid = None;
    for (n, prompt) in PROMPTS.into_iter().enumerate() {
        let (env, events) = turn(&bench, prompt, &Config::default(), None, Some(&gateway));
        let all = format!("{env:#}\n{events:#?}");
        assert_eq!(env["error_type"], "budget", "turn {n}: {all}");
        assert_eq!(env["gateway"]["model_calls"], 1, "turn {n}: {all}");
        // (Claude Code tries a refused call again.)
        let refused = env["gateway"]["refused_calls"].as_u64().unwrap_or(0);
        assert!(refused >= 1, "turn {n}: {all}");
        let forwarded: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "model_call" && e["status"] == 200)
            .collect();
        assert_eq!(forwarded.len(), 1, "turn {n}: {all}");
        assert_eq!(forwarded[0]["call"], 1, "turn {n}: {all}");
        match &first_pgid {
            None => first_pgid = Some(env["warm"]["pgid"].clone()),
            Some(pgid) => {
                assert_eq!(env["warm"]["process"], "reused", "{all}");
                assert_eq!(&env["warm"]["pgid"], pgid, "{all}");
            }
        }
    }
}

/// Two warm turns of the real Claude Code in one podman container; the
/// container goes when the holder ends the process.
#[test]
fn warm_turns_run_in_one_container() {
    let cli = Cli::Claude;
    let marker = super::sandbox_container_e2e::MARKER;
    assert!(!Path::new(marker).exists(), "the host has {marker}");
    let command =
        format!("if test -e {marker}; then echo container; else echo host; fi > where.txt");
    let bench = Bench::new(cli, &script(cli, [&command, &command]));
    let dir = tempfile::tempdir().unwrap();
    let path = super::sandbox_container_e2e::container_config(dir.path());
    let mut yaml = std::fs::read_to_string(&path).unwrap();
    yaml.push_str("  level: container\n");
    std::fs::write(&path, yaml).unwrap();
    let config = Config::load(Some(&path)).unwrap();
    let work = bench.client.setup.workdir.clone();
    let mut names: Vec<String> = Vec::new();
    for (n, prompt) in PROMPTS.into_iter().enumerate() {
        let _ = std::fs::remove_file(work.join("where.txt"));
        let (env, events) = turn(&bench, prompt, &config, None, None);
        let all = format!("{env:#}\n{events:#?}");
        assert_eq!(env["response"], ANSWER, "turn {n}: {all}");
        assert_eq!(finding(&work, "where.txt", &all), "container", "turn {n}");
        let sb = &env["sandbox"];
        assert_eq!(sb["level"], "container", "{sb:#}");
        assert_eq!(sb["container"]["state"], "enforced", "{sb:#}");
        if n == 0 {
            // Named after the run that started the process.
            names = super::sandbox_container_e2e::containers_of(&env);
            assert_eq!(names.len(), 1, "the warm process's container: {names:?}");
        } else {
            assert_eq!(env["warm"]["process"], "reused", "{all}");
            let existing = super::sandbox_container_e2e::existing_containers();
            assert!(existing.contains(&names[0]), "{names:?} gone: {existing:?}");
        }
    }
    drop(bench);
    let left = super::sandbox_container_e2e::existing_containers();
    assert!(
        !left.iter().any(|c| names.contains(c)),
        "the warm process's container outlived it: {left:?}"
    );
}

/// `--record-model-calls` keeps one run's calls in its folder, which a
/// warm process's gateway, serving one run after another, cannot: the
/// turn is refused with `invalid_input` before any process starts.
#[test]
fn recording_a_warm_gateways_calls_is_refused() {
    let cli = Cli::Claude;
    let bench = Bench::new(cli, &script(cli, ["echo one", "echo two"]));
    let gateway = StepGateway {
        record_model_calls: true,
        ..StepGateway::default()
    };
    let (env, events) = turn(&bench, PROMPTS[0], &Config::default(), None, Some(&gateway));
    let all = format!("{env:#}\n{events:#?}");
    assert_eq!(env["error_type"], "invalid_input", "{all}");
    let error = env["error"].as_str().unwrap_or_default();
    assert!(error.contains("--record-model-calls"), "{all}");
    assert!(
        !events.iter().any(|e| e["type"] == "model_call"),
        "no call was made: {all}"
    );
}
