//! One attempt as a turn of a warm process (`--warm` with a session, or
//! permission mode `ask`): the session's process is taken from the
//! holder and reused when it is alive and was started for the same
//! settings, else a new one is started (resuming the session's native id:
//! the envelope's `warm` says `started` or `replaced`). The turn's output
//! goes through the same accumulator and events as a cold attempt's, its
//! permission requests through the [`Approver`] (each an event), and it
//! ends like one: the same envelope, the same error kinds.
//!
//! What differs from a cold attempt:
//! - a turn ends at its protocol's turn end, not at the CLI's exit: the
//!   process is given back to the holder for the next turn (or closed,
//!   without a holder);
//! - the process dying during the turn is a recoverable `provider_error`
//!   (the next turn replaces it by resuming the session);
//! - cancel, `--timeout` and `--idle-timeout` interrupt the turn over the
//!   wire first, and kill the process when it does not end the turn
//!   within [`INTERRUPT_GRACE`]; so does a question the agent asks its
//!   user (`asked.rs`): the turn fails at once with
//!   `user_input_requested`, as a cold attempt does;
//! - a CLI whose usage counts from its start (Claude Code) has the
//!   previous turn's figures subtracted.

use std::time::{Duration, Instant};

use agentgate_protocol::{
    CancelReason, CancelledEvent, ErrorInfo, ErrorKind, ErrorSource, EventBody, HeartbeatEvent,
    WarmProcessState, WarmReport,
};
use jiff::Timestamp;
use tokio::sync::mpsc;

use super::attempt::start_event;
use super::attempt_end::{AttemptEnd, AttemptOutcome, AttemptPacket, finish_attempt};
use super::budget_meter::BudgetMeter;
use super::deadline_event::humanize;
use super::emitter::Emitter;
use super::options::{CancelRequest, RunContext};
use super::warm_start::{BesideNotice, beside};
use crate::warm::approve::Approver;
use crate::warm::modes::fingerprint;
use crate::warm::process::Step;
use crate::warm::protocol::Answer;
use crate::warm::sessions::{Taken, Warm};
use agentgate_providers::decode::Decoded;
use agentgate_providers::locate_binary;
use agentgate_providers::{Accumulator, delta};
use agentgate_providers::{ClassifyInput, StdoutSeen, classify};
use agentgate_supervise::ExitReport;

/// How long an interrupted turn may take to end before its process is
/// killed.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(5);

/// How the turn ended.
enum TurnEnd {
    /// The protocol's turn end.
    Ended,
    /// The process is gone.
    Died(Option<ExitReport>),
}

/// Why agentgate stopped the turn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stopped {
    Cancelled,
    Timeout,
    IdleTimeout,
    Refused,
    /// The agent asked the user a question (`asked.rs`).
    Asked,
    /// The turn crossed a limit of its gateway (the error is the
    /// gateway's `budget`).
    Budget,
}

