//! A parallel group's failure policies and the workflow's deadline, with
//! stand-in tools: `fail_fast` cancels the running members and starts no
//! more; `collect` runs every member that can run; a member whose sibling
//! failed is not run; the workflow's `timeout` cancels what runs and fails
//! the workflow with exit 124, and so does a group's own `timeout`.

use std::collections::BTreeMap;

use super::workflow_support::{envelope, project, step, tool_runs, workflow};

/// `broken`: fails for good (an error no registry entry makes retryable).
const BROKEN: &str = r#"#!/bin/bash
echo '{"v":1,"type":"error","code":"E_INPUT_NOT_FOUND","msg":"no input"}'
exit 1
"#;

/// `napper`: a minute of work with heartbeats.
const NAPPER: &str = r#"#!/bin/bash
for i in $(seq 1 60); do sleep 1; echo '{"v":1,"type":"heartbeat"}'; done
echo '{"v":1,"type":"result","status":"ok"}'
"#;

fn group(on_failure: &str, second: &str) -> String {
    format!(
        "version: 1\nname: group\nsteps:\n  - id: g\n    parallel:\n      on_failure: {on_failure}\n      steps:\n        - {{id: bad, tool: broken}}\n        - {{id: other, tool: {second}}}\n        - {{id: later, tool: fixer, needs: [bad]}}\n  - id: after\n    tool: publisher\n"
    )
}

fn counts(p: &super::tool_support::Project, run: &str) -> BTreeMap<String, usize> {
    tool_runs(p, run)
}

#[test]
fn fail_fast_cancels_the_running_members_and_collect_lets_them_finish() {
    let p = project();
    p.tool("broken", "", BROKEN);
    p.tool("napper", "", NAPPER);
    std::fs::write(p.root().join("fast.yaml"), group("fail_fast", "napper")).unwrap();
    std::fs::write(p.root().join("all.yaml"), group("collect", "fixer")).unwrap();

    let fast = workflow(&p, &["run", "fast.yaml"], &[]);
    let env = envelope(&fast);
    assert_eq!(fast.code, Some(1), "{env:#}\n{}", fast.stderr);
    assert_eq!(env["workflow"]["state"], "failed");
    assert_eq!(env["workflow"]["failed_step"], "g");
    let status = |id: &str| step(&env, id)["status"].clone();
    assert_eq!(status("bad"), "failed", "{env:#}");
    assert_eq!(
        status("other"),
        "cancelled",
        "the napper was stopped: {env:#}"
    );
    assert_eq!(status("later"), "cancelled", "{env:#}");
    assert!(status("after").is_null(), "{env:#}");
    assert!(
        env["duration_ms"].as_u64().unwrap() < 30_000,
        "the napper ran its minute: {env:#}"
    );
    let run = env["run_id"].as_str().unwrap();
    let c = counts(&p, run);
    assert_eq!(
        (
            c.get("broken"),
            c.get("napper"),
            c.get("fixer"),
            c.get("publisher")
        ),
        (Some(&1), Some(&1), None, None),
        "{c:?}"
    );

    let all = workflow(&p, &["run", "all.yaml"], &[]);
    let env = envelope(&all);
    assert_eq!(all.code, Some(1), "{env:#}\n{}", all.stderr);
    let status = |id: &str| step(&env, id)["status"].clone();
    assert_eq!(status("bad"), "failed", "{env:#}");
    assert_eq!(status("other"), "ok", "collect lets it finish: {env:#}");
    assert_eq!(
        status("later"),
        "cancelled",
        "it needs the failed one: {env:#}"
    );
    assert!(
        step(&env, "later")["reason"]
            .as_str()
            .is_some_and(|r| r.contains("`bad`")),
        "{env:#}"
    );
    let c = counts(&p, env["run_id"].as_str().unwrap());
    assert_eq!(c.get("fixer"), Some(&1), "{c:?}");
}

#[test]
fn the_workflows_deadline_cancels_what_runs_and_exits_124() {
    let p = project();
    p.tool("napper", "", NAPPER);
    std::fs::write(
        p.root().join("late.yaml"),
        "version: 1\nname: late\ntimeout: 2s\nsteps:\n  - id: nap\n    tool: napper\n  - id: after\n    tool: publisher\n",
    )
    .unwrap();
    let run = workflow(&p, &["run", "late.yaml"], &[]);
    let env = envelope(&run);
    assert_eq!(run.code, Some(124), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "timeout", "{env:#}");
    assert_eq!(env["workflow"]["state"], "failed", "{env:#}");
    assert_eq!(step(&env, "nap")["status"], "cancelled", "{env:#}");
    assert!(step(&env, "after")["status"].is_null(), "{env:#}");
    assert!(env["duration_ms"].as_u64().unwrap() < 30_000, "{env:#}");
}

