//! A workflow killed mid-way and resumed, cancelled, and refused
//! (issue 15's "Done when"): `kill -9` of `agentgate workflow run` while a
//! step runs, then `workflow resume`: the finished step is not run again
//! (the store's tool runs count each tool's invocations), the interrupted
//! one continues in its workspace, and the result equals an uninterrupted
//! run's; a cancelled workflow ends every running step and leaves no
//! process; invalid files are refused with the line and the reason.

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use agentgate_protocol::{Event, EventBody};
use serde_json::{Value, json};

use super::tool_support::{Project, alive};
use super::workflow_support::{
    envelope, project, step, tool_pid, tool_runs, workflow, workflow_command,
};

/// `slow HOLD`: continues from its checkpoint when it finds one (a run
/// resumed in its workspace); otherwise writes it, says its pid, and works
/// HOLD seconds with heartbeats.
pub const SLOW: &str = r#"#!/bin/bash
if [ -f "$WORKSPACE/checkpoint" ]; then
  echo '{"v":1,"type":"result","status":"ok","metrics":{"resumed":true}}'
  exit 0
fi
echo started > "$WORKSPACE/checkpoint"
echo "{\"v\":1,\"type\":\"progress\",\"pct\":10,\"msg\":\"pid $$\"}"
for i in $(seq 1 "$1"); do sleep 1; echo '{"v":1,"type":"heartbeat"}'; done
echo '{"v":1,"type":"result","status":"ok","metrics":{"resumed":false}}'
"#;

pub const NIGHTLY: &str = r#"version: 1
name: nightly
steps:
  - id: scan
    tool: scanner
    args: [--input, data.json]
    copy_in: [data.json]
  - id: slow
    tool: slow
    args: ["${input.hold}"]
  - id: publish
    tool: publisher
outputs:
  files: "${steps.scan.output.files}"
  published: "${steps.publish.output.published}"
"#;

fn nightly() -> Project {
    let p = project();
    p.tool("slow", "", SLOW);
    std::fs::write(p.root().join("nightly.yaml"), NIGHTLY).unwrap();
    p
}

/// Reads `--stream` lines until a tool of `task` says its pid; the pid and
/// the workflow's run id.
fn wait_for_pid(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    task: &str,
) -> (u32, String) {
    let start = Instant::now();
    let mut seen = Vec::new();
    while start.elapsed() < Duration::from_secs(120) {
        let Some(Ok(line)) = lines.next() else { break };
        let event: Event = serde_json::from_str(&line).unwrap();
        if let Some(pid) = tool_pid(&event, Some(task)) {
            return (pid, event.run_id.clone());
        }
        seen.push(line);
    }
    panic!("no pid from {task}: {seen:#?}");
}

pub fn gone_within(pid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn a_workflow_killed_mid_way_resumes_without_running_finished_steps_again() {
    let p = nightly();
    let mut child = workflow_command(
        &p,
        &[
            "run",
            "nightly.yaml",
            "--stream",
            "--input",
            r#"{"hold": 120}"#,
        ],
        &[],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (tool_pid, run_id) = wait_for_pid(&mut lines, "slow");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        gone_within(tool_pid, Duration::from_secs(20)),
        "the running tool {tool_pid} outlived its workflow's process"
    );

    let listed = workflow(&p, &["runs", "--json"], &[]);
    let row: Value = serde_json::from_str(listed.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(row["run_id"], run_id.as_str());
    assert_eq!(row["state"], "interrupted", "{row:#}");
    assert_eq!(tool_runs(&p, &run_id).get("scanner"), Some(&1));

    let resumed = workflow(&p, &["resume", &run_id], &[]);
    let env = envelope(&resumed);
    assert_eq!(resumed.code, Some(0), "{env:#}\n{}", resumed.stderr);
    assert_eq!(env["run_id"], run_id.as_str());
    let wf = &env["workflow"];
    assert_eq!(wf["state"], "completed", "{env:#}");
    assert_eq!(wf["executions"], 2);
    assert_eq!(
        step(&env, "scan")["execution"],
        1,
        "kept from the first: {env:#}"
    );
    assert_eq!(step(&env, "slow")["execution"], 2, "{env:#}");
    assert_eq!(
        step(&env, "slow")["attempts"],
        2,
        "one try in each: {env:#}"
    );
    assert_eq!(step(&env, "publish")["execution"], 2, "{env:#}");

    // Invocations: the finished step's tool ran once in all; the
    // interrupted one ran again, in its workspace (its checkpoint found).
    let counts = tool_runs(&p, &run_id);
    let counts: Vec<(&str, usize)> = counts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(counts, [("publisher", 1), ("scanner", 1), ("slow", 2)]);
    let slow_runs = step(&env, "slow")["run_ids"].as_array().unwrap().clone();
    let second = p
        .events(slow_runs[1].as_str().unwrap())
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Result(r) => r.envelope.tool.clone(),
            _ => None,
        })
        .unwrap();
    assert_eq!(second.metrics["resumed"], true);
    assert_eq!(second.resumed_from.as_deref(), slow_runs[0].as_str());

    // One stream across both executions, gap-free.
    let events = p.events(&run_id);
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64, "{events:#?}");
    }

    // The result equals an uninterrupted run's.
    let q = nightly();
    let straight = workflow(
        &q,
        &["run", "nightly.yaml", "--input", r#"{"hold": 0}"#],
        &[],
    );
    let straight = envelope(&straight);
    assert_eq!(wf["outputs"], straight["workflow"]["outputs"]);
    assert_eq!(wf["outputs"], json!({"files": 3, "published": true}));
    let statuses = |v: &Value| -> Vec<(String, String)> {
        v["workflow"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["id"].to_string(), s["status"].to_string()))
            .collect()
    };
    assert_eq!(statuses(&env), statuses(&straight));

    let shown = workflow(&p, &["show", &run_id, "--json"], &[]);
    let shown: Value = serde_json::from_str(shown.stdout.trim()).unwrap();
    assert_eq!(shown["state"], "completed", "{shown:#}");
    assert_eq!(shown["executions"], 2, "{shown:#}");

    // A finished workflow resumed again runs nothing more.
    let again = workflow(&p, &["resume", &run_id], &[]);
    assert_eq!(again.code, Some(0), "{}", again.all_output());
    assert_eq!(tool_runs(&p, &run_id).values().sum::<usize>(), 4);
}