/// Run one attempt of `packet` as a warm turn.
pub(super) async fn warm_attempt(
    ctx: RunContext<'_>,
    packet: AttemptPacket<'_>,
    em: &mut Emitter<'_>,
    cancel: &mut mpsc::Receiver<CancelRequest>,
    meter: &mut BudgetMeter<'_>,
) -> AttemptOutcome {
    let AttemptPacket { step, request, .. } = packet;
    let started_at = Timestamp::now();
    let started = Instant::now();
    let provider = step.provider.clone();
    let mut acc = Accumulator::new(provider.name());
    em.emit(start_event(packet));
    // The turn's prompt as sent over the wire, as a one-shot attempt saves
    // the one it gives its CLI.
    if ctx.plan.debug_prompt {
        super::debug_prompt::save(em, request);
    }
    let fail = |acc: &Accumulator, em: &mut Emitter<'_>, kind: ErrorKind, message: String| {
        let end = AttemptEnd::failed(kind, message, started, started_at);
        finish_attempt(packet, acc, end, em)
    };
    let program = match locate_binary(provider.as_ref(), step.binary.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(&acc, em, ErrorKind::InvalidInput, e.to_string()),
    };
    // The sandbox and the gateway it runs with are part of it (a turn
    // with other limits gets a process with another gateway).
    let fingerprint = fingerprint(
        provider.name(),
        &program,
        request,
        &(&step.sandbox, &step.gateway),
    );
    let holder = ctx.options.warm.as_ref();
    let session = ctx.plan.session.as_deref().filter(|_| holder.is_some());

    // The session's process: reused, replaced or started.
    let mut replaced_because = None;
    let mut resume = request.resume.clone();
    let mut reused = None;
    if let (Some(h), Some(name)) = (holder, session) {
        match h.take(name) {
            Taken::Busy => {
                return fail(
                    &acc,
                    em,
                    ErrorKind::SessionBusy,
                    format!("a turn of session `{name}` runs in its warm process now"),
                );
            }
            Taken::Held(w) if w.process.is_alive() && w.fingerprint == fingerprint => {
                reused = Some(w);
            }
            Taken::Held(w) => {
                replaced_because = Some(if w.process.is_alive() {
                    "the turn asks for other settings (model, mode, folder, system prompt, servers, arguments or environment)"
                        .to_owned()
                } else {
                    "its process had ended".to_owned()
                });
                if let Some(id) = w.process.session_id() {
                    resume = Some(id.to_owned());
                }
                (*w).kill().await;
            }
            Taken::Gone { why, native_id } => {
                replaced_because = Some(why);
                if resume.is_none() {
                    resume = native_id;
                }
                h.reserve(name, provider.name());
            }
            Taken::None => h.reserve(name, provider.name()),
        }
    }
    let forget = |why: Option<(&str, Option<&str>)>| {
        if let (Some(h), Some(name)) = (holder, session) {
            h.forget(name, why);
        }
    };
    let (mut warm, state) = match reused {
        Some(w) => (w, WarmProcessState::Reused),
        None => {
            let mut req = request.clone();
            req.resume = resume.clone();
            match super::warm_start::start(ctx, step, &req, &program, fingerprint, em).await {
                Ok(w) => {
                    let state = match replaced_because {
                        Some(_) => WarmProcessState::Replaced,
                        None => WarmProcessState::Started,
                    };
                    (w, state)
                }
                Err((kind, message)) => {
                    forget(None);
                    return fail(&acc, em, kind, message);
                }
            }
        }
    };

    // The gateway serving the process serves this turn (its secrets
    // redacted in this run's events).
    if let Some(g) = beside(&mut warm).and_then(|b| b.gateway.as_mut()) {
        g.begin_turn(em);
    }
    let mut seat = ctx
        .options
        .approval_desk
        .as_ref()
        .map(|d| d.open_for(&em.run_id, warm.process.process_group_cell()));
    let mut approver = Approver::new(ctx.plan.approvals.clone(), request.cwd.clone(), &em.run_id);
    let asks = request.permission_mode == crate::settings::PermissionMode::Ask;

    let turn_started = Instant::now();
    let mut stopped: Option<Stopped> = None;
    let mut interrupted_at: Option<Instant> = None;
    let mut last_output = Instant::now();
    let opts = ctx.options;
    let mut heartbeat = tokio::time::interval(opts.heartbeat.max(Duration::from_millis(100)));
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut cancel_open = true;
    let mut asked: Option<ErrorInfo> = None; // see `asked.rs`
    let ended = match warm.process.send_turn(&request.prompt).await {
        Err(_) => TurnEnd::Died(None),
        Ok(()) => loop {
            let wall = step.timeout.map(|t| turn_started + t);
            let idle = step.idle_timeout.map(|t| last_output + t);
            let kill_at = interrupted_at.map(|t| t + INTERRUPT_GRACE);
            let next_deadline = [wall, idle, kill_at].into_iter().flatten().min();
            tokio::select! {
                next = warm.process.next() => {
                    last_output = Instant::now();
                    match next {
                        Step::Output(items) => {
                            let question = observe(provider.name(), &mut acc, em, &mut warm, items);
                            if asked.is_none() && let Some(e) = question {
                                asked = Some(e);
                                stop(em, &mut warm, &mut stopped, &mut interrupted_at, Stopped::Asked).await;
                            }
                            if meter.on_stream(&acc, request.model.as_deref(), em) {
                                stop(em, &mut warm, &mut stopped, &mut interrupted_at, Stopped::Budget).await;
                            }
                        }
                        // The ask tool's call as a permission request: refused,
                        // and the turn stopped, without asking the policy.
                        Step::Ask(ask) if super::asked::question_in_call(provider.name(), &ask.call.tool, &ask.input).is_some() => {
                            if asked.is_none() {
                                asked = super::asked::question_in_call(provider.name(), &ask.call.tool, &ask.input);
                            }
                            let answer = Answer::Deny { message: super::asked::UNATTENDED_REFUSAL.to_owned() };
                            let _ = warm.process.answer(&ask, &answer).await;
                            stop(em, &mut warm, &mut stopped, &mut interrupted_at, Stopped::Asked).await;
                        }
                        Step::Ask(ask) => {
                            let req_event = approver.request(&ask);
                            em.emit(EventBody::ApprovalRequest(req_event.clone()));
                            let (decided, cancelled) = tokio::select! {
                                d = approver.decide(&ask, &req_event, seat.as_mut()) => (d, false),
                                Some(_) = cancel.recv(), if cancel_open => (approver.cancelled(&req_event), true),
                            };
                            em.emit(EventBody::ApprovalDecision(decided.event.clone()));
                            let _ = warm.process.answer(&ask, &decided.answer).await;
                            if cancelled {
                                stop(em, &mut warm, &mut stopped, &mut interrupted_at, Stopped::Cancelled).await;
                            } else if decided.stop_turn && stopped.is_none() {
                                stop(em, &mut warm, &mut stopped, &mut interrupted_at, Stopped::Refused).await;
                            }
                        }
                        Step::Withdrawn(_) => {}
                        Step::TurnEnd => break TurnEnd::Ended,
                        Step::Died(report) => break TurnEnd::Died(report),
                    }
                }
                told = next_beside(&mut warm.beside) => match told {
                    BesideNotice::Egress(refused) => em.notice(refused),
                    BesideNotice::Gateway(n) => {
                        let call = match n.as_ref() {
                            agentgate_gateway::GatewayNotice::Call(c) if meter.active() => Some(c.clone()),
                            _ => None,
                        };
                        let mut crossed = beside(&mut warm)
                            .and_then(|b| b.gateway.as_mut())
                            .is_some_and(|g| g.on_notice(*n, ctx, em));
                        crossed |= call.is_some_and(|c| meter.on_call(&c, em));
                        if crossed {
                            stop(em, &mut warm, &mut stopped, &mut interrupted_at, Stopped::Budget).await;
                        }
                    }
                },
                req = cancel.recv(), if cancel_open => match req {
                    Some(req) => {
                        if req.immediate || interrupted_at.is_some() {
                            if stopped.is_none() {
                                stopped = Some(Stopped::Cancelled);
                                em.emit(EventBody::Cancelled(CancelledEvent { reason: CancelReason::Signal, signal: None }));
                            }
                            break TurnEnd::Died(warm.process.kill().await);
                        }
                        stop(em, &mut warm, &mut stopped, &mut interrupted_at, Stopped::Cancelled).await;
                    }
                    None => cancel_open = false,
                },
                () = sleep_until(next_deadline), if next_deadline.is_some() => {
                    let now = Instant::now();
                    if kill_at.is_some_and(|t| now >= t) {
                        break TurnEnd::Died(warm.process.kill().await);
                    }
                    let why = if wall.is_some_and(|t| now >= t) { Stopped::Timeout } else { Stopped::IdleTimeout };
                    stop(em, &mut warm, &mut stopped, &mut interrupted_at, why).await;
                }
                _ = heartbeat.tick() => {
                    let idle = last_output.elapsed();
                    if idle >= opts.heartbeat {
                        em.emit(EventBody::Heartbeat(HeartbeatEvent {
                            elapsed_ms: started.elapsed().as_millis() as u64,
                            idle_ms: idle.as_millis() as u64,
                        }));
                    }
                }
            }
        },
    };
    drop(seat.take());
    let egress_left = beside(&mut warm)
        .and_then(|b| b.sandbox.as_mut())
        .map(|s| s.egress_left())
        .unwrap_or_default();
    for left in egress_left {
        em.notice(left);
    }

    let error = match (stopped, asked) {
        // Whatever the CLI did after it asked.
        (Some(Stopped::Asked), Some(e)) => Some(e),
        _ => turn_error(ctx, step, &acc, &ended, stopped),
    };
    let alive = matches!(ended, TurnEnd::Ended) && warm.process.is_alive();
    let report = WarmReport {
        process: state,
        pgid: warm.process.process_group(),
        turn: warm.process.turns(),
        replaced_because,
    };
    let mut outcome = finish_attempt(
        packet,
        &acc,
        AttemptEnd::turn(error, started, started_at),
        em,
    );
    if outcome.envelope.session_id.is_none() {
        outcome.envelope.session_id = warm.process.session_id().map(str::to_owned);
        outcome.attempt.session_id = outcome.envelope.session_id.clone();
    }
    if let (Some(h), WarmProcessState::Started | WarmProcessState::Replaced) = (holder, state)
        && resume.is_none()
        && let Some(id) = outcome.envelope.session_id.as_deref()
    {
        h.born(id);
    }
    outcome.envelope.warm = Some(report);
    if let Some(g) = beside(&mut warm).and_then(|b| b.gateway.as_mut()) {
        g.finish_turn(ctx, &mut outcome, em);
    }
    if let Some(crossed) = meter.take_crossed() {
        outcome.fail(crossed);
    }
    if let Some(s) = beside(&mut warm).and_then(|b| b.sandbox.as_ref()) {
        outcome.envelope.sandbox = Some(Box::new(s.turn_report()));
    }
    if asks {
        outcome.envelope.approvals = Some(approver.counts().clone());
    }
    match (holder, session, alive) {
        (Some(h), Some(name), true) => h.put_back(name, provider.name(), warm, ctx.plan.warm_idle),
        (_, _, true) => (*warm).close(crate::warm::sessions::CLOSE_GRACE).await,
        (_, _, false) => {
            let id = warm.process.session_id().map(str::to_owned);
            (*warm).kill().await;
            forget(Some((
                "its process ended during the last turn",
                id.as_deref(),
            )));
        }
    }
    outcome
}

