//! Workflows in a temporary project: the registry's stand-in tools that
//! the workflow tests use, the workflow file, and `agentgate workflow`
//! run in it against a store of its own.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use agentgate_protocol::{Event, EventBody};
use serde_json::Value;

use crate::suite::support::{Run, run_bounded};
use crate::suite::tool_support::Project;

pub const LIMIT: Duration = Duration::from_secs(240);

/// `scanner --input FILE`: the number of lines of FILE (copied into its
/// workspace) as `files`.
pub const SCANNER: &str = r#"#!/bin/bash
n=$(wc -l < "$2" | tr -d ' ')
echo '{"v":1,"type":"progress","pct":50,"msg":"counting"}'
echo "{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"files\":$n}}"
"#;

/// `fixer PART`: about a second of work, its start and end (ns) in its
/// metrics, so the test can measure how many ran at once.
pub const FIXER: &str = r#"#!/bin/bash
s=$(date +%s%N)
echo '{"v":1,"type":"progress","pct":10,"msg":"fixing"}'
sleep 1
e=$(date +%s%N)
echo "{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"part\":\"$1\",\"start_ns\":$s,\"end_ns\":$e}}"
"#;

/// `flaky`: fails with the retryable E_TRANSIENT_NET the first time (it
/// leaves a mark in its workspace), succeeds when tried again in the same
/// workspace.
pub const FLAKY: &str = r#"#!/bin/bash
if [ -f "$WORKSPACE/tried" ]; then
  echo '{"v":1,"type":"result","status":"ok","metrics":{"second_try":true}}'
else
  touch "$WORKSPACE/tried"
  echo '{"v":1,"type":"error","code":"E_TRANSIENT_NET","msg":"connection reset","retryable":true}'
  exit 1
fi
"#;

/// `migrator --plan` asks for a strategy (`action_required`, exit 0);
/// `migrator --strategy S` takes the answer (JSON on stdin) and reports
/// both.
pub const MIGRATOR: &str = r#"#!/bin/bash
if [ "$1" = "--plan" ]; then
  echo '{"v":1,"type":"action_required","action":"choose_strategy","context":{"files":3}}'
  exit 0
fi
answer=$(cat)
choice=$(printf '%s' "$answer" | sed -n 's/.*"choice":"\([a-z]*\)".*/\1/p')
asked=$(printf '%s' "$answer" | sed -n 's/.*"action":"\([a-z_]*\)".*/\1/p')
echo "{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"strategy\":\"$2\",\"stdin_choice\":\"$choice\",\"stdin_action\":\"$asked\"}}"
"#;

/// `publisher`: only ever run by mistake (a `when:` skips it).
pub const PUBLISHER: &str = r#"#!/bin/bash
echo '{"v":1,"type":"result","status":"ok","metrics":{"published":true}}'
"#;

/// The seed's error codes the tools use.
pub const ERROR_CODES: &str =
    "version: 1\ncodes:\n  E_TRANSIENT_NET: {class: retryable, retryable: true}\n";

/// A project with the stand-in tools.
pub fn project() -> Project {
    let p = Project::new();
    for (name, script) in [
        ("scanner", SCANNER),
        ("fixer", FIXER),
        ("flaky", FLAKY),
        ("migrator", MIGRATOR),
        ("publisher", PUBLISHER),
    ] {
        p.tool(name, "", script);
    }
    p.error_codes(ERROR_CODES);
    std::fs::write(p.root().join("data.json"), "{}\n{}\n{}\n").unwrap();
    p
}

/// `agentgate workflow ARGS...` in the project, its environment cleared to
/// `env` (plus PATH and the project's store).
pub fn workflow_command(p: &Project, args: &[&str], env: &[(String, String)]) -> Command {
    let mut cmd = p.command(&["workflow"]);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AGENTGATE_HOME", p.home())
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(std::process::Stdio::null());
    cmd
}

/// Runs `agentgate workflow ARGS...` to its end.
pub fn workflow(p: &Project, args: &[&str], env: &[(String, String)]) -> Run {
    let run = run_bounded(workflow_command(p, args, env), LIMIT);
    assert!(
        !run.timed_out,
        "agentgate workflow did not end: {}",
        run.all_output()
    );
    run
}

/// The envelope `workflow run` printed.
pub fn envelope(run: &Run) -> Value {
    serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("no envelope ({e}): {}", run.all_output()))
}

/// The runs of the store, as `agentgate runs --json` lists them (records).
pub fn runs(p: &Project) -> Vec<Value> {
    let listed = run_bounded(p.command(&["runs", "--json", "--limit", "500"]), LIMIT);
    listed
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["record"].clone())
        .collect()
}

/// How many tool runs of each tool the workflow run `parent` made.
pub fn tool_runs(p: &Project, parent: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for r in runs(p) {
        if r["kind"] == "tool" && r["parent_run_id"] == parent {
            *out.entry(r["providers"][0].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
    }
    out
}

/// A step of the envelope's `workflow.steps`.
pub fn step<'a>(env: &'a Value, id: &str) -> &'a Value {
    env["workflow"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id} in {env:#}"))
}

/// The `type`s of a workflow run's own events (nested ones left out),
/// with the task id where there is one: `task_done:scan`.
pub fn event_names(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            let task = match &e.body {
                EventBody::TaskSubmitted(t) => Some(&t.task_id),
                EventBody::TaskStarted(t) => Some(&t.task_id),
                EventBody::TaskError(t) => Some(&t.task_id),
                EventBody::TaskDone(t) => Some(&t.task_id),
                EventBody::TaskProgress(t) => Some(&t.task_id),
                _ => None,
            };
            match task {
                Some(id) => format!("{}:{id}", e.body.type_name()),
                None => e.body.type_name().to_owned(),
            }
        })
        .collect()
}

/// The pid of the tool of a workflow step that says its pid in a progress
/// message (`pid N`, nested in the workflow's `task_progress`; only
/// `task`'s when given): the host's pid of that process (`N` is its pid in
/// the run's PID namespace), looked up while it lives.
pub fn tool_pid(event: &Event, task: Option<&str>) -> Option<u32> {
    if let EventBody::TaskProgress(t) = &event.body
        && task.is_none_or(|task| t.task_id == task)
        && let EventBody::ToolMessage(m) = &t.event.body
        && let agentgate_protocol::ToolMessageBody::Progress(p) = &m.message.body
    {
        let inner = p.msg.as_deref()?.strip_prefix("pid ")?.parse().ok()?;
        let found = super::tool_support::host_pid(&t.event.run_id, inner);
        assert!(
            found.is_some(),
            "the tool of run {} (pid {inner} in its namespace) is not running",
            t.event.run_id
        );
        return found;
    }
    None
}
