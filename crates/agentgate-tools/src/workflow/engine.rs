//! Running a workflow: [`run_workflow`] records a new workflow run and
//! runs its steps; [`resume_workflow`] reopens one that ended or whose
//! process died and runs the steps that did not finish.
//!
//! The top-level steps run in file order, each after the one before (the
//! loader refuses a reference to a later step as a cycle); a `parallel`
//! group schedules its members by their dependencies (`step.rs`). A step
//! that fails (after its retries) stops the workflow: `failed`; a cancel
//! reaches every running step's run (`cancel.rs`): `cancelled`. Each
//! step's end is a `task_done` checkpoint (`journal.rs`); the steps a
//! resume keeps come from those (`history.rs`). The run's labels, as the
//! store holds them (given to [`run_workflow`], or a queued workflow's
//! job's), go on its envelope and on every step's run.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use agentgate_core::parse_duration;
use agentgate_core::{CancelRequest, new_run_id};
use agentgate_protocol::{
    Envelope, ErrorInfo, ErrorKind, ErrorSource, EventBody, ResultEvent, StepStatus, WorkflowState,
    WorkflowStateEvent,
};
use agentgate_store::{RunKind, RunRecord, RunStore, StoreError};
use jiff::Timestamp;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::cancel::{Canceller, Scope};
pub use super::context::{AgentRunHook, WorkflowEnv};
use super::context::{Ctx, StepEnd, Tally, lock};
use super::history::History;
use super::journal::{Journal, WorkflowObserver};
use super::load::{Workflow, WorkflowError};
use super::refs;
use super::report::{envelope_of, exit_code_of};

/// A new workflow run.
#[derive(Debug)]
pub struct WorkflowStart {
    /// The workflow, loaded and checked.
    pub workflow: Workflow,
    /// Its input (`${input...}`); `null` for none.
    pub input: Value,
    /// The run's id (a server's job id); `None`: a new one.
    pub run_id: Option<String>,
    /// The run's labels (`workflow run --label`), recorded with it (a
    /// queued workflow's are its job's, stored at submit under the same id).
    pub labels: agentgate_protocol::Labels,
}

/// How a workflow run ended.
#[derive(Debug, Clone)]
pub struct WorkflowOutcome {
    /// The run's envelope; its `workflow` holds the steps and outputs.
    pub envelope: Envelope,
    /// The exit code for `agentgate workflow run`.
    pub exit_code: i32,
}