/// Feed a step's output to the accumulator and the events; a CLI whose
/// usage counts from its start has the earlier turns' taken off. Returns
/// the error of a question the agent asked its user, if it did
/// (`asked.rs`).
fn observe(
    provider: &str,
    acc: &mut Accumulator,
    em: &mut Emitter<'_>,
    warm: &mut Warm,
    items: Vec<Decoded>,
) -> Option<ErrorInfo> {
    let mut question = None;
    for mut d in items {
        if warm.cumulative_usage
            && let Decoded::Final(f) = &mut d
            && let Some(total) = f.usage.take()
        {
            f.usage = Some(match &warm.totals {
                Some(before) => delta(&total, before),
                None => total.clone(),
            });
            warm.totals = Some(total);
        }
        acc.observe(&d);
        if let Decoded::Event(body) = d {
            if question.is_none() {
                question = super::asked::question_asked(provider, &body);
            }
            em.emit(body);
        }
    }
    question
}

/// Interrupt the turn over the wire, once, saying why.
async fn stop(
    em: &mut Emitter<'_>,
    warm: &mut Warm,
    stopped: &mut Option<Stopped>,
    interrupted_at: &mut Option<Instant>,
    why: Stopped,
) {
    if stopped.is_none() {
        *stopped = Some(why);
        if why == Stopped::Cancelled {
            em.emit(EventBody::Cancelled(CancelledEvent {
                reason: CancelReason::Signal,
                signal: None,
            }));
        }
    }
    if interrupted_at.is_none() {
        *interrupted_at = Some(Instant::now());
        let _ = warm.process.interrupt().await;
    }
}

