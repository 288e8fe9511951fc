//! Workflows submitted to a real `agentgate serve` (issue 15, "where it
//! runs"): `POST /v1/workflows` and `agentgate workflow submit` queue a job
//! whose run is the workflow; its events stream over SSE; the server killed
//! with `kill -9` mid-step and started again resumes it without running
//! finished steps again; a workflow that failed recoverably is retried by
//! the queue as a resume; a cancel (the client's Ctrl-C) ends every running
//! step; a job handed back by a stopping worker, twice, is followed live
//! over one SSE connection to its end; an invalid workflow is refused with
//! its line, nothing queued.

use std::process::Stdio;
use std::time::{Duration, Instant};

use agentgate_protocol::{Event, EventBody};
use serde_json::{Value, json};

use super::serve_support::{Env, Response, Serve, get};
use super::sse_client::{Message, stream};
use super::tool_support::Project;
use super::workflow_resume::{NIGHTLY, SLEEPER, SLOW, WAIT, gone_within};
use super::workflow_support::{project, step, tool_pid, tool_runs, workflow_command};

pub const TOKEN: &str = "workflow-serve-token-0123456789ab";

/// `gate FILE`: says its pid, then waits (with heartbeats) until FILE
/// exists.
pub const GATE: &str = r#"#!/bin/bash
echo "{\"v\":1,\"type\":\"progress\",\"pct\":1,\"msg\":\"pid $$\"}"
for i in $(seq 1 1200); do [ -e "$1" ] && break; sleep 0.1; echo '{"v":1,"type":"heartbeat"}'; done
echo '{"v":1,"type":"result","status":"ok","metrics":{"opened":true}}'
"#;
const PATIENCE: Duration = Duration::from_secs(120);

pub fn serve(p: &Project) -> Serve {
    serve_with(p, &[])
}

/// `agentgate serve ARGS` on the project's store, with the test's token.
fn serve_with(p: &Project, args: &[&str]) -> Serve {
    let bin = p.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    Serve::start(
        &Env {
            home: p.root(),
            bin: &bin,
            vars: vec![
                ("AGENTGATE_HOME", p.home().display().to_string()),
                ("AGENTGATE_TOKEN", TOKEN.to_owned()),
            ],
        },
        args,
    )
}

pub fn post(url: &str, path: &str, body: &Value) -> Response {
    super::serve_support::post_json(url, path, TOKEN, &body.to_string())
}

/// `agentgate workflow ARGS` as a client of `url`.
fn client(p: &Project, url: &str, args: &[&str]) -> std::process::Command {
    let env = [
        ("AGENTGATE_SERVER".to_owned(), url.to_owned()),
        ("AGENTGATE_TOKEN".to_owned(), TOKEN.to_owned()),
    ];
    workflow_command(p, args, &env)
}