#[test]
fn a_groups_timeout_cancels_its_members_and_fails_the_workflow_with_124() {
    let p = project();
    p.tool("napper", "", NAPPER);
    std::fs::write(
        p.root().join("slow_group.yaml"),
        "version: 1\nname: slow_group\nsteps:\n  - id: g\n    timeout: 2s\n    parallel:\n      max_concurrency: 1\n      steps:\n        - {id: first, tool: napper}\n        - {id: second, tool: napper}\n  - id: after\n    tool: publisher\n",
    )
    .unwrap();
    let run = workflow(&p, &["run", "slow_group.yaml"], &[]);
    let env = envelope(&run);
    assert_eq!(run.code, Some(124), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "timeout", "{env:#}");
    assert_eq!(env["workflow"]["failed_step"], "g", "{env:#}");
    let g = step(&env, "g");
    assert_eq!(g["status"], "failed", "{env:#}");
    assert!(
        g["reason"].as_str().unwrap().contains("timeout (2s)"),
        "{env:#}"
    );
    assert_eq!(step(&env, "first")["status"], "cancelled", "{env:#}");
    let second = step(&env, "second");
    assert_eq!(second["status"], "cancelled", "{env:#}");
    assert_eq!(second["attempts"], 0, "never started: {env:#}");
    assert!(step(&env, "after")["status"].is_null(), "{env:#}");
    assert!(env["duration_ms"].as_u64().unwrap() < 30_000, "{env:#}");
    let run_id = env["run_id"].as_str().unwrap();
    assert_eq!(
        counts(&p, run_id),
        BTreeMap::from([("napper".to_owned(), 1)])
    );
}

/// `deaf`: says its pid, then ignores SIGINT, SIGTERM and its cancel file.
const DEAF: &str = r#"#!/bin/bash
trap '' INT TERM
echo "{\"v\":1,\"type\":\"progress\",\"pct\":1,\"msg\":\"pid $$\"}"
while :; do echo '{"v":1,"type":"heartbeat"}'; sleep 0.2; done
"#;

#[test]
fn after_the_deadline_a_second_interrupt_still_kills_the_steps_at_once() {
    use std::io::{BufRead as _, BufReader};
    use std::time::{Duration, Instant};
    let p = project();
    p.tool("deaf", "", DEAF);
    std::fs::write(
        p.root().join("deaf.yaml"),
        "version: 1\nname: deaf\ntimeout: 1s\nsteps:\n  - id: hold\n    tool: deaf\n",
    )
    .unwrap();
    let mut child =
        super::workflow_support::workflow_command(&p, &["run", "deaf.yaml", "--stream"], &[])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let pid = loop {
        let line = lines.next().unwrap().unwrap();
        let event: agentgate_protocol::Event = serde_json::from_str(&line).unwrap();
        if let Some(pid) = super::workflow_support::tool_pid(&event, Some("hold")) {
            break pid;
        }
    };
    // The deadline has passed: the deaf tool is in its cancel grace (10 s),
    // then the termination table. A second interrupt kills it now.
    std::thread::sleep(Duration::from_secs(3));
    assert!(super::tool_support::alive(pid), "still in its grace");
    let sent = Instant::now();
    let signalled = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    let waited = sent.elapsed();
    assert_eq!(status.code(), Some(124), "the deadline stays the cause");
    assert!(
        waited < Duration::from_secs(5),
        "the interrupt did not cut the grace short ({waited:?})"
    );
    assert!(!super::tool_support::alive(pid), "the tool {pid} survived");
    let last: agentgate_protocol::Event = serde_json::from_str(rest.last().unwrap()).unwrap();
    assert!(matches!(
        last.body,
        agentgate_protocol::EventBody::Result(_)
    ));
}

/// Issue 31: a tool that exits with its manifest's `retryable_error` code
/// and says `"retryable": true`, with a code the registry does not list,
/// is retried by a step with `retries: 2` (it succeeds on its third try,
/// each try in the workspace of the first).
#[test]
fn a_step_retries_a_tool_whose_exit_status_and_message_say_retryable() {
    let p = project();
    p.tool(
        "busy",
        "exit_codes: {ok: 0, retryable_error: 20, fatal_error: 30}\n",
        r#"#!/bin/bash
n=$(cat "$WORKSPACE/tries" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$WORKSPACE/tries"
if [ "$n" -lt 3 ]; then
  echo '{"v":1,"type":"error","code":"E_UPSTREAM_BUSY","msg":"try later","retryable":true}'
  exit 20
fi
echo "{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"tries\":$n}}"
"#,
    );
    std::fs::write(
        p.root().join("busy.yaml"),
        "version: 1\nname: busy\nsteps:\n  - id: call\n    tool: busy\n    retries: 2\n    backoff: 100ms\n",
    )
    .unwrap();
    let run = workflow(&p, &["run", "busy.yaml"], &[]);
    let env = envelope(&run);
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let call = step(&env, "call");
    assert_eq!(call["status"], "ok", "{env:#}");
    assert_eq!(call["attempts"], 3, "{env:#}");
    let c = counts(&p, env["run_id"].as_str().unwrap());
    assert_eq!(c.get("busy"), Some(&3), "{c:?}");
}