/// The turn's error, as a cold attempt's would be.
fn turn_error(
    ctx: RunContext<'_>,
    step: &crate::plan::Step,
    acc: &Accumulator,
    ended: &TurnEnd,
    stopped: Option<Stopped>,
) -> Option<ErrorInfo> {
    let name = step.provider.name();
    let internal =
        |kind, message: String| Some(ErrorInfo::new(kind, ErrorSource::Internal, message));
    match stopped {
        Some(Stopped::Cancelled) => {
            return internal(ErrorKind::Cancelled, "the run was cancelled".into());
        }
        Some(Stopped::Timeout) => {
            return internal(
                ErrorKind::Timeout,
                format!(
                    "{name} did not finish the turn within --timeout {}",
                    humanize(step.timeout.unwrap_or_default())
                ),
            );
        }
        Some(Stopped::IdleTimeout) => {
            return internal(
                ErrorKind::IdleTimeout,
                format!(
                    "{name} printed nothing for --idle-timeout {}",
                    humanize(step.idle_timeout.unwrap_or_default())
                ),
            );
        }
        Some(Stopped::Refused | Stopped::Asked | Stopped::Budget) | None => {}
    }
    if let TurnEnd::Died(report) = ended {
        let how = match report {
            Some(r) => match (r.status.code, r.status.signal) {
                (_, Some(sig)) => format!("killed by signal {sig}"),
                (Some(code), _) => format!("exit code {code}"),
                _ => "no exit status".to_owned(),
            },
            None => "its end unknown".to_owned(),
        };
        return Some(ErrorInfo::new(
            ErrorKind::ProviderError,
            ErrorSource::ExitStatus,
            format!(
                "the warm {name} process ended during the turn ({how}); the next turn resumes the session in a new one"
            ),
        ));
    }
    if stopped == Some(Stopped::Refused) {
        return Some(ErrorInfo::new(
            ErrorKind::Policy,
            ErrorSource::Internal,
            format!(
                "{name} asked again for a tool call the approval policy refused in this turn: the turn was stopped"
            ),
        ));
    }
    classify(&ClassifyInput {
        provider: name,
        table: step.provider.errors(),
        errors: acc.errors(),
        final_: acc.final_record(),
        final_expected: None,
        stdout_seen: StdoutSeen::default(),
        exit_code: Some(if acc.errors().is_empty() { 0 } else { 1 }),
        signal: None,
        stdout_tail: "",
        stderr_tail: "",
        now: ctx.plan.now(),
        tz: None,
    })
}

/// The next thing the warm process's gateway or egress proxy tells the
/// turn; pending forever without either.
async fn next_beside(beside: &mut Option<Box<dyn crate::warm::sessions::Beside>>) -> BesideNotice {
    let found = beside.as_deref_mut().and_then(|b| {
        b.as_any_mut()
            .downcast_mut::<super::warm_start::WarmBeside>()
    });
    match found {
        Some(b) => b.next().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}