/// `sleeper`: says its pid, then works two minutes with heartbeats.
pub const SLEEPER: &str = r#"#!/bin/bash
echo "{\"v\":1,\"type\":\"progress\",\"pct\":1,\"msg\":\"pid $$\"}"
for i in $(seq 1 120); do sleep 1; echo '{"v":1,"type":"heartbeat"}'; done
echo '{"v":1,"type":"result","status":"ok"}'
"#;

/// A group of two sleepers, then a step that must never run once the
/// workflow is cancelled.
pub const WAIT: &str = "version: 1\nname: wait\nsteps:\n  - id: both\n    parallel:\n      steps:\n        - {id: one, tool: sleeper}\n        - {id: two, tool: sleeper}\n  - id: after\n    tool: publisher\n";

#[test]
fn cancelling_a_workflow_ends_every_running_step() {
    let p = project();
    p.tool("sleeper", "", SLEEPER);
    std::fs::write(p.root().join("wait.yaml"), WAIT).unwrap();
    let mut child = workflow_command(&p, &["run", "wait.yaml", "--stream"], &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut pids = Vec::new();
    let mut run_id = String::new();
    let start = Instant::now();
    while pids.len() < 2 && start.elapsed() < Duration::from_secs(120) {
        let Some(Ok(line)) = lines.next() else { break };
        let event: Event = serde_json::from_str(&line).unwrap();
        run_id = event.run_id.clone();
        pids.extend(tool_pid(&event, None));
    }
    assert_eq!(pids.len(), 2, "both members started");
    let signalled = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let mut rest = String::new();
    for line in lines.map_while(Result::ok) {
        rest = line;
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let last: Event = serde_json::from_str(&rest).unwrap();
    let EventBody::Result(result) = &last.body else {
        panic!("the stream ends with the result: {rest}");
    };
    let env = serde_json::to_value(&result.envelope).unwrap();
    assert_eq!(env["workflow"]["state"], "cancelled", "{env:#}");
    for id in ["both", "one", "two"] {
        assert_eq!(step(&env, id)["status"], "cancelled", "{id}: {env:#}");
    }
    assert!(step(&env, "after")["status"].is_null(), "{env:#}");
    for pid in pids {
        assert!(
            gone_within(pid, Duration::from_secs(20)),
            "tool {pid} survived"
        );
    }
    let counts = tool_runs(&p, &run_id);
    assert_eq!(counts.get("publisher"), None, "{counts:?}");
    let cancelled: Vec<Value> = super::workflow_support::runs(&p)
        .into_iter()
        .filter(|r| r["parent_run_id"] == run_id.as_str())
        .collect();
    assert_eq!(cancelled.len(), 2, "{cancelled:#?}");
    let listed = workflow(&p, &["runs", "--json"], &[]);
    let row: Value = serde_json::from_str(listed.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(row["state"], "cancelled", "{row:#}");
}

#[test]
fn invalid_workflow_files_are_refused_with_the_line_and_the_reason() {
    let p = project();
    let cases = [
        (
            "unknown_kind.yaml",
            "version: 1\nname: x\nsteps:\n  - id: a\n    tool: scanner\n  - id: b\n    shell: ls\n",
            7,
            // The kind of fault and its place, never the file's text.
            "unknown key: a step is one of tool, agent",
        ),
        (
            "missing_step.yaml",
            "version: 1\nname: x\nsteps:\n  - id: a\n    tool: scanner\n  - id: b\n    tool: fixer\n    args: [\"${steps.revew.output}\"]\n",
            8,
            "a reference to a missing step `revew`",
        ),
        (
            "cycle.yaml",
            "version: 1\nname: x\nsteps:\n  - id: a\n    tool: scanner\n    args: [\"${steps.b.output.n}\"]\n  - id: b\n    tool: fixer\n",
            4,
            "a cycle",
        ),
    ];
    for (file, text, line, reason) in cases {
        std::fs::write(p.root().join(file), text).unwrap();
        for verb in ["validate", "run"] {
            let run = workflow(&p, &[verb, file], &[]);
            assert_eq!(run.code, Some(2), "{file} {verb}: {}", run.all_output());
            assert!(
                run.stderr.contains(&format!("line {line}")) && run.stderr.contains(reason),
                "{file} {verb}: {}",
                run.stderr
            );
        }
    }
    // Nothing ran, nothing was recorded.
    assert!(super::workflow_support::runs(&p).is_empty());
}
