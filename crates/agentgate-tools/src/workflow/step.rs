//! One step: kept from an earlier execution, skipped by its `when:`, or
//! run: a `parallel` group schedules its members; any other kind is tried
//! until it succeeds, fails for good, or is cancelled, waiting `backoff`
//! (doubled each time, at most 5 min) before each retry of a retryable
//! failure. Every end is a `task_done` checkpoint.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use agentgate_core::CancelRequest;
use agentgate_core::parse_duration;
use agentgate_protocol::{
    ErrorInfo, ErrorKind, ErrorSource, EventBody, StepOutcome, StepStatus, TaskDoneEvent,
    TaskErrorEvent, TaskStartedEvent, TaskSubmittedEvent,
};
use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use serde_json::{Map, Value, json};

use super::cancel::Scope;
use super::condition::Condition;
use super::context::{Ctx, StepEnd, TryEnd};
use super::definition::{OnFailure, ParallelDef, StepDef, StepKind};

/// The longest wait between two tries.
const MAX_BACKOFF: Duration = Duration::from_secs(300);
/// The wait before the first retry when the step sets no `backoff`.
const DEFAULT_BACKOFF: Duration = Duration::from_secs(1);

/// Runs `step` (a member of `group`, if given) within `scope`.
pub(super) fn run_step<'s>(
    ctx: &'s Ctx<'_>,
    step: &'s StepDef,
    group: Option<&'s str>,
    scope: &'s Scope,
) -> Pin<Box<dyn Future<Output = StepEnd> + 's>> {
    Box::pin(async move {
        if let Some(kept) = ctx.end_of(&step.id).filter(|e| e.status.is_finished()) {
            return kept;
        }
        if let Some(when) = &step.when {
            let holds = Condition::parse(when).map(|c| c.eval(&ctx.scope()));
            match holds {
                Ok(true) => {}
                Ok(false) => {
                    let end = StepEnd::skipped(ctx.execution, format!("when: `{when}` is false"));
                    return finish(ctx, step, end);
                }
                Err(e) => {
                    let end = failed_end(ctx, TryEnd::invalid(format!("when: {e}")));
                    return finish(ctx, step, end);
                }
            }
        }
        let Some(kind) = step.kind() else {
            let end = failed_end(ctx, TryEnd::invalid("a step needs exactly one kind"));
            return finish(ctx, step, end);
        };
        ctx.journal
            .emit(EventBody::TaskSubmitted(TaskSubmittedEvent {
                task_id: step.id.clone(),
                kind: kind.as_str().to_owned(),
                group: group.map(str::to_owned),
                payload: Some(payload(step)),
            }));
        let end = match (&step.parallel, kind) {
            (Some(p), StepKind::Parallel) => run_group(ctx, step, p, scope).await,
            _ => tries(ctx, step, kind, scope).await,
        };
        finish(ctx, step, end)
    })
}

/// What a step will run, for `task_submitted`.
fn payload(step: &StepDef) -> Value {
    if let Some(tool) = &step.tool {
        json!({"tool": tool, "args": step.args})
    } else if let Some(agent) = &step.agent {
        json!({"prompt": agent.get("prompt")})
    } else if let Some(d) = &step.decision {
        json!({"for": d.for_step, "choices": d.choices})
    } else if let Some(p) = &step.parallel {
        let members: Vec<&str> = p.steps.iter().map(|s| s.id.as_str()).collect();
        json!({"members": members, "max_concurrency": p.max_concurrency})
    } else {
        Value::Null
    }
}

/// Records `end` as the step's: `task_done`, synced. A checkpoint that
/// cannot be written fails the step (a resume could not trust it).
fn finish(ctx: &Ctx<'_>, step: &StepDef, end: StepEnd) -> StepEnd {
    let (attempts, runs) = {
        let tally = ctx.tally();
        (
            tally.tries.get(&step.id).copied().unwrap_or(0),
            tally.runs.get(&step.id).cloned().unwrap_or_default(),
        )
    };
    let written = ctx.journal.checkpoint(EventBody::TaskDone(TaskDoneEvent {
        task_id: step.id.clone(),
        status: end.status,
        attempts,
        child_run_ids: runs,
        outcome: end.outcome.clone(),
        reason: end.reason.clone(),
    }));
    let end = match written {
        Ok(()) => end,
        Err(e) => failed_end(
            ctx,
            TryEnd::Failed {
                outcome: end.outcome,
                error: ErrorInfo::new(ErrorKind::Unknown, ErrorSource::Internal, e),
                code: None,
                child: None,
            },
        ),
    };
    ctx.record_end(&step.id, end.clone());
    end
}