/// The run `id` once `done` says so, polled at most [`PATIENCE`].
pub fn wait_for_run(url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let run = get(url, &format!("/v1/runs/{id}"), Some(TOKEN)).json();
        if done(&run) {
            return run;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "run {id} never got there: {run:#}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Reads the run's SSE stream until `n` tools of `tasks` said their pids.
fn pids_from_stream(url: &str, id: &str, tasks: &[&str]) -> Vec<u32> {
    let mut events = stream(url, &format!("/v1/runs/{id}/events"), TOKEN, None);
    let mut pids = Vec::new();
    let start = Instant::now();
    while pids.len() < tasks.len() {
        assert!(start.elapsed() < PATIENCE, "no pids from {tasks:?}");
        let Some(message) = events.next_event() else {
            panic!("the stream ended before {tasks:?} started");
        };
        if message.event.is_some() {
            continue;
        }
        let event: Event = serde_json::from_value(message.json()).unwrap();
        pids.extend(tasks.iter().filter_map(|t| tool_pid(&event, Some(t))));
    }
    pids
}

#[test]
fn a_workflow_job_resumes_after_its_server_is_killed() {
    let p = project();
    p.tool("slow", "", SLOW);
    std::fs::write(p.root().join("nightly.yaml"), NIGHTLY).unwrap();
    let first = serve(&p);
    let submitted = super::support::run_bounded(
        client(
            &p,
            &first.url,
            &["submit", "nightly.yaml", "--input", r#"{"hold": 120}"#],
        ),
        PATIENCE,
    );
    assert_eq!(submitted.code, Some(0), "{}", submitted.all_output());
    let answer: Value = serde_json::from_str(submitted.stdout.trim()).unwrap();
    assert_eq!(answer["created"], true, "{answer:#}");
    let id = answer["run_id"].as_str().unwrap().to_owned();

    // The workflow runs as a job of kind workflow; its step `slow` starts.
    let pid = pids_from_stream(&first.url, &id, &["slow"])[0];
    let listed = get(&first.url, "/v1/runs", Some(TOKEN)).json();
    assert_eq!(listed["runs"][0]["run_id"], id.as_str(), "{listed:#}");
    assert_eq!(listed["runs"][0]["kind"], "workflow", "{listed:#}");
    assert_eq!(listed["runs"][0]["status"], "running", "{listed:#}");

    first.stop("KILL");
    assert!(
        gone_within(pid, Duration::from_secs(20)),
        "the running tool {pid} outlived its server"
    );
    assert_eq!(tool_runs(&p, &id).get("slow"), Some(&1));

    // A new server takes the dead one's job back and resumes its run.
    let second = serve(&p);
    let run = wait_for_run(&second.url, &id, |r| r["status"] == "succeeded");
    let env = &run["envelope"];
    assert_eq!(env["run_id"], id.as_str(), "{run:#}");
    assert_eq!(env["workflow"]["state"], "completed", "{env:#}");
    assert_eq!(env["workflow"]["executions"], 2, "{env:#}");
    assert_eq!(step(env, "scan")["execution"], 1, "kept: {env:#}");
    assert_eq!(step(env, "slow")["execution"], 2, "{env:#}");
    assert_eq!(
        env["workflow"]["outputs"],
        json!({"files": 3, "published": true})
    );
    let counts = tool_runs(&p, &id);
    let counts: Vec<(&str, usize)> = counts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(counts, [("publisher", 1), ("scanner", 1), ("slow", 2)]);

    // One stream over both servers' executions: ids are the seqs, gap-free,
    // to the final result.
    let messages: Vec<Message> =
        stream(&second.url, &format!("/v1/runs/{id}/events"), TOKEN, None).rest();
    let events: Vec<Event> = messages
        .iter()
        .filter(|m| m.event.is_none())
        .map(|m| serde_json::from_value(m.json()).unwrap())
        .collect();
    for (i, (m, e)) in messages.iter().zip(&events).enumerate() {
        assert_eq!(e.seq, i as u64);
        assert_eq!(m.id.as_deref(), Some(i.to_string().as_str()));
    }
    let states: Vec<(String, Option<u32>)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::WorkflowState(s) => Some((s.state.as_str().to_owned(), s.execution)),
            _ => None,
        })
        .collect();
    assert_eq!(
        states,
        [
            ("running".to_owned(), Some(1)),
            ("running".to_owned(), Some(2)),
            ("completed".to_owned(), None),
        ],
        "{events:#?}"
    );
    assert!(matches!(
        events.last().map(|e| &e.body),
        Some(EventBody::Result(_))
    ));
}

#[test]
fn a_workflow_that_failed_recoverably_is_retried_by_the_queue_as_a_resume() {
    let p = project();
    // Two tries per job, one second apart; the step itself has no retries.
    std::fs::write(
        p.root().join("agentgate.yaml"),
        "version: 1\nqueue:\n  max_attempts: 2\n  backoff: 1s\n",
    )
    .unwrap();
    std::fs::write(
        p.root().join("shaky.yaml"),
        "version: 1\nname: shaky\nsteps:\n  - id: scan\n    tool: scanner\n    args: [--input, data.json]\n    copy_in: [data.json]\n  - id: net\n    tool: flaky\n",
    )
    .unwrap();
    let server = serve(&p);
    let body = json!({"file": p.root().join("shaky.yaml").display().to_string()});
    let accepted = post(&server.url, "/v1/workflows", &body);
    assert_eq!(accepted.status, 201, "{}", accepted.body);
    let id = accepted.json()["run_id"].as_str().unwrap().to_owned();
    let run = wait_for_run(&server.url, &id, |r| {
        matches!(r["status"].as_str(), Some("succeeded" | "failed"))
    });
    assert_eq!(run["status"], "succeeded", "{run:#}");
    assert_eq!(run["attempts"], 2, "{run:#}");
    let env = &run["envelope"];
    assert_eq!(
        env["workflow"]["executions"], 2,
        "one run, resumed: {env:#}"
    );
    assert_eq!(step(env, "scan")["execution"], 1, "kept: {env:#}");
    assert_eq!(step(env, "net")["execution"], 2, "{env:#}");
    // The flaky tool's second run continued in its first run's workspace.
    let counts = tool_runs(&p, &id);
    let counts: Vec<(&str, usize)> = counts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(counts, [("flaky", 2), ("scanner", 1)]);
}

#[test]
fn cancelling_a_submitted_workflow_ends_every_running_step() {
    let p = project();
    p.tool("sleeper", "", SLEEPER);
    std::fs::write(p.root().join("wait.yaml"), WAIT).unwrap();
    let server = serve(&p);
    // `workflow submit --wait`, interrupted: the client cancels the job.
    let waiting = client(&p, &server.url, &["submit", "wait.yaml", "--wait"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let id = loop {
        let listed = get(&server.url, "/v1/runs", Some(TOKEN)).json();
        if let Some(id) = listed["runs"][0]["run_id"].as_str() {
            break id.to_owned();
        }
        assert!(start.elapsed() < PATIENCE, "nothing was queued");
        std::thread::sleep(Duration::from_millis(50));
    };
    let pids = pids_from_stream(&server.url, &id, &["one", "two"]);
    let signalled = std::process::Command::new("kill")
        .args(["-INT", &waiting.id().to_string()])
        .status()
        .unwrap();
    assert!(signalled.success());
    let run = wait_for_run(&server.url, &id, |r| r["status"] == "cancelled");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(waiting.wait_with_output());
    });
    let out = rx.recv_timeout(PATIENCE).unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    let printed: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(printed["workflow"]["state"], "cancelled", "{printed:#}");

    let env = &run["envelope"];
    assert_eq!(env["workflow"]["state"], "cancelled", "{env:#}");
    for id in ["both", "one", "two"] {
        assert_eq!(step(env, id)["status"], "cancelled", "{id}: {env:#}");
    }
    assert!(step(env, "after")["status"].is_null(), "{env:#}");
    for pid in pids {
        assert!(
            gone_within(pid, Duration::from_secs(20)),
            "tool {pid} survived"
        );
    }
    assert_eq!(tool_runs(&p, &id).get("publisher"), None);
}

#[test]
fn an_invalid_workflow_is_refused_with_its_line_and_nothing_is_queued() {
    let p = project();
    let cycle = "version: 1\nname: x\nsteps:\n  - id: a\n    tool: scanner\n    args: [\"${steps.b.output.n}\"]\n  - id: b\n    tool: fixer\n";
    std::fs::write(p.root().join("cycle.yaml"), cycle).unwrap();
    let server = serve(&p);
    let base = p.root().display().to_string();
    for body in [
        json!({"workflow": cycle, "base_dir": base}),
        json!({"file": p.root().join("cycle.yaml").display().to_string()}),
    ] {
        let refused = post(&server.url, "/v1/workflows", &body);
        assert_eq!(refused.status, 422, "{}", refused.body);
        let error = &refused.json()["error"];
        assert_eq!(error["field"], "workflow", "{error:#}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("line 4") && message.contains("a cycle"),
            "{message}"
        );
    }
    let refused = post(&server.url, "/v1/workflows", &json!({"workflow": cycle}));
    assert_eq!(refused.status, 422);
    assert_eq!(refused.json()["error"]["field"], "base_dir");
    let submitted =
        super::support::run_bounded(client(&p, &server.url, &["submit", "cycle.yaml"]), PATIENCE);
    assert_eq!(submitted.code, Some(2), "{}", submitted.all_output());
    assert!(submitted.stderr.contains("line 4"), "{}", submitted.stderr);
    let listed = get(&server.url, "/v1/runs", Some(TOKEN)).json();
    assert_eq!(listed["runs"], json!([]), "{listed:#}");
}

/// `agentgate worker --grace 0` on the project's store; stopped with
/// SIGTERM, its running jobs are cancelled and handed back at once.
fn worker(p: &Project) -> std::process::Child {
    let bin = p.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::process::Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .args(["worker", "--grace", "0"])
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("HOME", p.root())
        .env("AGENTGATE_HOME", p.home())
        .current_dir(p.root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn stop(mut worker: std::process::Child) {
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &worker.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = Instant::now();
    while worker.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < PATIENCE, "the worker did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_workflow_job_handed_back_twice_is_followed_live_to_its_end() {
    let p = project();
    p.tool("gate", "", GATE);
    let release = p.root().join("release");
    std::fs::write(
        p.root().join("gated.yaml"),
        format!(
            "version: 1\nname: gated\nsteps:\n  - id: scan\n    tool: scanner\n    args: [--input, data.json]\n    copy_in: [data.json]\n  - id: gate\n    tool: gate\n    args: [\"{}\"]\n",
            release.display()
        ),
    )
    .unwrap();
    let api = serve_with(&p, &["--no-executor"]);
    let body = json!({"file": p.root().join("gated.yaml").display().to_string()});
    let accepted = post(&api.url, "/v1/workflows", &body);
    assert_eq!(accepted.status, 201, "{}", accepted.body);
    let id = accepted.json()["run_id"].as_str().unwrap().to_owned();
    let mut events = stream(&api.url, &format!("/v1/runs/{id}/events"), TOKEN, None);
    let mut messages: Vec<Message> = Vec::new();
    let mut read_until = |what: &str, done: &dyn Fn(&Message) -> bool| {
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < PATIENCE, "no {what}: {messages:#?}");
            let message = events
                .next_event()
                .unwrap_or_else(|| panic!("the stream ended before {what}: {messages:#?}"));
            let hit = done(&message);
            messages.push(message);
            if hit {
                return;
            }
        }
    };
    let gate_started = |m: &Message| {
        m.event.is_none()
            && serde_json::from_value::<Event>(m.json())
                .is_ok_and(|e| tool_pid(&e, Some("gate")).is_some())
    };
    let requeued = |m: &Message| m.event.as_deref() == Some("requeued");
    // Two workers stopped while the gate waits: each hands the job back.
    for _ in 0..2 {
        let w = worker(&p);
        read_until("the gate's start", &gate_started);
        stop(w);
        read_until("requeued", &requeued);
    }
    let w = worker(&p);
    read_until("the gate's start", &gate_started);
    std::fs::write(&release, "").unwrap();
    let start = Instant::now();
    while let Some(m) = events.next_event() {
        assert!(start.elapsed() < PATIENCE, "the stream does not end");
        messages.push(m);
    }
    stop(w);

    let run = get(&api.url, &format!("/v1/runs/{id}"), Some(TOKEN)).json();
    assert_eq!(run["status"], "succeeded", "{run:#}");
    assert_eq!(run["envelope"]["workflow"]["executions"], 3, "{run:#}");
    assert_eq!(step(&run["envelope"], "scan")["execution"], 1, "{run:#}");
    assert_eq!(tool_runs(&p, &id).get("scanner"), Some(&1));
    assert_eq!(tool_runs(&p, &id).get("gate"), Some(&3));
    // One `requeued` per hand-back; every other message is an event whose
    // id is its seq, gap-free; the last is the final result.
    let kinds: Vec<&str> = messages.iter().filter_map(|m| m.event.as_deref()).collect();
    assert_eq!(kinds, ["requeued", "requeued"], "{messages:#?}");
    let events: Vec<Event> = messages
        .iter()
        .filter(|m| m.event.is_none())
        .map(|m| serde_json::from_value(m.json()).unwrap())
        .collect();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64, "{messages:#?}");
    }
    let results: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Result(r) => Some(
                r.envelope
                    .workflow
                    .as_ref()
                    .map_or("-".to_owned(), |w| w.state.as_str().to_owned()),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["cancelled", "cancelled", "completed"]);
}

