//! Issue 31: JSON that gives a key twice is refused wherever agentgate
//! takes JSON from outside, naming the key: the request bodies of `serve`,
//! a workflow's `--input`, the task input on stdin, a config file and a
//! manifest in JSON form (and MCP messages and tool protocol lines, in
//! their own suites). serde_json alone keeps the last copy silently.

use std::io::Write as _;
use std::process::Stdio;

use serde_json::json;

use super::serve_support::{get, post_json};
use super::serve_workflow::{TOKEN, serve};
use super::support::run_bounded;
use super::tool_support::LIMIT;
use super::workflow_support::{project, workflow};

#[test]
fn request_bodies_that_repeat_a_key_are_refused_with_422_naming_it() {
    let p = project();
    let server = serve(&p);
    let base = p.root().display().to_string();
    for (path, body, field, key) in [
        (
            "/v1/runs".to_owned(),
            r#"{"prompt": "hi", "provider": "claude", "provider": "codex"}"#.to_owned(),
            "request",
            "duplicate key `provider` in the top-level object",
        ),
        (
            "/v1/runs".to_owned(),
            r#"{"prompt": "hi", "env": {"A": "1", "A": "2"}}"#.to_owned(),
            "request",
            "duplicate key `A` in the object at `env`",
        ),
        (
            "/v1/workflows".to_owned(),
            format!(
                r#"{{"workflow": {{"version": 1, "name": "w", "steps": [{{"id": "a", "tool": "scanner", "tool": "fixer"}}]}}, "base_dir": "{base}"}}"#
            ),
            "request",
            "duplicate key `tool` in the object at `workflow.steps[0]`",
        ),
        (
            "/v1/runs/r20260101T000000-00000000/approvals/q1".to_owned(),
            r#"{"decision": "deny", "decision": "allow"}"#.to_owned(),
            "decision",
            "duplicate key `decision`",
        ),
    ] {
        let refused = post_json(&server.url, &path, TOKEN, &body);
        assert_eq!(refused.status, 422, "{path} {body}: {}", refused.body);
        let error = &refused.json()["error"];
        assert_eq!(error["field"], field, "{path}: {error:#}");
        assert!(
            error["message"].as_str().unwrap().contains(key),
            "{path}: {error:#}"
        );
    }
    // Not JSON at all stays a 400.
    let broken = post_json(&server.url, "/v1/runs", TOKEN, r#"{"prompt": "#);
    assert_eq!(broken.status, 400, "{}", broken.body);
    let listed = get(&server.url, "/v1/runs", Some(TOKEN)).json();
    assert_eq!(listed["runs"], json!([]), "nothing was queued: {listed:#}");
}

#[test]
fn a_workflow_input_and_a_task_input_that_repeat_a_key_are_refused() {
    let p = project();
    std::fs::write(
        p.root().join("one.yaml"),
        "version: 1\nname: one\nsteps:\n  - id: s\n    tool: fixer\n    args: [\"${input.part}\"]\n",
    )
    .unwrap();
    let run = workflow(
        &p,
        &[
            "run",
            "one.yaml",
            "--input",
            r#"{"part": "a", "part": "b"}"#,
        ],
        &[],
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr.contains("--input: duplicate key `part`"),
        "{}",
        run.stderr
    );

    // `agentgate run` reads a JSON task input on stdin: refused before any
    // provider is asked (the dry run plans without running).
    let mut child = p
        .command(&["run", "--provider", "claude", "--dry-run"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"prompt": "summarise", "prompt": "delete everything"}"#)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("duplicate key `prompt`"),
        "{stderr}\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_config_file_and_a_manifest_in_json_that_repeat_a_key_are_refused() {
    let p = project();
    std::fs::write(
        p.root().join("agentgate.yaml"),
        r#"{"version": 1, "queue": {"max_running": 1, "max_running": 8}}"#,
    )
    .unwrap();
    let shown = run_bounded(p.command(&["config", "show"]), LIMIT);
    assert_eq!(shown.code, Some(2), "{}", shown.all_output());
    assert!(
        shown.stderr.contains("duplicate mapping key") && shown.stderr.contains("line 1"),
        "{}",
        shown.stderr
    );
    std::fs::remove_file(p.root().join("agentgate.yaml")).unwrap();

    let manifest = p.root().join("tools/registry/twice/tool.yaml");
    std::fs::create_dir_all(manifest.parent().unwrap()).unwrap();
    std::fs::write(
        &manifest,
        r#"{"name": "twice", "version": "1", "entry": "cli", "entry": "/bin/sh"}"#,
    )
    .unwrap();
    let listed = run_bounded(p.command(&["tools", "list"]), LIMIT);
    assert!(
        listed.stdout.contains("broken") && listed.stdout.contains("duplicate mapping key"),
        "{}",
        listed.all_output()
    );
}
