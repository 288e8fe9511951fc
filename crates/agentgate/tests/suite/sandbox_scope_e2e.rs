//! Classify and edit modes under `--sandbox workspace`, with the REAL
//! Claude Code against `agentgate fake-llm`, beyond the cold runs of
//! `sandbox_e2e.rs`: a warm session's turns of a `mode: classify` agent
//! (the long-lived process started inside the sandbox; both turns' writes
//! in the workspace refused as they happen, the `EACCES` in each turn's
//! `tool_result`, each turn still answering), and a workflow's agent step
//! of a `mode: edit` agent run by `agentgate workflow run --sandbox
//! workspace` (its write under `allow` lands, the one beside it is refused,
//! and the refusal is in the step run's stored events).

use agentgate_core::{Config, ConfigSource, Plan, RunFlags, Settings, TaskInput, plan};
use agentgate_fakellm::clients::Cli;
use agentgate_providers::PermissionMode;
use serde_json::Value;

use super::sandbox_e2e::{ANSWER, finding, script};
use super::support::{Client, FakeServer, run_bounded};
use super::tool_support::Project;
use super::workflow_support::{LIMIT, envelope, step};

/// A tool result in `events` that shows the shell's refusal.
fn refused_in(events: &[Value]) -> bool {
    events
        .iter()
        .any(|e| e["type"] == "tool_result" && e.to_string().contains("Permission denied"))
}

/// The plan of a turn of the `triage` agent (`mode: classify`) in a warm
/// session, at `level`.
fn classify_turn(
    bench: &super::warm_run::Bench,
    prompt: &str,
    level: agentgate_protocol::SandboxLevel,
) -> Plan {
    let setup = &bench.client.setup;
    let config = Config::parse(
        &format!(
            "version: 1\nagents:\n  triage:\n    provider: claude\n    model: {}\n    mode: classify\n",
            setup.model
        ),
        ConfigSource::Flag(setup.workdir.join("agentgate.yaml")),
    )
    .unwrap();
    let flags = RunFlags {
        agents: vec!["triage".to_owned()],
        session: Some("chat".into()),
        settings: Settings {
            binary: Some(bench.client.program.clone()),
            permission_mode: Some(PermissionMode::Bypass),
            cwd: Some(setup.workdir.clone()),
            timeout: Some(std::time::Duration::from_secs(120)),
            env: setup.env.clone(),
            ..Settings::default()
        },
        ..RunFlags::default()
    };
    let task = TaskInput {
        prompt: prompt.into(),
        ..TaskInput::default()
    };
    let mut plan = plan(&config, &flags, task).unwrap();
    for step in &mut plan.steps {
        assert_eq!(step.edit_scope, agentgate_core::EditScope::Nothing);
        step.request.env_clear = true;
        step.sandbox = Some(agentgate_core::StepSandbox::at(level));
    }
    plan
}

/// The warm turns of a classify agent: each turn's write in the workspace
/// is refused as it happens (the process started for the first turn and
/// reused for the second stays in the sandbox), each turn answers.
fn warm_classify(level: agentgate_protocol::SandboxLevel) -> Vec<(Value, Vec<Value>)> {
    let cli = Cli::Claude;
    let bench = super::warm_run::Bench::new(cli, &script(cli, "echo changed > classified.txt"));
    let work = bench.client.setup.workdir.clone();
    let mut turns = Vec::new();
    for prompt in ["Classify this, please.", "And this one, please."] {
        let (outcome, events) = bench.turn_with(&classify_turn(&bench, prompt, level));
        let env = serde_json::to_value(&outcome.envelope).unwrap();
        let all = format!("{env:#}\n{events:#?}");
        assert_eq!(env["response"], ANSWER, "{all}");
        turns.push((env, events));
        if work.join("classified.txt").exists() {
            break;
        }
    }
    turns
}

#[test]
fn a_classify_agents_warm_turns_cannot_write_the_workspace() {
    let turns = warm_classify(agentgate_protocol::SandboxLevel::Workspace);
    assert_eq!(turns.len(), 2, "a turn wrote in the workspace: {turns:#?}");
    let (first, second) = (&turns[0], &turns[1]);
    assert_eq!(first.0["warm"]["process"], "started", "{:#}", first.0);
    assert_eq!(second.0["warm"]["process"], "reused", "{:#}", second.0);
    assert_eq!(
        second.0["warm"]["pgid"], first.0["warm"]["pgid"],
        "the same process"
    );
    for (env, events) in &turns {
        assert_eq!(env["sandbox"]["state"], "enforced", "{env:#}");
        assert!(
            refused_in(events),
            "no tool_result with the refusal in this turn's events: {events:#?}"
        );
    }
}

