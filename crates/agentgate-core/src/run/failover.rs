//! The run: its steps in order until one succeeds or the run must stop,
//! then the envelope, the session mapping and the record.
//!
//! After a failed step the next one starts only when the error is
//! recoverable, the step's `retry_on` admits it, and the workspace policy
//! lets the changes the failed step left be handed on (`checks.rs`).

use std::sync::Arc;
use std::time::Instant;

use agentgate_protocol::{
    Envelope, ErrorInfo, ErrorKind, ErrorSource, EventBody, LogLevel, ResultEvent, StatusEvent,
    WorkspaceReport, exit_code_for,
};
use agentgate_store::{RunStore, SavedResult};
use tokio::sync::mpsc;

use super::checks::workspace_gate;
use super::emitter::{Emitter, EventSink};
use super::options::{CancelRequest, RunContext, RunOptions, RunOutcome};
use super::record::{self, new_run_id};
use super::session_gate::lock_session;
use super::step::{StepEnd, StepRunner};
use super::worktree;
use crate::config::Handoff;
use crate::plan::{Plan, Step};
use crate::retry_on::retry_admits;
use agentgate_providers::Scratch;

/// Run `plan`: its steps in order until one succeeds or the run must stop.
/// Events go to `sink` (and, with a store, to the run's `events.jsonl`);
/// a message on `cancel` stops the CLI under way.
pub async fn run(
    plan: &Plan,
    options: &RunOptions,
    store: Option<&dyn RunStore>,
    sink: &mut dyn EventSink,
    mut cancel: mpsc::Receiver<CancelRequest>,
) -> RunOutcome {
    let run_id = options.run_id.clone().unwrap_or_else(new_run_id);
    let started = Instant::now();
    let redactor = plan.redactor();
    let opened = store.map(|s| {
        record::open_run(
            s,
            &run_id,
            plan,
            &redactor,
            options.parent_run_id.as_deref(),
        )
    });
    let (mut files, open_error) = match opened {
        Some(Ok(files)) => (Some(files), None),
        Some(Err(e)) => (None, Some(e)),
        None => (None, None),
    };
    // `workspace: worktree`: the steps that ask for it work in the run's
    // own git worktree (`worktree.rs`), made before any CLI starts.
    let run_dir = files.as_ref().map(|f| f.dir().to_path_buf());
    let (isolated, isolation) = match worktree::isolate(plan, &run_id, run_dir.as_deref()).await {
        Ok(Some((plan, wt))) => (Some(plan), Some(Ok(wt))),
        Ok(None) => (None, None),
        Err(e) => (None, Some(Err(e))),
    };
    let plan = isolated.as_ref().unwrap_or(plan);
    // Files a CLI's command needs (system-prompt files) go in the run's
    // folder, or, without a store, in a folder of this run's own, made only
    // if a provider writes one and removed after.
    let scratch = match &files {
        Some(f) => Scratch::at(f.dir()),
        None => Scratch::temporary(),
    };
    let mut em = Emitter::new(run_id.clone(), files.as_mut(), sink, redactor);
    open_run_log(plan, &run_id, &mut em);
    if let Some(e) = open_error {
        em.store_failed(e);
    }
    if plan.session.is_some() && store.is_none() {
        em.log(
            LogLevel::Warn,
            "--session needs the run store to map the name to a provider session; running without resuming".into(),
        );
    }
    let ctx = RunContext {
        plan,
        options,
        store,
        scratch: &scratch,
    };
    let mut runner = StepRunner::new(ctx, &run_id);
    let mut run_worktree = None;
    match isolation {
        Some(Ok(wt)) => {
            worktree::announce(&wt, &mut em);
            run_worktree = Some(wt);
        }
        Some(Err(error)) => {
            // No step ran: an index past the last step leaves the envelope
            // without a provider.
            let end = Some((
                plan.steps.len(),
                StepEnd {
                    envelope: Envelope::default(),
                    error: Some(error),
                    model_note: None,
                },
            ));
            return finish(&mut runner, end, started, &mut em, None);
        }
        None => {}
    }
    if let Some(error) = unusable_tools(plan, options) {
        // No step ran: an index past the last step leaves the envelope
        // without a provider.
        let end = Some((
            plan.steps.len(),
            StepEnd {
                envelope: Envelope::default(),
                error: Some(error),
                model_note: None,
            },
        ));
        let workspace = match run_worktree {
            Some(wt) => Some(worktree::settle(wt, &mut em).await),
            None => None,
        };
        return finish(&mut runner, end, started, &mut em, workspace);
    }
    // Held until the session is saved in `finish`: one run per name at a
    // time (`session_gate.rs`).
    let _session_lock;
    let end = match (&plan.session, store) {
        (Some(name), Some(store)) => {
            let deadline = plan.steps.first().and_then(|s| s.timeout);
            match lock_session(
                store,
                name,
                plan.session_busy,
                deadline,
                &mut em,
                &mut cancel,
            )
            .await
            {
                Ok(lock) => {
                    _session_lock = lock;
                    fail_over(&mut runner, &mut em, &mut cancel).await
                }
                // No step ran: an index past the last step leaves the
                // envelope without a provider.
                Err(error) => Some((
                    plan.steps.len(),
                    StepEnd {
                        envelope: Envelope::default(),
                        error: Some(error),
                        model_note: None,
                    },
                )),
            }
        }
        _ => fail_over(&mut runner, &mut em, &mut cancel).await,
    };
    // However the steps ended: a changed worktree is kept, never lost.
    let workspace = match run_worktree {
        Some(wt) => Some(worktree::settle(wt, &mut em).await),
        None => None,
    };
    finish(&mut runner, end, started, &mut em, workspace)
}