/// A workflow that could not be started or resumed (nothing ran).
#[derive(Debug, thiserror::Error)]
pub enum WorkflowRunError {
    /// The store refused.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No run has this id.
    #[error("no run `{0}` in the store")]
    NotFound(String),
    /// The run is not a workflow run.
    #[error("run `{0}` is not a workflow run (its kind is {1})")]
    NotAWorkflow(String, String),
    /// The run's events do not hold the workflow.
    #[error("cannot resume workflow run `{0}`: {1}")]
    History(String, String),
    /// The stored workflow no longer loads.
    #[error(transparent)]
    Invalid(#[from] WorkflowError),
    /// The secrets of the workflow's agent steps cannot be sealed for its
    /// events, or opened from them.
    #[error("workflow run `{0}`: {1}")]
    Sealed(String, agentgate_core::sealed::SealError),
}

/// Records a new workflow run in `store` and runs it. `observer` sees
/// every event of the run as it is written; `cancel` cancels it (a second
/// request, or an `immediate` one, kills the running steps at once).
pub async fn run_workflow(
    start: WorkflowStart,
    env: &WorkflowEnv,
    store: &dyn RunStore,
    observer: WorkflowObserver,
    cancel: mpsc::Receiver<CancelRequest>,
) -> Result<WorkflowOutcome, WorkflowRunError> {
    let run_id = start.run_id.clone().unwrap_or_else(new_run_id);
    let wf = &start.workflow;
    store.insert_run(&RunRecord {
        run_id: run_id.clone(),
        started_at: Timestamp::now(),
        providers: vec![wf.def.name.clone()],
        model: None,
        session: None,
        cwd: Some(wf.base_dir.display().to_string()),
        prompt_bytes: 0,
        kind: RunKind::Workflow,
        parent_run_id: None,
        labels: start.labels.clone(),
    })?;
    // The labels as stored: a queued workflow's are its job's (stored at
    // submit under the same id), not given here.
    let labels = stored_labels(store, &run_id)?.unwrap_or(start.labels);
    let files = store.create_run_files(&run_id)?;
    let journal = Journal::new(&run_id, files, 0, observer);
    // The events keep the agents' secrets sealed, as the queue does.
    let mut definition = serde_json::to_value(&wf.def).unwrap_or(Value::Null);
    agentgate_core::sealed::seal_workflow(&mut definition, &env.keys, &run_id)
        .map_err(|e| WorkflowRunError::Sealed(run_id.clone(), e))?;
    let first = EventBody::WorkflowState(WorkflowStateEvent {
        state: WorkflowState::Running,
        name: Some(wf.def.name.clone()),
        execution: Some(1),
        definition: Some(definition),
        input: Some(start.input.clone()),
        base_dir: Some(wf.base_dir.display().to_string()),
        step: None,
        reason: None,
    });
    let ctx = Ctx {
        wf,
        env,
        store,
        journal,
        input: start.input,
        labels,
        execution: 1,
        ends: Mutex::new(BTreeMap::new()),
        tally: Mutex::new(Tally::default()),
    };
    Ok(execute(ctx, first, cancel).await)
}

/// Resumes the workflow run `run_id` (one that ended, or whose process
/// died): its steps that ended `ok` or `skipped` are kept, the others run
/// again (a tool step that was running continues in its last run's
/// workspace). Refused while the run's process is alive.
pub async fn resume_workflow(
    run_id: &str,
    env: &WorkflowEnv,
    store: &dyn RunStore,
    observer: WorkflowObserver,
    cancel: mpsc::Receiver<CancelRequest>,
) -> Result<WorkflowOutcome, WorkflowRunError> {
    let (wf, history) = stored_workflow(store, run_id, Some(&env.keys))?;
    let labels = stored_labels(store, run_id)?.unwrap_or_default();
    store.reopen_run(run_id)?;
    let (files, seq) = store.reopen_run_files(run_id)?;
    let journal = Journal::new(run_id, files, seq, observer);
    let execution = history.executions + 1;
    let mut ends = BTreeMap::new();
    for (id, done, n) in history.finished() {
        ends.insert(
            id.clone(),
            StepEnd {
                status: done.status,
                outcome: done.outcome.clone(),
                reason: done.reason.clone(),
                error: None,
                execution: n,
            },
        );
    }
    let kept = ends.len();
    let tally = Tally {
        tries: history.tries.clone(),
        runs: history.runs.clone(),
        last_tool_run: history.last_tool_run.clone(),
    };
    let first = EventBody::WorkflowState(WorkflowStateEvent {
        state: WorkflowState::Running,
        name: Some(wf.def.name.clone()),
        execution: Some(execution),
        definition: None,
        input: None,
        base_dir: None,
        step: None,
        reason: Some(format!(
            "resumed: {kept} finished steps kept, the others run again"
        )),
    });
    let ctx = Ctx {
        wf: &wf,
        env,
        store,
        journal,
        input: history.input.clone(),
        labels,
        execution,
        ends: Mutex::new(ends),
        tally: Mutex::new(tally),
    };
    Ok(execute(ctx, first, cancel).await)
}

/// The labels of the stored run `run_id`; `None` when there is no such run.
fn stored_labels(
    store: &dyn RunStore,
    run_id: &str,
) -> Result<Option<agentgate_protocol::Labels>, StoreError> {
    Ok(store
        .get_run(run_id)?
        .map(|detail| detail.summary.record.labels))
}

/// The workflow a stored run runs, and its history; its agents' sealed
/// secrets opened with `keys`, or, without keys, left out (for showing
/// it).
pub fn stored_workflow(
    store: &dyn RunStore,
    run_id: &str,
    keys: Option<&agentgate_core::sealed::KeyRing>,
) -> Result<(Workflow, History), WorkflowRunError> {
    let detail = store
        .find_run(run_id)?
        .ok_or_else(|| WorkflowRunError::NotFound(run_id.to_owned()))?;
    let record = &detail.summary.record;
    let run_id = record.run_id.as_str();
    if record.kind != RunKind::Workflow {
        return Err(WorkflowRunError::NotAWorkflow(
            run_id.to_owned(),
            record.kind.as_str().to_owned(),
        ));
    }
    let log = store.read_events(run_id)?;
    let history = History::from_events(&log.events)
        .map_err(|e| WorkflowRunError::History(run_id.to_owned(), e))?;
    let mut definition = history.definition.clone();
    match keys {
        Some(keys) => agentgate_core::sealed::open_workflow(&mut definition, keys, run_id)
            .map_err(|e| WorkflowRunError::Sealed(run_id.to_owned(), e))?,
        None => agentgate_core::sealed::strip_workflow(&mut definition),
    }
    let def = serde_json::from_value(definition).map_err(|e| {
        WorkflowRunError::History(run_id.to_owned(), format!("its stored workflow: {e}"))
    })?;
    let wf = Workflow::from_def(def, &history.base_dir)?;
    Ok((wf, history))
}

/// Runs the steps of `ctx` after writing `first`, then ends the run.
async fn execute(
    ctx: Ctx<'_>,
    first: EventBody,
    mut cancel: mpsc::Receiver<CancelRequest>,
) -> WorkflowOutcome {
    let started = Instant::now();
    let (scope, canceller) = Scope::root();
    let deadline = ctx
        .wf
        .def
        .timeout
        .as_deref()
        .and_then(|t| parse_duration(t).ok());
    let mut failure: Option<(String, ErrorInfo)> = None;
    let mut timed_out = false;
    if let Err(e) = ctx.journal.checkpoint(first) {
        failure = Some((
            String::new(),
            ErrorInfo::new(ErrorKind::Unknown, ErrorSource::Internal, e),
        ));
    }
    if failure.is_none() {
        let steps = run_top_level(&ctx, &scope);
        let watch = watch_cancel(&mut cancel, &canceller, deadline, &mut timed_out);
        tokio::pin!(steps);
        // The watch never ends: it passes cancels on while the steps run,
        // after the deadline too (a second one kills them at once).
        failure = tokio::select! {
            out = &mut steps => out,
            () = watch => None,
        };
    }
    let ends = lock(&ctx.ends).clone();
    let state = if timed_out {
        WorkflowState::Failed
    } else if scope.is_cancelled() {
        WorkflowState::Cancelled
    } else if failure.is_some() {
        WorkflowState::Failed
    } else {
        WorkflowState::Completed
    };
    let failure = match (state, failure, timed_out) {
        (_, _, true) => Some((
            String::new(),
            ErrorInfo::new(
                ErrorKind::Timeout,
                ErrorSource::Internal,
                format!(
                    "the workflow's deadline ({}) passed",
                    ctx.wf.def.timeout.as_deref().unwrap_or_default()
                ),
            ),
        )),
        (WorkflowState::Cancelled, _, false) => Some((
            String::new(),
            ErrorInfo::new(
                ErrorKind::Cancelled,
                ErrorSource::Internal,
                "the workflow was cancelled",
            ),
        )),
        (_, f, false) => f,
    };
    let outputs = if state == WorkflowState::Completed {
        render_outputs(&ctx)
    } else {
        Map::new()
    };
    let envelope = envelope_of(
        &ctx,
        &ends,
        state,
        failure.as_ref(),
        outputs,
        started.elapsed(),
    );
    let exit_code = exit_code_of(state, failure.as_ref().map(|(_, e)| e));
    let envelope = Envelope {
        exit_code: Some(exit_code),
        ..envelope
    };
    let reason = failure.as_ref().map(|(step, e)| match step.as_str() {
        "" => e.message.clone(),
        step => format!("step `{step}`: {}", e.message),
    });
    let _ = ctx
        .journal
        .checkpoint(EventBody::WorkflowState(WorkflowStateEvent {
            state,
            name: None,
            execution: None,
            definition: None,
            input: None,
            base_dir: None,
            step: failure
                .as_ref()
                .map(|(s, _)| s.clone())
                .filter(|s| !s.is_empty()),
            reason,
        }));
    ctx.journal.emit(EventBody::Result(ResultEvent {
        envelope: Box::new(envelope.clone()),
    }));
    let _ = ctx.journal.sync();
    if let Err(e) = ctx.store.finish_run(ctx.run_id(), &envelope) {
        tracing::warn!("workflow run {}: cannot record its end: {e}", ctx.run_id());
    }
    WorkflowOutcome {
        envelope,
        exit_code,
    }
}

/// The top-level steps in order; the failure that stopped them, if one
/// did (the step's id and its error).
async fn run_top_level(ctx: &Ctx<'_>, scope: &Scope) -> Option<(String, ErrorInfo)> {
    for step in &ctx.wf.def.steps {
        if scope.is_cancelled() {
            return None;
        }
        let end = super::step::run_step(ctx, step, None, scope).await;
        match end.status {
            StepStatus::Ok | StepStatus::Skipped => {}
            StepStatus::Cancelled => return None,
            StepStatus::Failed => {
                let error = end.error.unwrap_or_else(|| {
                    ErrorInfo::new(
                        ErrorKind::Unknown,
                        ErrorSource::Internal,
                        end.reason.unwrap_or_else(|| "failed".to_owned()),
                    )
                });
                return Some((step.id.clone(), error));
            }
        }
    }
    None
}

/// Passes the caller's cancel requests, and the workflow's deadline
/// (setting `timed_out`), to the root scope, for as long as it is polled.
async fn watch_cancel(
    cancel: &mut mpsc::Receiver<CancelRequest>,
    canceller: &Canceller,
    deadline: Option<Duration>,
    timed_out: &mut bool,
) {
    let timer = async {
        match deadline {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(timer);
    let mut open = true;
    loop {
        tokio::select! {
            req = cancel.recv(), if open => match req {
                Some(req) => canceller.cancel(req),
                None => open = false,
            },
            () = &mut timer, if !*timed_out => {
                *timed_out = true;
                canceller.cancel(CancelRequest { immediate: false });
            }
            else => std::future::pending::<()>().await,
        }
    }
}

/// The workflow's `outputs`, rendered; an output whose value is missing
/// (a skipped step's) is `null`.
fn render_outputs(ctx: &Ctx<'_>) -> Map<String, Value> {
    let scope = ctx.scope();
    ctx.wf
        .def
        .outputs
        .iter()
        .map(|(name, text)| {
            let value = refs::Template::parse(text)
                .ok()
                .and_then(|t| t.value(&scope).ok())
                .unwrap_or(Value::Null);
            (name.clone(), value)
        })
        .collect()
}