/// What proves the test above can fail: without the sandbox, the classify
/// agent's warm turn writes (the mode is checked after the fact only).
#[test]
fn without_the_sandbox_a_classify_agents_warm_turn_writes() {
    let turns = warm_classify(agentgate_protocol::SandboxLevel::Off);
    assert_eq!(turns.len(), 1, "{turns:#?}");
    assert!(!refused_in(&turns[0].1), "{turns:#?}");
}

/// A workflow run by `agentgate workflow run` with `extra` (the sandbox
/// flag): one agent step, the `editor` agent (`mode: edit`, `allow:
/// [src]`). What it left: the envelope, the project (its store) and the
/// workspace.
struct EditWorkflow {
    env: Value,
    all: String,
    project: Project,
    work: tempfile::TempDir,
    _server: FakeServer,
}

fn edit_workflow(extra: &[&str]) -> EditWorkflow {
    let cli = Cli::Claude;
    let server = FakeServer::start(&script(
        cli,
        "echo kept > src/allowed.txt; echo refused > notes.txt",
    ));
    let client = Client::new(cli, &server);
    let p = Project::new();
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(work.path().join("src")).unwrap();
    let config = p.root().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\nagents:\n  editor:\n    provider: claude\n    model: {}\n    mode: edit\n    allow: [src]\n",
            client.setup.model
        ),
    )
    .unwrap();
    std::fs::write(
        p.root().join("scoped.yaml"),
        format!(
            "version: 1\nname: scoped\nsteps:\n  - id: edit\n    agent:\n      agent: editor\n      binary: {}\n      cwd: {}\n      permission_mode: bypass\n      prompt: \"Fix this, please.\"\n",
            client.program.display(),
            work.path().display()
        ),
    )
    .unwrap();
    let mut cmd = p.command(&["--config", config.to_str().unwrap(), "workflow", "run"]);
    cmd.args(extra)
        .arg("scoped.yaml")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AGENTGATE_HOME", p.home())
        .envs(
            client
                .setup
                .env
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str())),
        )
        .stdin(std::process::Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    let env = envelope(&run);
    let all = format!("{env:#}\n{}", run.all_output());
    EditWorkflow {
        env,
        all,
        project: p,
        work,
        _server: server,
    }
}

/// A run as the store keeps it (`agentgate runs show ID`): its record,
/// envelope and events.
fn stored_run(p: &Project, run_id: &str) -> Value {
    let shown = run_bounded(p.command(&["runs", "show", run_id]), LIMIT);
    assert_eq!(shown.code, Some(0), "{}", shown.all_output());
    serde_json::from_str(&shown.stdout).unwrap_or_else(|e| panic!("{e}: {}", shown.stdout))
}

/// The run of the workflow's `edit` step, as stored.
fn edit_step_run(wf: &EditWorkflow) -> Value {
    let all = &wf.all;
    let edit = step(&wf.env, "edit");
    let run_id = edit["run_ids"][0]
        .as_str()
        .unwrap_or_else(|| panic!("{all}"));
    stored_run(&wf.project, run_id)
}

#[test]
fn a_workflows_edit_agent_writes_only_under_its_allowed_paths() {
    let wf = edit_workflow(&["--sandbox", "workspace"]);
    let all = &wf.all;
    assert_eq!(wf.env["workflow"]["state"], "completed", "{all}");
    assert_eq!(step(&wf.env, "edit")["status"], "ok", "{all}");
    let stored = edit_step_run(&wf);
    let all = &format!("{all}\n{stored:#}");
    let result = &stored["run"]["envelope"];
    assert_eq!(result["response"], ANSWER, "{all}");
    assert_eq!(result["sandbox"]["state"], "enforced", "{all}");
    assert_eq!(result["sandbox"]["level"], "workspace", "{all}");
    assert_eq!(finding(wf.work.path(), "src/allowed.txt", all), "kept");
    assert!(
        !wf.work.path().join("notes.txt").exists(),
        "the step wrote outside its allowlist: {all}"
    );
    let events = stored["events"].as_array().unwrap();
    assert!(
        refused_in(events),
        "no tool_result with the refusal in the step's stored events: {all}"
    );
}

/// What proves the test above can fail: without the sandbox the write
/// beside `src` lands (found only after the fact).
#[test]
fn without_the_sandbox_a_workflows_edit_agent_writes_beside_its_paths() {
    let wf = edit_workflow(&["--sandbox", "off"]);
    let all = &wf.all;
    assert_eq!(finding(wf.work.path(), "src/allowed.txt", all), "kept");
    assert_eq!(finding(wf.work.path(), "notes.txt", all), "refused");
    let stored = edit_step_run(&wf);
    assert!(
        stored["run"]["envelope"].get("sandbox").is_none(),
        "{stored:#}"
    );
    assert!(!refused_in(stored["events"].as_array().unwrap()));
}