/// A step with registry tools that this run cannot give it: the caller
/// gave no way to start agentgate's MCP server, or its registry does not
/// offer one of them.
fn unusable_tools(plan: &Plan, options: &RunOptions) -> Option<ErrorInfo> {
    let message = plan.steps.iter().find_map(|step| {
        if step.tools.is_empty() {
            return None;
        }
        match &options.tool_server {
            None => Some(format!(
                "{} is to call the tools {}, but this runner cannot start agentgate's MCP server for them (RunOptions::tool_server is not set)",
                step.label(),
                step.tools.join(", ")
            )),
            Some(server) => server.missing(&step.tools).map(|name| {
                let offered = match server.offered.is_empty() {
                    true => "none".to_owned(),
                    false => server.offered.join(", "),
                };
                format!(
                    "{} is to call the tool `{name}`, which the tool registry does not offer (it offers: {offered}; see `agentgate tools list`)",
                    step.label()
                )
            }),
        }
    })?;
    Some(ErrorInfo::new(
        ErrorKind::InvalidInput,
        ErrorSource::Internal,
        message,
    ))
}

/// The steps in order: the index of the step the run ended on, and how.
async fn fail_over(
    runner: &mut StepRunner<'_>,
    em: &mut Emitter<'_>,
    cancel: &mut mpsc::Receiver<CancelRequest>,
) -> Option<(usize, StepEnd)> {
    let plan = runner.ctx.plan;
    let mut end: Option<(usize, StepEnd)> = None;
    let mut handoff: Option<String> = None;
    // A budget spent before the run starts: no step runs (an index past
    // the last step leaves the envelope without a provider).
    if let Some(error) = runner.meter.start_run(plan, runner.ctx.store, em) {
        em.notice(error.message.clone());
        let over = StepEnd {
            envelope: Envelope::default(),
            error: Some(error),
            model_note: None,
        };
        return Some((plan.steps.len(), over));
    }
    for (i, step) in plan.steps.iter().enumerate() {
        em.provider = Some(step.provider.name().to_owned());
        let next = plan.steps.get(i + 1);
        // The attempts so far passed a budget: the run ends on the last
        // step tried, with `budget`.
        if let Some(stop) = runner.meter.spent_out()
            && let Some((j, last)) = end.take()
        {
            em.notice(stop.message.clone());
            let error = Some(stop);
            return Some((j, StepEnd { error, ..last }));
        }
        if let Some(skip) = runner.skip_exhausted(step, em) {
            end = Some((i, skip));
            continue;
        }
        if let Some(skip) = runner.skip_over_budget(step, em) {
            end = Some((i, skip));
            continue;
        }
        let (step_end, changes) = runner
            .step(step, next.is_some(), handoff.take(), em, cancel)
            .await;
        let Some(next) = next else {
            return Some((i, step_end));
        };
        let Some(error) = step_end.error.clone() else {
            return Some((i, step_end));
        };
        if !retry_admits(step.retry_on.as_ref(), &error) {
            if error.recoverable {
                em.log(
                    LogLevel::Info,
                    format!(
                        "{} failed with {}, which the chain's retry_on does not admit: not trying {}",
                        step.label(),
                        error.kind,
                        next.label()
                    ),
                );
            }
            return Some((i, step_end));
        }
        if let Err(stopped) = workspace_gate(plan.on_dirty, step, next, &error, changes, em).await {
            return Some((
                i,
                StepEnd {
                    error: Some(stopped),
                    ..step_end
                },
            ));
        }
        if plan.handoff == Handoff::Summary
            && let Some(t) = em.transcript.take()
        {
            handoff = Some(t.summary(&step.label(), &error));
        }
        em.emit(EventBody::Status(StatusEvent::Failover {
            from: step.label(),
            to: next.label(),
            error_type: error.kind,
            message: error.message.clone(),
        }));
        end = Some((i, step_end));
    }
    end
}

