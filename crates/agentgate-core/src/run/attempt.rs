//! One attempt: spawn the CLI under the supervisor, decode its lines as
//! they come, stop it when it retries past the bound, classify how it
//! ended, and sum it up in an envelope.

use std::time::{Duration, Instant};

use agentgate_protocol::{
    CancelReason, CancelledEvent, ErrorInfo, ErrorKind, ErrorSource, EventBody, HeartbeatEvent,
    LogLevel, RawEvent, StartEvent, StatusEvent,
};
use agentgate_providers::Accumulator;
use agentgate_providers::decode::{Decoded, ProviderError};
use agentgate_providers::{ClassifyInput, StdoutSeen, classify};
use agentgate_providers::{CliRequest, PostRun, Provider, RemovedOnDrop};
use agentgate_providers::{locate_binary, private_tmpdir};
use agentgate_supervise::{
    Control, EndReason, ExitReport, Invocation, NoticeSender, OutputLine, Stream, SuperviseError,
    SupervisorConfig, supervise,
};
use jiff::Timestamp;
use tokio::sync::mpsc;

use super::attempt_end::finish_attempt;
pub(super) use super::attempt_end::{AttemptEnd, AttemptOutcome, AttemptPacket};
use super::budget_meter::BudgetMeter;
use super::emitter::Emitter;
use super::options::{CancelRequest, RunContext};
use super::sandbox_attempt::{AttemptSandbox, Confinement};
use super::tail::{STDERR_TAIL_BYTES, Tail};

