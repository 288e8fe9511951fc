//! A queued workflow (`POST /v1/workflows`): the job's stored request (a
//! [`JobRequest::Workflow`](crate::job_request::JobRequest::Workflow), see `job_request.rs`), and its run, which is
//! the workflow run itself (job id = run id).
//!
//! A claim of a workflow job whose run is not stored yet starts the
//! workflow ([`run_workflow`]); a claim of one whose run exists resumes it
//! ([`resume_workflow`]): the steps that finished are kept, the others run
//! again, tools in their last run's workspace. That covers every way a job
//! comes back: a server killed mid-run (its lease taken back), a server
//! stopped (its running jobs cancelled and handed back), and a retry after
//! a recoverable failure. The run's events continue in one stream.
//!
//! A workflow job names no provider: the queue counts it as one running
//! job against `queue.max_running` and no provider's limit; its agent
//! steps run inside it (with failover, and retries per step), not through
//! the queue. Executors that claim only some providers (`agentgate worker
//! --providers`) leave workflow jobs to the others.
//!
//! Kept apart from `job.rs` (which calls it) so that the queue's run path
//! and the workflow engine meet in this one file.

use std::path::PathBuf;

use agentgate_core::Config;
use agentgate_core::RequestError;
use agentgate_core::{CancelRequest, RunOutcome, ToolServer};
use agentgate_protocol::{Envelope, ErrorInfo, ErrorKind, ErrorSource, exit_code_for};
use agentgate_store::{RunStore, StoreError};
use agentgate_tools::runner::RunnerSetup;
use agentgate_tools::workflow::{
    Workflow, WorkflowEnv, WorkflowRunError, WorkflowStart, resume_workflow, run_workflow,
};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::job_request::JobKind;

/// The `kind` of a workflow job's stored request.
pub const WORKFLOW_KIND: &str = JobKind::Workflow.as_str();

pub use crate::job_request::WorkflowJobRequest;

/// The workflow of `job`: `None` for a run's job; `Some(Err)` when the
/// stored workflow no longer loads. The request is read typed
/// (`JobRequest::of`); one whose tag says workflow but which does not
/// read is a workflow's refusal, any other unreadable one is left to the
/// run's planning (which names its field).
#[cfg(test)]
pub fn workflow_of(
    job: &agentgate_store::JobRecord,
) -> Option<Result<(Workflow, Value), RequestError>> {
    use crate::job_request::JobRequest;
    match JobRequest::of(job) {
        Ok(JobRequest::Workflow(stored)) => Some(load_workflow(*stored)),
        Ok(JobRequest::Run(_)) => None,
        Err(e) => (JobKind::of(&job.request) == Ok(JobKind::Workflow)).then_some(Err(e)),
    }
}

/// The workflow a workflow job's request holds, loaded (its tool registry
/// found from its `base_dir`), and its input.
pub fn load_workflow(stored: WorkflowJobRequest) -> Result<(Workflow, Value), RequestError> {
    let wf = Workflow::from_def(stored.workflow, &stored.base_dir)
        .map_err(|e| RequestError::new("workflow", e.to_string()))?;
    Ok((wf, stored.input))
}

/// What a workflow job's steps run with, besides the config and store.
#[derive(Debug, Clone, Default)]
pub struct WorkflowTools {
    /// How tool steps are run; `None`: tool steps fail (this executor
    /// cannot run tools).
    pub runner: Option<RunnerSetup>,
    /// The keeper in front of agent CLIs.
    pub keeper: Option<PathBuf>,
    /// agentgate's MCP server for agent steps with registry tools.
    pub tool_server: Option<ToolServer>,
    /// The queue's keys: they seal the agents' secrets in the run's events.
    pub keys: agentgate_core::sealed::KeyRing,
    /// See `ExecutorOptions::hidden`.
    pub hidden: Vec<PathBuf>,
}

/// How a workflow job's turn ended.
#[derive(Debug)]
pub enum WorkflowTurn {
    /// The workflow ran (to its end, a failure or a cancel).
    Ran(Box<RunOutcome>),
    /// Its run is still held by another process (one on another host whose
    /// lease was taken back but whose run has not ended yet): try later.
    Busy(String),
}

/// Run (or resume) the workflow `wf` as run `job_id`, its agent steps'
/// runs submitted by `submitter` (the job's API token, if any); its events
/// go to `trace` too, when traces are exported (a resumed run's trace has
/// the steps run by this turn).
pub async fn run_job(
    job_id: &str,
    (wf, input): (Workflow, Value),
    config: &Config,
    tools: &WorkflowTools,
    submitter: Option<agentgate_core::budget::BudgetSubmitter>,
    store: &dyn RunStore,
    (cancel, trace): (
        mpsc::Receiver<CancelRequest>,
        Option<agentgate_telemetry::WorkflowTrace>,
    ),
) -> WorkflowTurn {
    let mut env = WorkflowEnv::new(
        config.clone(),
        &wf.base_dir,
        tools.runner.clone(),
        tools.keeper.clone(),
        tools.tool_server.clone(),
    );
    env.keys = tools.keys.clone();
    env.hidden = tools.hidden.clone();
    env.submitter = submitter;
    // The observer is the store: SSE clients read the run's events there.
    // With traces exported, the workflow's trace watches them too.
    let trace = trace.map(agentgate_telemetry::SharedWorkflowTrace::new);
    // Its agent steps' CLIs join the trace under their runs' spans.
    env.before_agent_run = trace.as_ref().map(|t| t.agent_run_hook());
    let observer: agentgate_tools::workflow::WorkflowObserver = match trace.clone() {
        None => Box::new(|_: &agentgate_protocol::Event| {}),
        Some(shared) => Box::new(move |event: &agentgate_protocol::Event| shared.observe(event)),
    };
    let ran = match store.get_run(job_id) {
        Ok(None) => {
            let start = WorkflowStart {
                workflow: wf,
                input,
                run_id: Some(job_id.to_owned()),
                // Stored with the job at submit, under the same id.
                labels: agentgate_protocol::Labels::new(),
            };
            run_workflow(start, &env, store, observer, cancel).await
        }
        Ok(Some(_)) => resume_workflow(job_id, &env, store, observer, cancel).await,
        Err(e) => Err(WorkflowRunError::Store(e)),
    };
    if let Some(trace) = trace {
        trace.finish();
    }
    match ran {
        Ok(outcome) => WorkflowTurn::Ran(Box::new(RunOutcome {
            envelope: outcome.envelope,
            exit_code: outcome.exit_code,
            ..RunOutcome::default()
        })),
        Err(WorkflowRunError::Store(e @ StoreError::RunStillRunning { .. })) => {
            WorkflowTurn::Busy(e.to_string())
        }
        Err(e) => {
            let error = ErrorInfo::new(ErrorKind::Unknown, ErrorSource::Internal, e.to_string());
            let code = exit_code_for(Some(error.kind), false);
            WorkflowTurn::Ran(Box::new(RunOutcome {
                envelope: Envelope::new(job_id).with_error(&error, code),
                exit_code: code,
                ..RunOutcome::default()
            }))
        }
    }
}