/// Issue 31: `POST /v1/workflows {"file": ...}` reads no file outside the
/// server's folders, and a file that does not parse is refused with its
/// line, never its text (over the API and on the command line).
#[test]
fn a_workflow_file_is_never_echoed_and_only_the_servers_folders_are_read() {
    let p = project();
    let shadow_like = "root:$6$salt-8f3a$hash-0c7e:20228:0:99999:7:::\n";
    std::fs::write(p.root().join("shadow.yaml"), shadow_like).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().join("wf.yaml");
    std::fs::write(&elsewhere, shadow_like).unwrap();
    let server = serve(&p);
    for (file, field, says) in [
        ("/etc/shadow".to_owned(), "file", "is not a workflow file"),
        (
            elsewhere.display().to_string(),
            "file",
            "is outside the folders this server takes workflows from",
        ),
        (
            format!("{}/../../etc/passwd.yaml", p.root().display()),
            "file",
            "is outside",
        ),
        (
            p.root().join("shadow.yaml").display().to_string(),
            "workflow",
            "line 1 column 1",
        ),
    ] {
        let refused = post(&server.url, "/v1/workflows", &json!({"file": file}));
        assert_eq!(refused.status, 422, "{file}: {}", refused.body);
        let error = &refused.json()["error"];
        assert_eq!(error["field"], field, "{file}: {error:#}");
        assert!(
            error["message"].as_str().unwrap().contains(says),
            "{file}: {error:#}"
        );
        for text in ["root:", "salt", "8f3a", "0c7e"] {
            assert!(!refused.body.contains(text), "{file}: {}", refused.body);
        }
    }
    let listed = get(&server.url, "/v1/runs", Some(TOKEN)).json();
    assert_eq!(listed["runs"], json!([]), "nothing was queued: {listed:#}");

    // `agentgate workflow run FILE` says where, not what.
    let run =
        super::support::run_bounded(workflow_command(&p, &["run", "shadow.yaml"], &[]), PATIENCE);
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(run.stderr.contains("line 1 column 1"), "{}", run.stderr);
    for text in ["root:", "salt", "8f3a", "0c7e"] {
        assert!(!run.stderr.contains(text), "{}", run.stderr);
    }
}