/// The run's envelope, from the step it ended on: the error and exit code,
/// every attempt, the session mapping saved, the `result` event, the
/// record.
fn finish(
    runner: &mut StepRunner<'_>,
    end: Option<(usize, StepEnd)>,
    started: Instant,
    em: &mut Emitter<'_>,
    workspace: Option<WorkspaceReport>,
) -> RunOutcome {
    let plan = runner.ctx.plan;
    let store = runner.ctx.store;
    let (last_step, step_end): (Option<&Step>, StepEnd) = match end {
        Some((i, e)) => (plan.steps.get(i), e),
        None => (
            None,
            StepEnd {
                envelope: Envelope::default(),
                error: Some(ErrorInfo::new(
                    ErrorKind::InvalidInput,
                    ErrorSource::Internal,
                    "the run has no provider to try",
                )),
                model_note: None,
            },
        ),
    };
    let StepEnd {
        mut envelope,
        error,
        model_note,
    } = step_end;

    // Remember the session for the next run (with its context length and,
    // when it rotated, the rotation: `rotation.rs`).
    let rotated = runner.rotated.take().filter(|(provider, _)| {
        last_step.is_some_and(|step| step.provider.name() == provider.as_str())
    });
    envelope.session_rotated = rotated.as_ref().map(|(_, r)| r.clone());
    if let (Some(name), Some(store), Some(id), Some(step)) =
        (&plan.session, store, envelope.session_id.clone(), last_step)
        && let Err(e) = record::save_session(
            store,
            name,
            step,
            id,
            &plan.labels,
            envelope.context_tokens,
            envelope
                .session_rotated
                .as_ref()
                .map(|r| (r, runner.run_id)),
        )
    {
        em.log(
            LogLevel::Warn,
            format!("failed to save session `{name}`: {e}"),
        );
        em.store_failed(e);
    }

    // The run is as recoverable as its failures: exit 75 only when every
    // attempt failed in a way that a later or another try may fix.
    let every_recoverable = error.as_ref().is_some_and(|e| e.recoverable)
        && runner
            .attempts
            .iter()
            .all(|a| a.recoverable.is_none_or(|r| r));
    let exit_code = exit_code_for(error.as_ref().map(|e| e.kind), every_recoverable);
    if let Some(e) = &error {
        envelope = envelope.with_error(e, exit_code);
    }
    envelope.run_id = runner.run_id.to_owned();
    if let Some(step) = last_step {
        envelope.provider = Some(step.provider.name().to_owned());
        envelope.agent = step.agent.clone();
        envelope.model_resolution = model_note.or_else(|| step.model_resolution.clone());
        envelope.effort = step.effort.clone();
        if envelope.model.is_none() {
            // As the last attempt asked for it (after an invalid-model retry,
            // not the model first requested).
            envelope.model = runner.attempts.last().and_then(|a| a.model.clone());
        }
    }
    envelope.chain = plan.chain.clone();
    envelope.labels = plan.labels.clone();
    envelope.skill = plan.skill.clone();
    envelope.attempts = std::mem::take(&mut runner.attempts);
    super::cost::finish_run(
        &plan.pricing,
        &mut envelope,
        std::mem::take(&mut runner.costs),
    );
    envelope.session_recreated = runner.session_recreated || runner.resumed_elsewhere;
    envelope.duration_ms = started.elapsed().as_millis() as u64;
    envelope.workspace = workspace;
    // What the CLI printed was redacted as it was read; what a provider
    // recovered from its session files, and the messages, are checked here.
    match em.redactor().redacted(&envelope) {
        Ok(Some(redacted)) => envelope = redacted,
        Ok(None) => {}
        Err(e) => tracing::warn!("failed to check the envelope for secrets: {e}"),
    }
    if let Some(e) = &error {
        em.emit(EventBody::Error(e.clone()));
    }
    if let Some(log) = em.take_run_log() {
        let outcome = match &envelope.error_type {
            None => format!("exit {exit_code}"),
            Some(kind) => format!("exit {exit_code}, {kind}"),
        };
        if let Err(e) = log.finish(&outcome, &envelope.response) {
            tracing::warn!("{e}; the run's log file is incomplete");
            em.log(
                LogLevel::Warn,
                format!("{e}; the run's log file is incomplete"),
            );
        }
    }
    em.emit(EventBody::Result(ResultEvent {
        envelope: Box::new(envelope.clone()),
    }));
    // A reader that sees the run ended must find all its events.
    em.flush_store();
    let saved = SavedResult {
        exit_code,
        envelope,
    };
    let (result_file, end_error) = match store {
        Some(store) => record::finish(store, runner.run_id, &saved, runner.ctx.options),
        None => (None, None),
    };
    let store_error = em
        .take_store_error()
        .or_else(|| runner.store_error.take())
        .or(end_error)
        .map(Arc::new);
    RunOutcome {
        envelope: saved.envelope,
        exit_code,
        store_error,
        result_file,
    }
}

/// Open the run's log file (`--log-dir`, `log_dir:`), if it has one: a
/// folder that cannot be written is a warning, never the run's end.
fn open_run_log(plan: &Plan, run_id: &str, em: &mut Emitter<'_>) {
    let Some(spec) = &plan.run_log else {
        return;
    };
    let providers: Vec<String> = plan
        .steps
        .iter()
        .map(|s| s.provider.name().to_owned())
        .collect();
    let header = super::run_log::Header {
        parts: crate::log_name::NameParts {
            labels: &plan.labels,
            run_id,
            started: jiff::Timestamp::now(),
            provider: providers.first().map(String::as_str),
        },
        providers: providers.clone(),
        chain: plan.chain.as_deref(),
    };
    match super::run_log::RunLog::open(spec, &header, em.redactor().clone()) {
        Ok(log) => {
            tracing::info!(file = %log.path().display(), "writing the run's log file");
            em.set_run_log(log);
        }
        Err(e) => {
            // On stderr (a warning) and in the events.
            tracing::warn!("{e}; the run goes on without its log file");
            em.log(
                LogLevel::Warn,
                format!("{e}; the run goes on without its log file"),
            );
        }
    }
}
