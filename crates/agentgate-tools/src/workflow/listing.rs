//! Workflow runs as `agentgate workflow runs` and `workflow show` print
//! them: the store's runs of kind `workflow`, each with its state, and one
//! run's steps, from its envelope when it ended, else from its events.
//!
//! The state of a run that has not ended: `running` (or `waiting_ai`, as
//! its last `workflow_state` says) while its process lives, `interrupted`
//! when its process died (`agentgate workflow resume` continues it).

use agentgate_protocol::{EventBody, StepReport, WorkflowState};
use agentgate_store::{RunKind, RunStatus, RunStore, RunSummary, StoreError};
use jiff::Timestamp;
use serde::Serialize;

use super::engine::{WorkflowRunError, stored_workflow};

/// How many runs `list_workflows` reads at most to find its workflows.
const SCAN_LIMIT: usize = 10_000;

/// One workflow run.
#[derive(Debug, Clone, Serialize)]
pub struct WorkflowSummary {
    /// The run's id.
    pub run_id: String,
    /// The workflow's name.
    pub name: String,
    /// `running`, `waiting_ai`, `completed`, `failed`, `cancelled` or
    /// `interrupted`.
    pub state: String,
    /// When it started.
    pub started_at: Timestamp,
    /// When it ended, if it did.
    pub ended_at: Option<Timestamp>,
    /// Its error, if it failed.
    pub error: Option<String>,
}

/// One workflow run with its steps.
#[derive(Debug, Clone, Serialize)]
pub struct WorkflowView {
    /// The run.
    #[serde(flatten)]
    pub summary: WorkflowSummary,
    /// Every step in file order, with how it ended (`null`: not yet).
    pub steps: Vec<StepReport>,
    /// Executions so far.
    pub executions: u32,
}

/// The newest `limit` workflow runs, newest first.
pub fn list_workflows(
    store: &dyn RunStore,
    limit: usize,
) -> Result<Vec<WorkflowSummary>, StoreError> {
    let mut out = Vec::new();
    let page = 200;
    let mut offset = 0;
    while out.len() < limit && offset < SCAN_LIMIT {
        let listed = store.list_runs(page, offset)?;
        if listed.rows() == 0 {
            break;
        }
        // A damaged row is not a workflow this can show; it still counts.
        offset += listed.rows();
        for run in listed
            .runs
            .iter()
            .filter(|r| r.record.kind == RunKind::Workflow)
        {
            if out.len() == limit {
                break;
            }
            out.push(summary_of(store, run));
        }
    }
    Ok(out)
}

fn summary_of(store: &dyn RunStore, run: &RunSummary) -> WorkflowSummary {
    let state = match run.status {
        RunStatus::Succeeded => WorkflowState::Completed.as_str(),
        RunStatus::Failed => WorkflowState::Failed.as_str(),
        RunStatus::Cancelled => WorkflowState::Cancelled.as_str(),
        RunStatus::Abandoned => "interrupted",
        RunStatus::Running => last_state(store, &run.record.run_id)
            .filter(|s| !s.is_final())
            .unwrap_or(WorkflowState::Running)
            .as_str(),
    };
    WorkflowSummary {
        run_id: run.record.run_id.clone(),
        name: run.record.providers.first().cloned().unwrap_or_default(),
        state: state.to_owned(),
        started_at: run.record.started_at,
        ended_at: run.ended_at,
        error: run.error.clone(),
    }
}

/// The last state a run's events say.
fn last_state(store: &dyn RunStore, run_id: &str) -> Option<WorkflowState> {
    let log = store.read_events(run_id).ok()?;
    log.events.iter().rev().find_map(|e| match &e.body {
        EventBody::WorkflowState(s) => Some(s.state),
        _ => None,
    })
}

/// One workflow run (an id or a unique prefix of one) with its steps.
pub fn show_workflow(store: &dyn RunStore, run_id: &str) -> Result<WorkflowView, WorkflowRunError> {
    let detail = store
        .find_run(run_id)?
        .ok_or_else(|| WorkflowRunError::NotFound(run_id.to_owned()))?;
    let (wf, history) = stored_workflow(store, &detail.summary.record.run_id, None)?;
    let summary = summary_of(store, &detail.summary);
    if let Some(done) = detail.envelope.as_ref().and_then(|e| e.workflow.as_ref()) {
        return Ok(WorkflowView {
            summary,
            steps: done.steps.clone(),
            executions: done.executions,
        });
    }
    let steps = wf
        .ids()
        .into_iter()
        .map(|id| {
            let done = history.done.get(id);
            StepReport {
                id: id.to_owned(),
                kind: wf
                    .step(id)
                    .and_then(|s| s.kind())
                    .map_or("", |k| k.as_str())
                    .to_owned(),
                group: wf.group_of(id).map(str::to_owned),
                status: done.map(|(d, _)| d.status),
                attempts: history.tries.get(id).copied().unwrap_or(0),
                run_ids: history.runs.get(id).cloned().unwrap_or_default(),
                execution: done.map(|(_, n)| *n),
                reason: done.and_then(|(d, _)| d.reason.clone()),
            }
        })
        .collect();
    Ok(WorkflowView {
        summary,
        steps,
        executions: history.executions,
    })
}