fn failed_end(ctx: &Ctx<'_>, end: TryEnd) -> StepEnd {
    match end {
        TryEnd::Ok(outcome) => StepEnd {
            status: StepStatus::Ok,
            outcome,
            reason: None,
            error: None,
            execution: ctx.execution,
        },
        TryEnd::Cancelled(outcome) => StepEnd {
            outcome,
            ..StepEnd::cancelled(ctx.execution, "cancelled")
        },
        TryEnd::Skipped(reason) => StepEnd::skipped(ctx.execution, reason),
        TryEnd::Failed { outcome, error, .. } => StepEnd {
            status: StepStatus::Failed,
            outcome,
            reason: Some(error.message.clone()),
            error: Some(error),
            execution: ctx.execution,
        },
    }
}

/// Tries a tool, agent or decision step.
async fn tries(ctx: &Ctx<'_>, step: &StepDef, kind: StepKind, scope: &Scope) -> StepEnd {
    let mut wait = step
        .backoff
        .as_deref()
        .and_then(|b| parse_duration(b).ok())
        .unwrap_or(DEFAULT_BACKOFF);
    let mut attempt = 0;
    loop {
        attempt += 1;
        *ctx.tally().tries.entry(step.id.clone()).or_default() += 1;
        let end = match kind {
            StepKind::Tool => super::kinds::tool_try(ctx, step, attempt, scope).await,
            StepKind::Agent => super::kinds::agent_try(ctx, step, attempt, scope).await,
            StepKind::Decision => super::decision::decision_try(ctx, step, attempt, scope).await,
            StepKind::Parallel => TryEnd::invalid("a parallel group is not tried"),
        };
        let TryEnd::Failed {
            error,
            code,
            child,
            outcome,
        } = end
        else {
            return failed_end(ctx, end);
        };
        let retry = error.recoverable && attempt <= step.retries && !scope.is_cancelled();
        ctx.journal.emit(EventBody::TaskError(TaskErrorEvent {
            task_id: step.id.clone(),
            step_attempt: attempt,
            child_run_id: child.clone(),
            code: code.clone(),
            message: error.message.clone(),
            retryable: error.recoverable,
            retry_in_ms: retry.then(|| u64::try_from(wait.as_millis()).unwrap_or(u64::MAX)),
        }));
        if !retry {
            return failed_end(
                ctx,
                TryEnd::Failed {
                    outcome,
                    error,
                    code,
                    child,
                },
            );
        }
        if !scope.sleep(wait).await {
            return StepEnd::cancelled(ctx.execution, "cancelled while waiting to retry");
        }
        wait = (wait * 2).min(MAX_BACKOFF);
    }
}