/// Run one attempt of `packet` to its end, the CLI started for it alone
/// (a turn of a warm process is `warm_attempt.rs`'s).
pub(super) async fn attempt(
    ctx: RunContext<'_>,
    packet: AttemptPacket<'_>,
    em: &mut Emitter<'_>,
    cancel: &mut mpsc::Receiver<CancelRequest>,
    meter: &mut BudgetMeter<'_>,
) -> AttemptOutcome {
    let AttemptPacket {
        step,
        request,
        home,
    } = packet;
    let opts = ctx.options;
    let started_at = Timestamp::now();
    let started = Instant::now();
    let provider = step.provider.clone();
    let adapter: &dyn Provider = provider.as_ref();
    let mut acc = Accumulator::new(provider.name());
    em.emit(start_event(packet));

    let fail = |acc: &Accumulator, em: &mut Emitter<'_>, kind: ErrorKind, message: String| {
        finish_attempt(
            packet,
            acc,
            AttemptEnd::failed(kind, message, started, started_at),
            em,
        )
    };

    let program = match locate_binary(adapter, step.binary.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(&acc, em, ErrorKind::InvalidInput, e.to_string()),
    };
    // The sandbox (`--sandbox`): its private folders first (the gateway
    // of `strict` serves on a socket in one).
    let mut sandbox = match AttemptSandbox::prepare(step.sandbox.as_ref()) {
        Ok(s) => s,
        Err(why) => return fail(&acc, em, ErrorKind::InvalidInput, why),
    };
    let gateway_socket = sandbox.as_ref().and_then(AttemptSandbox::gateway_socket);
    // The model gateway (`--gateway`), started before the command is
    // built: the command points the CLI at it.
    let (mut gateway, pointed) =
        match super::gateway_attempt::start(ctx, step, request, em, gateway_socket).await {
            Ok(Some((g, r))) => (Some(g), Some(r)),
            Ok(None) => (None, None),
            Err(why) => return fail(&acc, em, ErrorKind::InvalidInput, why),
        };
    let request: &CliRequest = pointed.as_ref().unwrap_or(request);
    let cmd = match adapter.command(request, &program, ctx.scratch) {
        Ok(c) => c,
        Err(e) => return fail(&acc, em, ErrorKind::InvalidInput, e.to_string()),
    };
    em.starting(adapter.name(), &cmd, &step.notices);
    // A secret the provider's command sets (a described CLI's `env:`) is
    // redacted too, from this attempt on.
    let mut more = em.redactor().to_builder();
    let known = more.len();
    for (k, v) in &cmd.env {
        if let (Some(k), Some(v)) = (k.to_str(), v.to_str()) {
            more.env(k, v);
        }
    }
    if more.len() > known {
        em.set_redactor(more.build());
    }
    let redactor = em.redactor().clone();
    if ctx.plan.debug_prompt {
        super::debug_prompt::save(em, request);
    }
    // The request's variables last, less those the command took over (the
    // gateway's pointing: a real key's variables), which the CLI does not
    // inherit either.
    let request_env: Vec<(std::ffi::OsString, std::ffi::OsString)> = cmd
        .request_env(&request.env)
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    let mut inv = Invocation::new(cmd.program).args(cmd.args);
    inv.env = cmd.env;
    inv.env.extend(request_env);
    inv.env_clear = request.env_clear;
    inv.env_remove = request.env_remove.iter().map(Into::into).collect();
    inv.env_remove.extend(cmd.env_remove);
    if let Some(Err(why)) = gateway.as_ref().map(|g| g.seal(&mut inv)) {
        return fail(&acc, em, ErrorKind::InvalidInput, why);
    }
    inv.cwd = Some(cmd.cwd);
    inv.stdin = cmd.stdin;
    // The files the command wrote for the CLI (its MCP configuration,
    // which may hold the servers' variables; a system prompt file) are
    // removed when the attempt ends: the CLI has read them by then.
    let _written = RemovedOnDrop(cmd.files);
    // Removed when the attempt ends, after the CLI's processes are gone.
    // (A sandbox gives the CLI a temp folder of its own in any case.)
    let own_tmpdir = cmd.private_tmpdir && sandbox.is_none();
    let _own_tmpdir = match own_tmpdir.then(|| private_tmpdir(&request.env)) {
        Some(Ok(Some(dir))) => {
            inv.env.push(("TMPDIR".into(), dir.path().into()));
            Some(dir)
        }
        Some(Err(why)) => {
            em.log(LogLevel::Warn, why);
            None
        }
        Some(Ok(None)) | None => None,
    };
    // Last: the whole invocation confined to the sandbox.
    if let Some(sandbox) = sandbox.as_mut() {
        let at = Confinement {
            provider: adapter,
            agentgate: opts.keeper.as_deref(),
            scratch: ctx.scratch,
            runs_dir: ctx.store.map(|s| s.runs_dir()),
            hidden: &opts.hidden,
            edit_scope: &step.edit_scope,
            command_files: &_written.0,
            mcp_servers: &request.mcp_servers,
            gateway_port: gateway.as_ref().and_then(|g| g.port()),
            run_id: &em.run_id,
        };
        match sandbox.confine(&mut inv, at).await {
            Ok(notice) => em.notice(notice),
            Err(why) => return fail(&acc, em, ErrorKind::InvalidInput, why),
        }
    }
    let (notice_tx, mut notice_rx) = mpsc::unbounded_channel();
    let cfg = SupervisorConfig {
        timeout: step.timeout,
        deadline: step.deadline.clone(),
        deadline_notices: Some(NoticeSender(notice_tx)),
        idle_timeout: step.idle_timeout,
        result_grace: opts.result_grace,
        keeper: opts.keeper.clone(),
        warm_keeper: opts.warm_keeper.clone(),
        ..SupervisorConfig::default()
    };

    let (line_tx, mut line_rx) = mpsc::channel::<OutputLine>(256);
    let (control_tx, control_rx) = mpsc::channel::<Control>(8);
    let mut sup = tokio::spawn(supervise(inv, cfg, line_tx, control_rx));

    let mut decoder = adapter.decoder();
    let mut decoded = Vec::new();
    let mut stderr_tail = Tail::new(STDERR_TAIL_BYTES);
    let mut stdout_tail = Tail::new(STDERR_TAIL_BYTES);
    let mut stdout_seen = StdoutSeen::default();
    let mut cancelled = false;
    let mut result_seen = false;
    let mut stopped_for_retries: Option<ProviderError> = None;
    let mut asked: Option<ErrorInfo> = None; // see `asked.rs`
    // Retries of the current model request: the CLI's own count where it
    // gives one, else retries since the last sign of progress.
    let mut request_retries: u32 = 0;
    let mut last_output = Instant::now();
    let mut heartbeat = tokio::time::interval(opts.heartbeat.max(Duration::from_millis(100)));
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut lines_open = true;
    let mut cancel_open = true;
    let mut notices_open = true;
    let mut extended = Duration::ZERO;

    let report: Result<ExitReport, Unstarted> = loop {
        tokio::select! {
            line = line_rx.recv(), if lines_open => {
                let Some(line) = line else {
                    lines_open = false;
                    continue;
                };
                last_output = Instant::now();
                decoded.clear();
                // Secrets go here, before anything keeps the line.
                let bytes = redactor.redact_bytes(&line.bytes);
                // A line over the line limit is not decodable: a `raw` event
                // keeps its first bytes and says it was cut.
                let whole = line.cut_from.is_none();
                match line.stream {
                    Stream::Stdout => {
                        stdout_tail.push(&bytes);
                        stdout_seen.line(&bytes);
                        whole.then(|| decoder.stdout_line(&bytes, &mut decoded));
                    }
                    Stream::Stderr => {
                        stderr_tail.push(&bytes);
                        em.stderr(&bytes);
                        whole.then(|| decoder.stderr_line(&bytes, &mut decoded));
                    }
                }
                if let Some(original) = line.cut_from {
                    em.emit(EventBody::Raw(RawEvent::cut(line.stream.raw(), &bytes, original)));
                }
                for d in decoded.drain(..) {
                    acc.observe(&d);
                    match d {
                        Decoded::Event(body) => {
                            match &body {
                                EventBody::Status(StatusEvent::Retry { retry_attempt, .. }) => {
                                    request_retries = retry_attempt.unwrap_or(request_retries + 1);
                                }
                                EventBody::TextDelta(_)
                                | EventBody::Message(_)
                                | EventBody::Thinking(_)
                                | EventBody::ToolUse(_)
                                | EventBody::ToolResult(_)
                                | EventBody::Usage(_) => request_retries = 0,
                                _ => {}
                            }
                            if let EventBody::Status(StatusEvent::Retry { provider_status, detail, .. }) = &body
                                && let Some(max) = request.max_provider_retries
                                && request_retries > max
                                && stopped_for_retries.is_none()
                            {
                                stopped_for_retries = Some(ProviderError {
                                    message: format!(
                                        "stopped {} after {request_retries} retries of a failed model request (--max-provider-retries {max}): {}",
                                        provider.name(),
                                        detail.as_deref().unwrap_or("no detail")
                                    ),
                                    http_status: *provider_status,
                                    code: None,
                                    terminal: true,
                                });
                                let _ = control_tx.send(Control::Cancel { immediate: false }).await;
                            }
                            if stopped_for_retries.is_none()
                                && let Some(e) = super::capacity::capacity_notice(
                                    provider.as_ref(),
                                    step.capacity_fallback.as_deref(),
                                    request.model.as_deref(),
                                    &body,
                                    ctx.plan.now(),
                                )
                            {
                                stopped_for_retries = Some(e);
                                let _ = control_tx.send(Control::Cancel { immediate: false }).await;
                            }
                            if asked.is_none() && let Some(e) = super::asked::question_asked(provider.name(), &body) {
                                asked = Some(e);
                                let _ = control_tx.send(Control::Cancel { immediate: false }).await;
                            }
                            em.emit(body);
                        }
                        Decoded::Final(_) => {
                            if !result_seen {
                                result_seen = true;
                                let _ = control_tx.send(Control::ResultSeen).await;
                            }
                        }
                        Decoded::ProviderError(_) | Decoded::ThreadTotals(_) => {}
                    }
                }
                // Its budgets, from the usage it streamed (`budget_meter.rs`).
                if meter.on_stream(&acc, request.model.as_deref(), em) {
                    let _ = control_tx.send(Control::Cancel { immediate: false }).await;
                }
            }
            req = cancel.recv(), if cancel_open => {
                match req {
                    // The CLI has given its answer: the run is complete and
                    // a cancel changes nothing (the CLI ends by itself, or
                    // after the result grace); a second one still kills.
                    Some(req) if result_seen && !req.immediate => em.log(
                        LogLevel::Info,
                        format!("a cancel came after {} gave its result, which stands", provider.name()),
                    ),
                    Some(req) => {
                        if !cancelled {
                            em.emit(EventBody::Cancelled(CancelledEvent { reason: CancelReason::Signal, signal: None }));
                        }
                        cancelled = true;
                        let _ = control_tx.send(Control::Cancel { immediate: req.immediate }).await;
                    }
                    None => cancel_open = false,
                }
            }
            Some(refused) = super::sandbox_attempt::next_egress_refusal(&mut sandbox) => {
                em.notice(refused);
            }
            Some(n) = next_call(&mut gateway) => {
                // Kept for the budgets only when one applies.
                let call = match &n {
                    agentgate_gateway::GatewayNotice::Call(c) if meter.active() => Some(c.clone()),
                    _ => None,
                };
                let mut stop = gateway.as_mut().is_some_and(|g| g.on_notice(n, ctx, em));
                stop |= call.is_some_and(|c| meter.on_call(&c, em));
                if stop {
                    let _ = control_tx.send(Control::Cancel { immediate: false }).await;
                }
            }
            notice = notice_rx.recv(), if notices_open => match notice {
                Some(n) => {
                    extended += super::deadline_event::extension(&n);
                    em.emit(super::deadline_event::status(&n));
                }
                None => notices_open = false,
            },
            _ = heartbeat.tick() => {
                let idle = last_output.elapsed();
                if idle >= opts.heartbeat {
                    em.emit(EventBody::Heartbeat(HeartbeatEvent {
                        elapsed_ms: started.elapsed().as_millis() as u64,
                        idle_ms: idle.as_millis() as u64,
                    }));
                }
            }
            done = &mut sup, if !lines_open => {
                break match done {
                    Ok(r) => r.map_err(Unstarted::Supervise),
                    Err(e) => Err(Unstarted::Task(e.to_string())),
                };
            }
        }
    };
    for left in sandbox
        .as_mut()
        .map(|s| s.egress_left())
        .unwrap_or_default()
    {
        em.notice(left);
    }
    decoded.clear();
    decoder.finish(&mut decoded);
    for d in decoded.drain(..) {
        acc.observe(&d);
        if let Decoded::Event(body) = d {
            em.emit(body);
        }
    }
    for d in adapter.post_run(&PostRun {
        session_id: acc.session_id(),
        home,
        cwd: &request.cwd,
    }) {
        acc.observe_recovered(&d);
        if let Decoded::Event(body) = d {
            em.emit(body);
        }
    }

    let report = match report {
        Ok(r) => r,
        Err(e) => {
            // A CLI that is not there is the caller's to fix; anything else
            // that kept it from running is the provider's side.
            let kind = match &e {
                Unstarted::Supervise(SuperviseError::ProgramNotFound { .. }) => {
                    ErrorKind::InvalidInput
                }
                _ => ErrorKind::ProviderError,
            };
            return fail(
                &acc,
                em,
                kind,
                format!("failed to run {}: {e}", program.display()),
            );
        }
    };

    // The previous totals of a Codex thread, to turn its cumulative figures
    // into this turn's.
    let previous_totals = match (acc.session_id(), acc.thread_totals()) {
        (Some(thread), Some(totals)) => {
            super::thread_totals::previous_totals(ctx.store, adapter, request, home, thread, totals)
        }
        _ => None,
    };

    // A cancel sent as the CLI finished: it exited 0 by itself after a
    // final record that reports no error, which stands. (Claude Code
    // answers SIGINT with an error result and exit 0: a cancel.)
    let cancel_came_too_late = report.ended_by == EndReason::Cancelled
        && stopped_for_retries.is_none()
        && asked.is_none()
        && result_seen
        && acc.errors().is_empty()
        && report.status.code == Some(0);
    if cancel_came_too_late {
        em.log(
            LogLevel::Info,
            format!(
                "the cancel came as {} finished: it exited 0 after its result, which stands",
                provider.name()
            ),
        );
    }
    let error = match report.ended_by {
        _ if asked.is_some() && !cancelled => asked, // whatever the CLI did after
        EndReason::Timeout | EndReason::IdleTimeout => Some(super::deadline_event::timed_out(
            provider.name(),
            report.ended_by,
            step,
            extended,
        )),
        EndReason::Cancelled
            if !cancel_came_too_late && (stopped_for_retries.is_none() || cancelled) =>
        {
            Some(ErrorInfo::new(
                ErrorKind::Cancelled,
                ErrorSource::Internal,
                "the run was cancelled",
            ))
        }
        _ => {
            let mut errors: Vec<ProviderError> = acc.errors().to_vec();
            if let Some(stop) = &stopped_for_retries {
                errors.push(stop.clone());
            }
            let exit_code = if report.ended_by == EndReason::ResultThenHang {
                // The CLI printed its result; it was stopped only because it
                // would not exit.
                Some(0)
            } else {
                report.status.code
            };
            let stdout_text = stdout_tail.text();
            let stderr_text = stderr_tail.text();
            classify(&ClassifyInput {
                provider: provider.name(),
                table: provider.errors(),
                errors: &errors,
                // A record made only at the end of the streams (plain
                // text's answer, a JSON document) says nothing of how the
                // CLI ended: only one printed while it ran excuses a signal.
                final_: acc
                    .final_record()
                    .filter(|_| result_seen || report.status.signal.is_none()),
                final_expected: provider.final_record(),
                stdout_seen,
                exit_code,
                signal: if report.ended_by == EndReason::ResultThenHang {
                    None
                } else {
                    report.status.signal
                },
                stdout_tail: &stdout_text,
                stderr_tail: &stderr_text,
                now: ctx.plan.now(),
                tz: None,
            })
            .map(|e| match (&stopped_for_retries, e.kind) {
                // agentgate stopped a CLI that kept retrying a failed request
                // whose words no table knows: the provider kept failing, which
                // another provider or a later try may not.
                (Some(_), ErrorKind::Unknown) => ErrorInfo {
                    kind: ErrorKind::ProviderError,
                    recoverable: ErrorKind::ProviderError.recoverable(),
                    ..e
                },
                _ => e,
            })
        }
    };
    let stderr_text = stderr_tail.text();
    let survivors = em.report_survivors(&report.survivors);
    let end = AttemptEnd {
        error,
        previous_totals,
        stderr_tail: (!stderr_text.is_empty()).then_some(stderr_text),
        survivors,
        started,
        started_at,
    };
    let mut outcome = finish_attempt(packet, &acc, end, em).with_exit(report.status.code);
    if let Some(g) = gateway {
        g.finish(ctx, &mut outcome, em).await;
    }
    if let Some(crossed) = meter.take_crossed() {
        outcome.fail(crossed);
    }
    if let Some(sandbox) = sandbox {
        outcome.envelope.sandbox = Some(Box::new(sandbox.finish().await));
    }
    outcome
}

/// The next notice of the attempt's gateway; pending forever without one.
async fn next_call(
    gateway: &mut Option<super::gateway_attempt::AttemptGateway>,
) -> Option<agentgate_gateway::GatewayNotice> {
    match gateway {
        Some(g) => g.next().await,
        None => std::future::pending().await,
    }
}

/// The `start` event of an attempt of `packet`.
pub(super) fn start_event(packet: AttemptPacket<'_>) -> EventBody {
    let AttemptPacket { step, request, .. } = packet;
    EventBody::Start(StartEvent {
        agent: step.agent.clone(),
        model: request.model.clone(),
        resume_session_id: request.resume.clone(),
        cwd: Some(request.cwd.display().to_string()),
        ..StartEvent::default()
    })
}

/// Why the CLI could not be run (or followed) at all.
#[derive(Debug, thiserror::Error)]
enum Unstarted {
    #[error(transparent)]
    Supervise(SuperviseError),
    #[error("the supervisor task failed: {0}")]
    Task(String),
}
