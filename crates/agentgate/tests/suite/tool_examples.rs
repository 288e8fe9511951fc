//! Seed 002's two example tools, as the repository's own
//! (`agentgate-toolkit`'s `example-processor` and `example-migrator`), run
//! under the runner: a schema-checked processor whose artifact is verified,
//! and a batched migrator cancelled mid-way that resumes from its
//! checkpoint in the same workspace.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use agentgate_protocol::{ArtifactState, EventBody, ToolErrorClass, ToolMessageBody, ToolStatus};

use crate::suite::tool_support::Project;

const SEED_CODES: &str = "version: 1\ncodes:\n  E_INPUT_NOT_FOUND: {class: user_error, retryable: false}\n  \
    E_SCHEMA_MISMATCH: {class: user_error, retryable: false}\n  E_UNKNOWN: {class: unknown, retryable: false}\n";

/// Registers the toolkit's `binary` as the tool `name` (a copy in the
/// tool's folder: the sandbox lets a tool read its own folder).
fn example(p: &Project, name: &str, binary: &str, manifest_rest: &str) {
    let built = Path::new(env!("CARGO_BIN_EXE_agentgate")).with_file_name(binary);
    assert!(
        built.is_file(),
        "{} is missing: build agentgate-toolkit",
        built.display()
    );
    p.tool(name, manifest_rest, "");
    let entry = p.root().join("tools").join(name).join("cli");
    std::fs::copy(&built, &entry).unwrap();
    std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_processor_verifies_its_artifact_and_reports_a_schema_mismatch() {
    let p = Project::new();
    p.error_codes(SEED_CODES);
    example(
        &p,
        "example_processor",
        "example-processor",
        "inputs:\n  - {name: input, type: path, required: true}\n  - {name: output, type: path, required: true}\n\
         resources: {cpu_seconds: 60, memory_mb: 256}\nexit_codes: {ok: 0, retryable_error: 20, fatal_error: 30}\n\
         health: {selftest: [\"--selftest\"]}\n",
    );
    let data = p.root().join("data.json");
    std::fs::write(&data, r#"{"items": [{"a": 1}, {"b": 2}, {"c": 3}]}"#).unwrap();
    let (run, envelope) = p.run_tool(&[
        "--copy-in",
        data.to_str().unwrap(),
        "example_processor",
        "--input",
        "data.json",
        "--output",
        "result.json",
    ]);
    assert_eq!(envelope.status, ToolStatus::Ok, "{}", run.all_output());
    assert_eq!(envelope.metrics["items"], 3);
    assert_eq!(envelope.artifacts.len(), 1);
    assert_eq!(envelope.artifacts[0].state, ArtifactState::Verified);

    let bad = p.root().join("bad.json");
    std::fs::write(&bad, r#"{"items": "not a list"}"#).unwrap();
    let (run, envelope) = p.run_tool(&[
        "--copy-in",
        bad.to_str().unwrap(),
        "example_processor",
        "--input",
        "bad.json",
        "--output",
        "result.json",
    ]);
    assert_eq!(
        envelope.code.as_deref(),
        Some("E_SCHEMA_MISMATCH"),
        "{}",
        run.all_output()
    );
    assert_eq!(envelope.class, Some(ToolErrorClass::UserError));
    assert_eq!(envelope.tool_exit.unwrap().code, Some(30));
    assert_eq!(run.code, Some(1));
}

#[test]
fn the_migrator_cancelled_mid_way_resumes_from_its_checkpoint() {
    let p = Project::new();
    p.error_codes(SEED_CODES);
    example(
        &p,
        "data_migrator",
        "example-migrator",
        "inputs:\n  - {name: source, type: path, required: true}\n  - {name: target, type: path, required: true}\n\
         exit_codes: {ok: 0, retryable_error: 20, fatal_error: 30}\n",
    );
    let source = p.root().join("in");
    std::fs::create_dir(&source).unwrap();
    for i in 0..20 {
        std::fs::write(
            source.join(format!("{i:02}.json")),
            format!("{{\"id\":{i}}}"),
        )
        .unwrap();
    }
    let args = [
        "data_migrator",
        "--source",
        "in",
        "--target",
        "migrated",
        "--batch-size",
        "2",
        "--delay-ms",
        "150",
    ];
    let mut first: Vec<&str> = vec![
        "--cancel-grace",
        "60s",
        "--copy-in",
        source.to_str().unwrap(),
    ];
    first.extend_from_slice(&args);
    let thirty_percent = |e: &agentgate_protocol::Event| match &e.body {
        EventBody::ToolMessage(m) => matches!(
            &m.message.body,
            ToolMessageBody::Progress(pr) if pr.pct.as_ref().and_then(serde_json::Number::as_f64) >= Some(30.0)
        ),
        _ => false,
    };
    let (_, cancelled, code) = p.interrupt_tool(&first, thirty_percent, 1);
    assert_eq!(cancelled.status, ToolStatus::Cancelled);
    assert_eq!(code, Some(130));
    assert_eq!(
        cancelled.tool_exit.clone().unwrap().code,
        Some(130),
        "it stopped by itself"
    );
    assert_eq!(cancelled.actions[0].action, "choose_migration_strategy");

    let mut second = vec!["--resume", cancelled.run_id.as_str()];
    second.extend_from_slice(&args[..7]);
    let (run, resumed) = p.run_tool(&second);
    assert_eq!(resumed.status, ToolStatus::Ok, "{}", run.all_output());
    assert_eq!(
        resumed.resumed_from.as_deref(),
        Some(cancelled.run_id.as_str())
    );
    assert_eq!(resumed.workspace, cancelled.workspace, "the same workspace");
    let resumed_at = resumed.metrics["resumed_at"].as_u64().unwrap();
    assert!((4..20).contains(&resumed_at), "resumed at {resumed_at}");
    assert_eq!(
        resumed.metrics["migrated_now"].as_u64().unwrap(),
        20 - resumed_at
    );
    let migrated = Path::new(resumed.workspace.as_deref().unwrap()).join("migrated");
    assert_eq!(std::fs::read_dir(migrated).unwrap().count(), 20);
}
