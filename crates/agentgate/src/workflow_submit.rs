//! `agentgate workflow submit FILE`: a workflow sent to an `agentgate
//! serve` to be queued (`POST /v1/workflows`); with `--wait` or
//! `--stream`, followed to its end as `agentgate workflow run` prints it.
//! Both take `--sandbox LEVEL` ([`with_sandbox`]): the level every agent
//! step's run gets.

use std::path::PathBuf;
use std::process::ExitCode;

use agentgate_core::{MIB, SandboxLevel, read_text_file};
use agentgate_server::WorkflowSubmission;
use agentgate_tools::workflow::Workflow;
use agentgate_tools::workflow::definition::StepDef;
use anyhow::Context as _;
use serde_json::Value;

use crate::remote::{QueueArgs, ServerArgs, StopSignals, after_submit, client_failed, runtime};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workflow file (YAML, `version: 1`). The server finds the tool
    /// registry and relative paths from its folder, so that folder must be
    /// on the server's machine too.
    file: PathBuf,
    /// The workflow's input, JSON.
    #[arg(long, value_name = "JSON", conflicts_with = "input_file")]
    input: Option<String>,
    /// Read the input from this JSON file.
    #[arg(long, value_name = "FILE")]
    input_file: Option<PathBuf>,
    /// Wait for the workflow to end, print its envelope and exit as
    /// `workflow run` would.
    #[arg(long)]
    wait: bool,
    /// Wait, printing every event as a JSON line.
    #[arg(long)]
    stream: bool,
    /// Pretty-print the answer or the envelope.
    #[arg(long)]
    pretty: bool,
    /// A label KEY=VALUE of the workflow's job (repeatable), as `submit
    /// --label`: listed and cancelled by label like a run; its envelope
    /// and every step's run carry it.
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    labels: Vec<(String, String)>,
    #[command(flatten)]
    sandbox: crate::run::SandboxArgs,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    server: ServerArgs,
}

fn parse_label(s: &str) -> Result<(String, String), String> {
    agentgate_protocol::parse_label(s).map_err(|e| e.to_string())
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // Checked here first: the error names this file and its line. The
    // server gets the checked definition and the file's folder.
    let wf = with_sandbox(Workflow::load_file(&args.file)?, args.sandbox.sandbox)?;
    let submission = WorkflowSubmission {
        workflow: Some(serde_json::to_value(&wf.def).context("cannot encode the workflow")?),
        base_dir: Some(wf.base_dir.display().to_string()),
        input: read_input(args.input, args.input_file)?,
        priority: args.queue.priority,
        idempotency_key: args.queue.idempotency_key,
        not_before: args.queue.not_before,
        labels: args.labels.iter().cloned().collect(),
        ..WorkflowSubmission::default()
    };
    let client = match args.server.client() {
        Ok(c) => c,
        Err(e) => return Ok(client_failed(&e)),
    };
    runtime()?.block_on(async {
        let signals = StopSignals::watch()?;
        let submitted = client.submit_workflow(&submission).await;
        after_submit(
            &client,
            submitted,
            args.stream,
            None,
            args.wait,
            args.pretty.then_some(true),
            signals,
        )
        .await
    })
}

/// `wf` with every agent step's run (a `parallel` group's members' too,
/// and each decision's agent) at sandbox `level`, as its request's
/// `sandbox` field: over what the file says, as `run --sandbox` is over
/// the config. The definition is stored with the workflow's run, so a
/// resume runs at the same level, and a server plans each step with it
/// (refusing, as for a run, a level below its `sandbox.require`).
pub(crate) fn with_sandbox(wf: Workflow, level: Option<SandboxLevel>) -> anyhow::Result<Workflow> {
    let Some(level) = level else {
        return Ok(wf);
    };
    let mut def = wf.def;
    set_sandbox(&mut def.steps, level);
    Ok(Workflow::from_def(def, &wf.base_dir)?)
}

fn set_sandbox(steps: &mut [StepDef], level: SandboxLevel) {
    let set = |agent: &mut Value| {
        if let Value::Object(fields) = agent {
            fields.insert("sandbox".to_owned(), Value::from(level.as_str()));
        }
    };
    for step in steps {
        if let Some(agent) = &mut step.agent {
            set(agent);
        }
        if let Some(decision) = &mut step.decision {
            set(&mut decision.agent);
        }
        if let Some(group) = &mut step.parallel {
            set_sandbox(&mut group.steps, level);
        }
    }
}

/// The workflow's input: `--input` JSON, or the JSON of `--input-file`;
/// `null` without either.
pub(crate) fn read_input(input: Option<String>, file: Option<PathBuf>) -> anyhow::Result<Value> {
    let text = match (input, file) {
        (Some(text), _) => text,
        (None, Some(path)) => read_text_file(&path, 16 * MIB, "the workflow's input")
            .with_context(|| format!("cannot read {}", path.display()))?,
        (None, None) => return Ok(Value::Null),
    };
    agentgate_protocol::strict_json::from_str(&text).map_err(|e| {
        if e.is_data() {
            anyhow::anyhow!("--input: {e}")
        } else {
            anyhow::anyhow!("--input is not JSON: {e}")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_step_gets_the_level_over_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("wf.yaml");
        std::fs::write(
            &file,
            "version: 1\nname: t\nsteps:\n  - id: lint\n    tool: lint\n  - id: decide\n    decision:\n      for: lint\n      agent: {provider: claude, prompt: choose}\n      choices: [a, b]\n  - id: both\n    parallel:\n      steps:\n        - id: one\n          agent: {provider: claude, prompt: one, sandbox: \"off\"}\n        - id: two\n          agent: {provider: codex, prompt: two}\n",
        )
        .unwrap();
        let wf = Workflow::load_file(&file).unwrap();
        let unchanged = with_sandbox(wf.clone(), None).unwrap();
        assert_eq!(unchanged.def, wf.def);
        let wf = with_sandbox(wf, Some(SandboxLevel::Workspace)).unwrap();
        let group = &wf.def.steps[2].parallel.as_ref().unwrap().steps;
        let agents = [
            &wf.def.steps[1].decision.as_ref().unwrap().agent,
            group[0].agent.as_ref().unwrap(),
            group[1].agent.as_ref().unwrap(),
        ];
        for agent in agents {
            let request = agentgate_tools::workflow::agent_request(agent, dir.path()).unwrap();
            let (flags, _) = request.to_flags().unwrap();
            assert_eq!(flags.sandbox, Some(SandboxLevel::Workspace), "{agent}");
        }
        assert!(wf.def.steps[0].agent.is_none(), "a tool step is left alone");
    }
}
