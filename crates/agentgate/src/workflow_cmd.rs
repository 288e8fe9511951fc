//! `agentgate workflow run|validate|runs|show|resume|submit|schema`: workflows of
//! tool, agent, parallel and decision steps ([`agentgate_tools::workflow`]
//! does the work; this parses and prints).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use agentgate_core::Config;
use agentgate_protocol::Event;
use agentgate_store::StoreBackend;
use agentgate_tools::workflow::listing::{list_workflows, show_workflow};
use agentgate_tools::workflow::workflow_schema;
use agentgate_tools::workflow::{
    Workflow, WorkflowEnv, WorkflowObserver, WorkflowOutcome, WorkflowStart, resume_workflow,
    run_workflow, stored_workflow,
};
use anyhow::Context as _;

use crate::output::{Stdout, exit_code};
use crate::workflow_submit::{read_input, with_sandbox};

fn parse_label(s: &str) -> Result<(String, String), String> {
    agentgate_protocol::parse_label(s).map_err(|e| e.to_string())
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Run a workflow file and print its result envelope (its `workflow`
    /// lists every step); exit 0 completed, 1 failed, 75 failed with a
    /// recoverable error, 124 a deadline passed, 130 cancelled, 2 invalid.
    Run {
        /// The workflow file (YAML, `version: 1`).
        file: PathBuf,
        /// The workflow's input, JSON (`${input.NAME}` in the steps).
        #[arg(long, value_name = "JSON", conflicts_with = "input_file")]
        input: Option<String>,
        /// Read the input from this JSON file.
        #[arg(long, value_name = "FILE")]
        input_file: Option<PathBuf>,
        /// Print the workflow's events as JSON lines while it runs (each
        /// step's runs' events nested in `task_progress`; the last event,
        /// `result`, carries the envelope) instead of the envelope.
        #[arg(long)]
        stream: bool,
        /// Pretty-print the envelope (default: when stdout is a terminal).
        #[arg(long)]
        pretty: bool,
        /// A label KEY=VALUE of the workflow run (repeatable), as `run
        /// --label`: its envelope and every step's run carry it, and
        /// `agentgate runs --label` finds them.
        #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
        labels: Vec<(String, String)>,
        #[command(flatten)]
        sandbox: crate::run::SandboxArgs,
    },
    /// Check a workflow file (kinds, ids, references, cycles, agents'
    /// requests) without running it; exit 2 with the line and the reason
    /// when it is invalid.
    Validate {
        /// The workflow file.
        file: PathBuf,
    },
    /// List workflow runs, newest first: id, name, state, start.
    Runs {
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
        /// At most this many.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// Show a workflow run and its steps (an id or a unique prefix).
    Show {
        /// The run.
        run: String,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Continue a workflow run that failed, was cancelled or whose process
    /// died: its finished steps are kept, the others run again (a tool
    /// step that was running continues in its workspace).
    Resume {
        /// The run (an id or a unique prefix).
        run: String,
        /// Print the events as JSON lines, as `run --stream`.
        #[arg(long)]
        stream: bool,
        /// Pretty-print the envelope.
        #[arg(long)]
        pretty: bool,
    },
    /// Queue a workflow on an `agentgate serve` (POST /v1/workflows):
    /// print the server's answer, or with --wait / --stream follow it to
    /// its end; SIGINT or SIGTERM while waiting cancels it on the server.
    Submit(crate::workflow_submit::Args),
    /// Print the JSON Schema of the workflow file.
    Schema,
}

/// Examples, for `agentgate workflow --help`.
pub const AFTER_HELP: &str = "\
A workflow's steps run in file order; a `parallel` group runs its members
at once (at most max_concurrency), each waiting only for the steps it
`needs` or refers to. Tools come from the registry (see `agentgate tools`),
agents from the config; the registry is found from the workflow file's
folder. Each step's end is stored as it happens, so `workflow resume`
continues a workflow that failed or whose process died. See
docs/workflows.md.

EXAMPLES
  agentgate workflow validate triage.yaml
  agentgate workflow run triage.yaml --input '{\"files\": [\"a.json\"]}'
  agentgate workflow run triage.yaml --stream
  agentgate workflow runs
  agentgate workflow show r20261125T120000-1a2b3c4d
  agentgate workflow resume r20261125T120000-1a2b3c4d
  agentgate workflow submit triage.yaml --wait    (to the server at $AGENTGATE_SERVER)";

/// Run `agentgate workflow`.
pub fn run(
    args: Args,
    config_flag: Option<&Path>,
    store_flag: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let mut out = Stdout::new();
    match args.command {
        Sub::Submit(args) => crate::workflow_submit::run(args),
        Sub::Validate { file } => {
            let wf = Workflow::load_file(&file).map_err(usage)?;
            out.line(format_args!(
                "{}: workflow `{}` is valid ({} steps)",
                file.display(),
                wf.def.name,
                wf.ids().len()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Sub::Schema => {
            out.json(&workflow_schema(), Some(true))?;
            Ok(ExitCode::SUCCESS)
        }
        Sub::Runs { json, limit } => {
            let (_, store) = open(config_flag, store_flag)?;
            let runs = list_workflows(store.as_ref(), limit)?;
            if json {
                for r in &runs {
                    out.json_line(r)?;
                }
            } else {
                let rows: Vec<[String; 4]> = runs
                    .iter()
                    .map(|r| {
                        [
                            r.run_id.clone(),
                            r.name.clone(),
                            r.state.clone(),
                            r.started_at.to_string(),
                        ]
                    })
                    .collect();
                out.text(&crate::table::aligned(
                    ["RUN", "NAME", "STATE", "STARTED"],
                    &rows,
                ))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Sub::Show { run, json } => {
            let (_, store) = open(config_flag, store_flag)?;
            let view = show_workflow(store.as_ref(), &run)?;
            if json {
                out.json(&view, None)?;
            } else {
                let mut text = format!(
                    "{}  {}  {}  (executions: {})\n",
                    view.summary.run_id, view.summary.name, view.summary.state, view.executions
                );
                let rows: Vec<[String; 5]> = view
                    .steps
                    .iter()
                    .map(|s| {
                        let indent = if s.group.is_some() { "  " } else { "" };
                        [
                            format!("{indent}{}", s.id),
                            s.kind.clone(),
                            s.status.map_or("-", |st| st.as_str()).to_owned(),
                            s.attempts.to_string(),
                            s.run_ids.join(" "),
                        ]
                    })
                    .collect();
                text.push_str(&crate::table::aligned(
                    ["STEP", "KIND", "STATUS", "TRIES", "RUNS"],
                    &rows,
                ));
                out.text(&text)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Sub::Run {
            file,
            input,
            input_file,
            stream,
            pretty,
            labels,
            sandbox,
        } => {
            let labels = agentgate_protocol::parse_labels(
                labels
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str),
            )
            .map_err(|e| anyhow::anyhow!("--label: {e}"))?;
            let wf = with_sandbox(Workflow::load_file(&file).map_err(usage)?, sandbox.sandbox)?;
            let input = read_input(input, input_file)?;
            let (cfg, store) = open(config_flag, store_flag)?;
            let (mut env, _tool_relay) = environment(cfg, &wf.base_dir, store_flag)?;
            // Its spans, when traces are exported (under TRACEPARENT when
            // set); its agent steps' CLIs join it.
            let trace = agentgate_telemetry::workflow_trace_from_env();
            env.before_agent_run = trace.as_ref().map(|t| t.agent_run_hook());
            let start = WorkflowStart {
                workflow: wf,
                input,
                run_id: None,
                labels,
            };
            let outcome = drive(stream, trace, |observer, cancel| async {
                run_workflow(start, &env, store.as_ref(), observer, cancel).await
            })?;
            let printed = print_outcome(&mut out, &outcome, stream, pretty);
            agentgate_telemetry::shutdown(agentgate_telemetry::FINAL_FLUSH);
            printed
        }
        Sub::Resume {
            run,
            stream,
            pretty,
        } => {
            let (cfg, store) = open(config_flag, store_flag)?;
            let (wf, _) = stored_workflow(store.as_ref(), &run, None)?;
            let (mut env, _tool_relay) = environment(cfg, &wf.base_dir, store_flag)?;
            let trace = agentgate_telemetry::workflow_trace_from_env();
            env.before_agent_run = trace.as_ref().map(|t| t.agent_run_hook());
            let run_id = store
                .find_run(&run)?
                .map(|d| d.summary.record.run_id)
                .unwrap_or(run);
            let outcome = drive(stream, trace, |observer, cancel| async {
                resume_workflow(&run_id, &env, store.as_ref(), observer, cancel).await
            })?;
            let printed = print_outcome(&mut out, &outcome, stream, pretty);
            agentgate_telemetry::shutdown(agentgate_telemetry::FINAL_FLUSH);
            printed
        }
    }
}

/// An invalid workflow file: reported on stderr, exit 2.
fn usage(e: agentgate_tools::workflow::WorkflowError) -> anyhow::Error {
    anyhow::Error::new(e)
}

fn open(
    config_flag: Option<&Path>,
    store_flag: Option<&str>,
) -> anyhow::Result<(Config, Arc<dyn StoreBackend>)> {
    let cfg = Config::load(config_flag)?;
    let (store, _) = crate::tool_cmd::runner(&cfg, store_flag)?;
    Ok((cfg, store))
}

/// What the steps run with: the config, the registry found from the
/// workflow's folder, this binary as the tools' sandbox and keeper, and
/// agentgate's MCP server for agents with registry tools (with its relay,
/// to keep while the workflow runs).
fn environment(
    cfg: Config,
    base_dir: &Path,
    store_flag: Option<&str>,
) -> anyhow::Result<(WorkflowEnv, Option<agentgate_tools::mcp::ToolRelay>)> {
    let location = agentgate_store::store_choice::choose(
        agentgate_store::store_choice::given(store_flag)?,
        cfg.store.as_ref(),
    )?;
    let (tool_server, relay) = match crate::tool_cmd::tool_server(&cfg, &location, &[]) {
        Ok((server, relay)) => (Some(server), Some(relay)),
        Err(e) => {
            tracing::debug!("no registry tools for agent steps: {e:#}");
            (None, None)
        }
    };
    let runner = crate::tool_cmd::tool_runner(&cfg, Some(&location), &[])
        .context("cannot find the agentgate binary")?;
    // The agents' secrets are sealed in the run's events with the queue's
    // key (made on first use), as a queued workflow's are.
    let key_file = agentgate_core::sealed::key_file(cfg.queue.key_file.as_deref())?;
    let (keys, _) = agentgate_core::sealed::KeyRing::load_or_create(&key_file)?;
    let mut env = WorkflowEnv::new(
        cfg,
        base_dir,
        Some(runner),
        crate::cli_process::keeper_path(),
        tool_server,
    );
    env.keys = keys;
    Ok((env, relay))
}

/// Runs `work` on a runtime of its own, with SIGINT and SIGTERM as cancel
/// requests, streaming the events when asked, and giving them to `trace`.
fn drive<F, Fut>(
    stream: bool,
    trace: Option<agentgate_telemetry::SharedWorkflowTrace>,
    work: F,
) -> anyhow::Result<WorkflowOutcome>
where
    F: FnOnce(WorkflowObserver, tokio::sync::mpsc::Receiver<agentgate_core::CancelRequest>) -> Fut,
    Fut: std::future::Future<
            Output = Result<WorkflowOutcome, agentgate_tools::workflow::WorkflowRunError>,
        >,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let watching = trace.clone();
    let outcome = runtime.block_on(async {
        let (_forwarding, cancel) = crate::cli_process::forward_signals()?;
        let mut printer = Stdout::new();
        let observer: WorkflowObserver = Box::new(move |event: &Event| {
            if let Some(trace) = &watching {
                trace.observe(event);
            }
            if stream {
                // A closed stdout stops the printing, not the workflow.
                let _ = printer.json_line(event);
            }
        });
        Ok(work(observer, cancel).await?)
    });
    // Queued for export; sent (bounded) after the envelope is printed.
    if let Some(trace) = trace {
        trace.finish();
    }
    outcome
}

fn print_outcome(
    out: &mut Stdout,
    outcome: &WorkflowOutcome,
    stream: bool,
    pretty: bool,
) -> anyhow::Result<ExitCode> {
    if !stream {
        out.json(&outcome.envelope, pretty.then_some(true))?;
    }
    if let Some(failure) = out.failure() {
        return Ok(failure.exit());
    }
    Ok(exit_code(outcome.exit_code))
}
