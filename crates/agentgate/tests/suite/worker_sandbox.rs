//! `agentgate worker` applies its own config's `sandbox.require` to every
//! job it claims: a job queued by a `serve` whose config requires nothing,
//! asking for `sandbox: off` (or for no level, the worker's default being
//! `off`), fails on the worker without its CLI starting, with an envelope
//! whose error names the field `sandbox`, the level and the requirement;
//! a job asking for `workspace` runs (a stand-in CLI that notes its start
//! in the job's working folder) under Landlock: its write outside the
//! workspace is refused, and its envelope reports the level it ran under.

use agentgate_protocol::{ErrorKind, SandboxLevel};
use agentgate_store::JobState;
use serde_json::{Value, json};

use super::serve_queue_support::{QueueHome, post, submit_ok, wait_until};
use super::serve_support::Serve;
use super::store_postgres::fresh_database;
use super::worker::{Worker, job, wait_for_state};

/// The stand-in `claude`: notes `TAG` and whether it could write in
/// `$HOME` (outside the workspace) in `started` in its working folder,
/// and answers `done TAG`.
const STAND_IN: &str = r#"#!/bin/bash
prompt="$(cat) $*"
tag=$(printf '%s' "$prompt" | grep -o 'tag-[a-z0-9]*' | head -1)
if (echo x > "$HOME/outside-$tag") 2>/dev/null; then outside=written; else outside=refused; fi
echo "$tag outside=$outside" >> started
echo '{"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"done '"$tag"'","session_id":"sess-1","num_turns":1}'
"#;

/// The server's config: no policy, so it queues every level.
const SERVE_CONFIG: &str = "queue:\n  lease: 5s\n";
/// The worker's config: the policy.
const WORKER_CONFIG: &str = "version: 1\nqueue:\n  lease: 5s\nsandbox:\n  require: workspace\n";

/// A PostgreSQL store, a `serve --no-executor` on it with no policy, a
/// worker with the policy, the stand-in as `claude`, and the jobs'
/// working folder.
struct Setup {
    store: String,
    home: QueueHome,
    server: Serve,
    worker: Worker,
    workspace_dir: std::path::PathBuf,
}

fn setup() -> Setup {
    let store = fresh_database();
    let home = QueueHome::new(SERVE_CONFIG);
    let worker_config = home.file("worker.yaml");
    std::fs::write(&worker_config, WORKER_CONFIG).unwrap();
    std::fs::write(home.file("bin/claude"), STAND_IN).unwrap();
    let workspace_dir = home.file("workspace");
    std::fs::create_dir(&workspace_dir).unwrap();
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let worker = Worker::start_with(
        &home,
        &store,
        &[],
        &[("AGENTGATE_CONFIG", worker_config.to_str().unwrap())],
    );
    Setup {
        store,
        home,
        server,
        worker,
        workspace_dir,
    }
}

#[test]
fn a_worker_refuses_jobs_below_its_required_sandbox_and_runs_the_others() {
    let Setup {
        store,
        home,
        server,
        worker,
        workspace_dir,
    } = setup();
    let cwd = workspace_dir.to_str().unwrap();

    let off = submit_ok(
        &server.url,
        "tag-off",
        json!({"sandbox": "off", "cwd": cwd}),
    );
    let unasked = submit_ok(&server.url, "tag-none", json!({"cwd": cwd}));
    let workspace = submit_ok(
        &server.url,
        "tag-ws",
        json!({"sandbox": "workspace", "cwd": cwd}),
    );

    for (id, level) in [(&off, "`off`"), (&unasked, "`off` (the default")] {
        let failed = wait_for_state(&store, id, JobState::Failed);
        let envelope = failed.envelope.as_ref().expect("a refused job's envelope");
        let error = envelope.error.as_deref().unwrap_or_default();
        assert_eq!(
            envelope.error_type,
            Some(ErrorKind::InvalidInput),
            "{error}"
        );
        assert!(
            error.starts_with("sandbox: ")
                && error.contains(level)
                && error.contains("requires `workspace`")
                && error.contains("sandbox.require"),
            "{id}: {error}"
        );
        assert_eq!(envelope.sandbox, None, "nothing ran: {envelope:?}");
        assert!(
            failed
                .error
                .as_deref()
                .is_some_and(|e| e.starts_with("sandbox: ")),
            "{failed:?}"
        );
        assert_eq!(failed.attempts, 1, "refused once, not retried: {failed:?}");
    }

    let done = wait_until("the workspace job to end", || {
        let j = job(&store, &workspace);
        j.ended_at.is_some().then_some(j)
    });
    assert_eq!(
        done.state,
        JobState::Succeeded,
        "{done:?}\n{}",
        worker.log()
    );
    let envelope = done.envelope.as_ref().expect("an envelope");
    assert_eq!(envelope.response, "done tag-ws", "{envelope:?}");
    let sandbox = envelope.sandbox.as_ref().expect("the envelope's sandbox");
    assert_eq!(sandbox.level, SandboxLevel::Workspace, "{sandbox:?}");

    // Only the job that met the policy started its CLI, and Landlock
    // kept its write outside the workspace out.
    let started = std::fs::read_to_string(workspace_dir.join("started")).unwrap();
    assert_eq!(started, "tag-ws outside=refused\n", "{}", worker.log());
    assert!(!home.file("outside-tag-ws").exists());
}

#[test]
fn a_workflow_jobs_agent_step_below_the_workers_required_sandbox_fails_it() {
    let Setup {
        store,
        home: _home,
        server,
        worker,
        workspace_dir,
    } = setup();
    let cwd = workspace_dir.to_str().unwrap();
    let workflow = json!({
        "version": 1,
        "name": "w",
        "steps": [
            {"id": "boxed", "agent": {"provider": "claude", "prompt": "tag-wfws", "cwd": cwd, "sandbox": "workspace"}},
            {"id": "open", "agent": {"provider": "claude", "prompt": "tag-wfoff", "cwd": cwd}},
        ],
    });
    let body = json!({"workflow": workflow, "base_dir": cwd});
    let accepted = post(&server.url, "/v1/workflows", &body.to_string());
    assert_eq!(accepted.status, 201, "{accepted:?}");
    let id = accepted.json()["run_id"].as_str().unwrap().to_owned();

    let failed = wait_for_state(&store, &id, JobState::Failed);
    let envelope = serde_json::to_value(failed.envelope.as_ref().unwrap()).unwrap();
    let steps = envelope["workflow"]["steps"].as_array().unwrap();
    let step = |id: &str| -> &Value { steps.iter().find(|s| s["id"] == id).unwrap() };
    assert_eq!(step("boxed")["status"], "ok", "{envelope:#}");
    assert_eq!(step("open")["status"], "failed", "{envelope:#}");
    let reason = step("open")["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("sandbox level `off`") && reason.contains("requires `workspace`"),
        "{reason}"
    );
    // The step at `workspace` ran confined; the refused one never started.
    let started = std::fs::read_to_string(workspace_dir.join("started")).unwrap();
    assert_eq!(started, "tag-wfws outside=refused\n", "{}", worker.log());
}