/// Runs a `parallel` group: members start as their sibling dependencies
/// end, at most `max_concurrency` at once; under `fail_fast` the first
/// failure cancels the running members and starts no more.
async fn run_group(ctx: &Ctx<'_>, step: &StepDef, group: &ParallelDef, scope: &Scope) -> StepEnd {
    *ctx.tally().tries.entry(step.id.clone()).or_default() += 1;
    ctx.journal.emit(EventBody::TaskStarted(TaskStartedEvent {
        task_id: step.id.clone(),
        step_attempt: 1,
        child_run_id: None,
        child_kind: None,
        resumed_from: None,
    }));
    let (inner, stop) = scope.child();
    let members = &group.steps;
    let ids: Vec<&str> = members.iter().map(|m| m.id.as_str()).collect();
    let limit = group.max_concurrency.map_or(usize::MAX, |n| {
        usize::try_from(n.max(1)).unwrap_or(usize::MAX)
    });
    let mut ends: Vec<Option<StepEnd>> = vec![None; members.len()];
    let mut begun = vec![false; members.len()];
    let mut stopped_by: Option<String> = None;
    let mut running = FuturesUnordered::new();
    let timer = step.timeout.as_deref().and_then(|t| parse_duration(t).ok());
    let sleep = async {
        match timer {
            Some(t) => tokio::time::sleep(t).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(sleep);
    let mut timed_out = false;
    loop {
        if stopped_by.is_none() && !inner.is_cancelled() {
            for (i, member) in members.iter().enumerate() {
                if begun[i] || running.len() >= limit {
                    continue;
                }
                let deps: Vec<&String> = ctx
                    .wf
                    .deps(&member.id)
                    .iter()
                    .filter(|d| ids.contains(&d.as_str()))
                    .collect();
                let dep_ends: Vec<Option<StepEnd>> = deps.iter().map(|d| ctx.end_of(d)).collect();
                if let Some((dep, end)) = deps.iter().zip(&dep_ends).find_map(|(d, e)| {
                    e.as_ref()
                        .filter(|e| !e.status.is_finished())
                        .map(|e| (d, e))
                }) {
                    begun[i] = true;
                    let reason = format!(
                        "not run: `{dep}`, which it needs, ended {}",
                        end.status.as_str()
                    );
                    ends[i] = Some(finish(
                        ctx,
                        member,
                        StepEnd::cancelled(ctx.execution, reason),
                    ));
                    continue;
                }
                if dep_ends.iter().all(Option::is_some) {
                    begun[i] = true;
                    let inner = &inner;
                    running.push(
                        async move { (i, run_step(ctx, member, Some(&step.id), inner).await) },
                    );
                }
            }
        }
        let next = tokio::select! {
            next = running.next() => next,
            () = &mut sleep, if !timed_out => {
                timed_out = true;
                stop.cancel(CancelRequest { immediate: false });
                continue;
            }
        };
        let Some((i, end)) = next else { break };
        // Once the group's deadline cancelled it, a failing member is not
        // a second request (which would kill the others at once).
        if end.status == StepStatus::Failed
            && group.on_failure == OnFailure::FailFast
            && stopped_by.is_none()
            && !timed_out
        {
            stopped_by = Some(members[i].id.clone());
            stop.cancel(CancelRequest { immediate: false });
        }
        ends[i] = Some(end);
    }
    for (i, member) in members.iter().enumerate() {
        if ends[i].is_none() {
            let reason = match &stopped_by {
                Some(id) => format!("not run: `{id}` failed and the group fails fast"),
                None => "not run: the group was cancelled".to_owned(),
            };
            ends[i] = Some(finish(
                ctx,
                member,
                StepEnd::cancelled(ctx.execution, reason),
            ));
        }
    }
    group_end(ctx, step, members, &ends, timed_out)
}

/// The group's end from its members'.
fn group_end(
    ctx: &Ctx<'_>,
    step: &StepDef,
    members: &[StepDef],
    ends: &[Option<StepEnd>],
    timed_out: bool,
) -> StepEnd {
    let mut output = Map::new();
    for (member, end) in members.iter().zip(ends) {
        let value = end
            .as_ref()
            .map_or(Value::Null, |e| e.outcome.output.clone());
        output.insert(member.id.clone(), value);
    }
    let outcome = StepOutcome {
        result: Value::Null,
        output: Value::Object(output),
        action: None,
        run_id: None,
    };
    if timed_out {
        let message = format!(
            "the group's timeout ({}) passed",
            step.timeout.as_deref().unwrap_or_default()
        );
        return StepEnd {
            status: StepStatus::Failed,
            outcome,
            reason: Some(message.clone()),
            error: Some(ErrorInfo::new(
                ErrorKind::Timeout,
                ErrorSource::Internal,
                message,
            )),
            execution: ctx.execution,
        };
    }
    let failed = members
        .iter()
        .zip(ends)
        .find(|(_, e)| e.as_ref().is_some_and(|e| e.status == StepStatus::Failed));
    if let Some((member, Some(end))) = failed {
        let mut error = end
            .error
            .clone()
            .unwrap_or_else(|| ErrorInfo::new(ErrorKind::Unknown, ErrorSource::Internal, "failed"));
        error.message = format!("member `{}` failed: {}", member.id, error.message);
        return StepEnd {
            status: StepStatus::Failed,
            outcome,
            reason: Some(error.message.clone()),
            error: Some(error),
            execution: ctx.execution,
        };
    }
    if ends.iter().any(|e| {
        e.as_ref()
            .is_some_and(|e| e.status == StepStatus::Cancelled)
    }) {
        return StepEnd {
            outcome,
            ..StepEnd::cancelled(ctx.execution, "a member was cancelled")
        };
    }
    StepEnd {
        status: StepStatus::Ok,
        outcome,
        reason: None,
        error: None,
        execution: ctx.execution,
    }
}
