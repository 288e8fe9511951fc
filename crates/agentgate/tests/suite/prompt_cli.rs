//! Prompt assembly through `agentgate run --dry-run`: JSON task input on
//! stdin, context files and their limit, the size limits. Nothing runs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// `agentgate run --dry-run -p claude ARGS` with `stdin` piped in; the plan
/// and the exit code.
fn dry_plan(dir: &Path, args: &[&str], stdin: &str) -> (Option<i32>, Value, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .args(["run", "-p", "claude", "--dry-run", "--binary", "/bin/true"])
        .args(args)
        .env("AGENTGATE_HOME", dir.join("store"))
        .env("AGENTGATE_CONFIG", "")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let value = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (out.status.code(), value, stderr)
}

fn kinds(plan: &Value) -> Vec<String> {
    plan["prompt_parts"]
        .as_array()
        .unwrap_or_else(|| panic!("no prompt_parts: {plan:#}"))
        .iter()
        .map(|p| p["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_json_task_on_stdin_brings_its_context_and_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("CONTEXT.md"), "Project rules.\n").unwrap();
    std::fs::write(dir.path().join("ticket.txt"), "Login fails with 500.\n").unwrap();
    let task = r#"{"prompt": "Label the ticket", "context": {"id": 42}, "files": ["ticket.txt"]}"#;
    let (code, plan, stderr) = dry_plan(dir.path(), &["-"], task);
    assert_eq!(code, Some(0), "{plan:#}\n{stderr}");
    assert_eq!(
        kinds(&plan),
        ["context", "context", "context", "task", "instruction"],
        "{plan:#}"
    );
    let labels: Vec<&str> = plan["prompt_parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["label"].as_str())
        .collect();
    assert!(labels.contains(&"ticket.txt"), "{labels:?}");
    assert!(labels.contains(&"task input"), "{labels:?}");

    // Skipping CONTEXT.md drops one piece.
    let (code, plan, _) = dry_plan(dir.path(), &["--skip-context-file", "-"], task);
    assert_eq!(code, Some(0));
    assert_eq!(kinds(&plan).len(), 4, "{plan:#}");
}

#[test]
fn a_json_task_with_an_unknown_field_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = dry_plan(dir.path(), &["-"], r#"{"prompt": "x", "priority": 1}"#);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("priority"), "{stderr}");
}

#[test]
fn context_max_cuts_with_a_marker_and_size_limits_apply() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.md"), "line of context\n".repeat(1000)).unwrap();
    let (code, plan, stderr) = dry_plan(
        dir.path(),
        &["--context", "big.md", "--context-max", "100", "do it"],
        "",
    );
    assert_eq!(code, Some(0), "{stderr}");
    let piece = &plan["prompt_parts"][0];
    assert_eq!(piece["truncated"], true, "{plan:#}");
    assert_eq!(piece["total_bytes"], 16000);
    assert!(piece["bytes"].as_u64().unwrap() <= 100, "{piece:#}");
    let warnings = plan["warnings"].to_string();
    assert!(warnings.contains("truncated"), "{warnings}");

    let (code, plan, stderr) = dry_plan(
        dir.path(),
        &["--context", "big.md", "--prompt-max-bytes", "1000", "do it"],
        "",
    );
    assert_eq!(code, Some(2), "{stderr}");
    let error = plan["error"]["message"].as_str().unwrap();
    assert!(error.contains("1000"), "{error}");

    let (code, plan, stderr) = dry_plan(
        dir.path(),
        &[
            "--context",
            "big.md",
            "--prompt-warn-bytes",
            "1000",
            "do it",
        ],
        "",
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(plan["warnings"].as_array().unwrap().len(), 1, "{plan:#}");
}
