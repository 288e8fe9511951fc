//! The workflow run's result: its envelope (the error of the step that
//! failed it, its exit code, what its steps' runs used) with `workflow`
//! listing every step, and the
//! exit code of `agentgate workflow run` and `resume`:
//!
//! | end | code |
//! |---|---|
//! | completed | 0 |
//! | cancelled | 130 |
//! | failed: a deadline passed | 124 |
//! | failed: invalid input (a reference with no value, a bad request) | 2 |
//! | failed: the failing step's error was recoverable | 75 |
//! | failed: anything else | 1 |

use std::collections::BTreeMap;
use std::time::Duration;

use agentgate_protocol::{
    Envelope, ErrorInfo, StepReport, TokensUsed, WorkflowEnvelope, WorkflowState, exit_code_for,
};
use serde_json::{Map, Value};

use super::context::{Ctx, StepEnd};

/// The run's envelope.
pub(super) fn envelope_of(
    ctx: &Ctx<'_>,
    ends: &BTreeMap<String, StepEnd>,
    state: WorkflowState,
    failure: Option<&(String, ErrorInfo)>,
    outputs: Map<String, Value>,
    elapsed: Duration,
) -> Envelope {
    let tally = ctx.tally();
    let steps = ctx
        .wf
        .ids()
        .into_iter()
        .map(|id| {
            let end = ends.get(id);
            StepReport {
                id: id.to_owned(),
                kind: ctx
                    .wf
                    .step(id)
                    .and_then(|s| s.kind())
                    .map_or("", |k| k.as_str())
                    .to_owned(),
                group: ctx.wf.group_of(id).map(str::to_owned),
                status: end.map(|e| e.status),
                attempts: tally.tries.get(id).copied().unwrap_or(0),
                run_ids: tally.runs.get(id).cloned().unwrap_or_default(),
                execution: end.map(|e| e.execution),
                reason: end.and_then(|e| e.reason.clone()),
            }
        })
        .collect();
    let workflow = WorkflowEnvelope {
        name: ctx.wf.def.name.clone(),
        state,
        steps,
        outputs,
        failed_step: failure
            .map(|(step, _)| step.clone())
            .filter(|s| !s.is_empty()),
        executions: ctx.execution,
    };
    let mut envelope = Envelope::new(ctx.run_id());
    let used = steps_usage(ctx, tally.runs.values().flatten());
    (envelope.tokens_used, envelope.reasoning_tokens) = (used.tokens, used.reasoning);
    envelope.metadata.token_usage_available = used.reported;
    envelope.duration_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    envelope.response = serde_json::to_string(&workflow.outputs).unwrap_or_default();
    if let Some((step, error)) = failure {
        let mut error = error.clone();
        if !step.is_empty() {
            error.message = format!("step `{step}` failed: {}", error.message);
        }
        envelope = envelope.with_error(&error, exit_code_of(state, Some(&error)));
    }
    envelope.workflow = Some(Box::new(workflow));
    envelope.labels = ctx.labels.clone();
    envelope
}

/// What the runs of a workflow's steps used, summed.
struct StepsUsage {
    tokens: TokensUsed,
    reasoning: u64,
    /// Whether any run's figures were reported by its provider.
    reported: bool,
}

/// What the runs of the workflow's steps used, summed: each run's stored
/// envelope (an agent's tokens and cost; a tool's are zero), over every
/// execution. A run the store cannot read, or that has no envelope (a
/// process killed mid-run), adds nothing; the sum is then marked
/// estimated. The store's spend and usage figures count agent runs only,
/// so this sum is never counted twice.
fn steps_usage<'a>(ctx: &Ctx<'_>, runs: impl Iterator<Item = &'a String>) -> StepsUsage {
    let mut sum = StepsUsage {
        tokens: TokensUsed::default(),
        reasoning: 0,
        reported: false,
    };
    for id in runs {
        match ctx.store.get_run(id) {
            Ok(Some(run)) => match run.envelope {
                Some(envelope) => {
                    sum.tokens.add(&envelope.tokens_used);
                    sum.reasoning += envelope.reasoning_tokens;
                    sum.reported |= envelope.metadata.token_usage_available;
                }
                None => sum.tokens.estimated = true,
            },
            Ok(None) | Err(_) => sum.tokens.estimated = true,
        }
    }
    sum
}

/// The exit code of a workflow that ended in `state` with `error`.
pub(super) fn exit_code_of(state: WorkflowState, error: Option<&ErrorInfo>) -> i32 {
    match (state, error) {
        (WorkflowState::Completed, _) | (_, None) => 0,
        (_, Some(e)) => exit_code_for(Some(e.kind), e.recoverable),
    }
}
