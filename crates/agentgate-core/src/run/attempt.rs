//! One attempt: spawn the CLI under the supervisor, decode, classify.

use std::path::Path;
use std::time::{Duration, Instant};

use agentgate_protocol::{
    Attempt, CancelReason, CancelledEvent, Envelope, ErrorInfo, ErrorKind, ErrorSource, EventBody,
    HeartbeatEvent, RateLimitEvent, StartEvent, StatusEvent, Usage, UsageEvent, UsageScope,
};
use agentgate_store::RunStore;
use jiff::Timestamp;
use tokio::sync::mpsc;

use super::{CancelRequest, Emitter, RunOptions, STDERR_TAIL_BYTES, Step};
use crate::accumulate::{Accumulator, Finish};
use crate::classify::{self, ClassifyInput};
use crate::decode::{Decoded, ProviderError};
use crate::provider::{PostRun, Provider, RunRequest, locate_binary};
use crate::supervise::{
    Control, EndReason, ExitReport, Invocation, OutputLine, Stream, SupervisorConfig, supervise,
};

/// One attempt's result.
pub(super) struct AttemptOutcome {
    pub(super) envelope: Envelope,
    pub(super) error: Option<ErrorInfo>,
    pub(super) rate_limit: Option<RateLimitEvent>,
    pub(super) attempt: Attempt,
    pub(super) started_at: Timestamp,
}

#[expect(
    clippy::too_many_arguments,
    reason = "the run's context, passed down from one call site"
)]
pub(super) async fn attempt(
    opts: &RunOptions,
    step: &Step,
    request: &RunRequest,
    home: Option<&Path>,
    store: Option<&dyn RunStore>,
    scratch: &Path,
    em: &mut Emitter<'_>,
    cancel: &mut mpsc::Receiver<CancelRequest>,
) -> AttemptOutcome {
    let started_at = Timestamp::now();
    let started = Instant::now();
    let provider = step.provider.clone();
    let adapter: &dyn Provider = provider.as_ref();
    let mut acc = Accumulator::new(provider.name());
    em.emit(EventBody::Start(StartEvent {
        agent: step.agent.clone(),
        model: request.model.clone(),
        resume_session_id: request.resume.clone(),
        cwd: Some(request.cwd.display().to_string()),
    }));

    let fail = |acc: &Accumulator, em: &mut Emitter<'_>, kind: ErrorKind, message: String| {
        let error = ErrorInfo::new(kind, ErrorSource::Internal, message);
        finish_attempt(
            step,
            request,
            acc,
            Some(error),
            None,
            None,
            started,
            started_at,
            em,
        )
    };

    let program = match locate_binary(adapter, step.binary.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(&acc, em, ErrorKind::InvalidInput, e.to_string()),
    };
    let plan = match adapter.plan(request, &program, scratch) {
        Ok(p) => p,
        Err(e) => return fail(&acc, em, ErrorKind::InvalidInput, e.to_string()),
    };
    let mut inv = Invocation::new(plan.program.clone()).args(plan.args.clone());
    inv.env = plan.env.clone();
    inv.env
        .extend(request.env.iter().map(|(k, v)| (k.into(), v.into())));
    inv.env_clear = request.env_clear;
    inv.cwd = Some(plan.cwd.clone());
    inv.stdin = plan.stdin.clone();
    let cfg = SupervisorConfig {
        timeout: step.timeout,
        idle_timeout: step.idle_timeout,
        result_grace: opts.result_grace,
        keeper: opts.keeper.clone(),
        ..SupervisorConfig::default()
    };

    let (line_tx, mut line_rx) = mpsc::channel::<OutputLine>(256);
    let (control_tx, control_rx) = mpsc::channel::<Control>(8);
    let mut sup = tokio::spawn(supervise(inv, cfg, line_tx, control_rx));

    let mut decoder = adapter.decoder();
    let mut decoded = Vec::new();
    let mut stderr_tail = Tail::new(STDERR_TAIL_BYTES);
    let mut stdout_tail = Tail::new(STDERR_TAIL_BYTES);
    let mut cancelled = false;
    let mut result_seen = false;
    let mut stopped_for_retries: Option<ProviderError> = None;
    // Retries of the current model request: the CLI's own count where it
    // gives one, else retries since the last sign of progress.
    let mut request_retries: u32 = 0;
    let mut last_output = Instant::now();
    let mut heartbeat = tokio::time::interval(opts.heartbeat.max(Duration::from_millis(100)));
    heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut lines_open = true;
    let mut cancel_open = true;

    let report: Result<ExitReport, String> = loop {
        tokio::select! {
            line = line_rx.recv(), if lines_open => {
                let Some(line) = line else {
                    lines_open = false;
                    continue;
                };
                last_output = Instant::now();
                decoded.clear();
                match line.stream {
                    Stream::Stdout => {
                        stdout_tail.push(&line.bytes);
                        decoder.stdout_line(&line.bytes, &mut decoded);
                    }
                    Stream::Stderr => {
                        stderr_tail.push(&line.bytes);
                        if let Some(f) = em.files.as_deref_mut() {
                            let mut bytes = line.bytes.clone();
                            bytes.push(b'\n');
                            if let Err(e) = f.write_stderr(&bytes) {
                                tracing::warn!("failed to write stderr.log: {e}");
                            }
                        }
                        decoder.stderr_line(&line.bytes, &mut decoded);
                    }
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
                                && let Some(max) = step.max_provider_retries
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
            }
            req = cancel.recv(), if cancel_open => {
                match req {
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
                    Ok(Ok(r)) => Ok(r),
                    Ok(Err(e)) => Err(e.to_string()),
                    Err(e) => Err(format!("the supervisor task failed: {e}")),
                };
            }
        }
    };
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
        Err(message) => {
            let kind = if message.contains("not found") {
                ErrorKind::InvalidInput
            } else {
                ErrorKind::ProviderError
            };
            return fail(
                &acc,
                em,
                kind,
                format!("failed to run {}: {message}", program.display()),
            );
        }
    };

    // The previous totals of a Codex thread, to turn its cumulative figures
    // into this turn's.
    let mut previous_totals = None;
    if let (Some(store), Some(thread), Some(totals)) =
        (store, acc.session_id(), acc.thread_totals())
    {
        previous_totals = store
            .get_thread_totals(provider.name(), thread)
            .ok()
            .flatten();
        if let Err(e) = store.put_thread_totals(provider.name(), thread, totals) {
            tracing::warn!("failed to store thread totals: {e}");
        }
    }

    let error = match report.ended_by {
        EndReason::Timeout => Some(ErrorInfo::new(
            ErrorKind::Timeout,
            ErrorSource::Internal,
            format!(
                "{} did not finish within --timeout {}",
                provider.name(),
                humanize(step.timeout.unwrap_or_default())
            ),
        )),
        EndReason::IdleTimeout => Some(ErrorInfo::new(
            ErrorKind::IdleTimeout,
            ErrorSource::Internal,
            format!(
                "{} printed nothing for --idle-timeout {}",
                provider.name(),
                humanize(step.idle_timeout.unwrap_or_default())
            ),
        )),
        EndReason::Cancelled if stopped_for_retries.is_none() || cancelled => Some(ErrorInfo::new(
            ErrorKind::Cancelled,
            ErrorSource::Internal,
            "the run was cancelled",
        )),
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
            classify::classify(&ClassifyInput {
                provider: provider.name(),
                errors: &errors,
                final_: acc.final_record(),
                exit_code,
                signal: if report.ended_by == EndReason::ResultThenHang {
                    None
                } else {
                    report.status.signal
                },
                stdout_tail: &stdout_text,
                stderr_tail: &stderr_text,
                now: opts.now.unwrap_or_else(Timestamp::now),
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
    finish_attempt(
        step,
        request,
        &acc,
        error,
        previous_totals,
        (!stderr_text.is_empty()).then_some(stderr_text),
        started,
        started_at,
        em,
    )
    .with_exit(report.status.code)
}

impl AttemptOutcome {
    fn with_exit(mut self, code: Option<i32>) -> Self {
        self.attempt.exit_code = code;
        self
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "one call site per outcome, all named"
)]
fn finish_attempt(
    step: &Step,
    request: &RunRequest,
    acc: &Accumulator,
    error: Option<ErrorInfo>,
    previous_totals: Option<Usage>,
    stderr_tail: Option<String>,
    started: Instant,
    started_at: Timestamp,
    em: &mut Emitter<'_>,
) -> AttemptOutcome {
    let provider = step.provider.clone();
    let duration_ms = started.elapsed().as_millis() as u64;
    let envelope = acc.finish(Finish {
        run_id: em.run_id.clone(),
        duration_ms,
        requested_model: request.model.clone(),
        error: None,
        exit_code: 0,
        previous_thread_totals: previous_totals.clone(),
        stderr_tail,
        exposes_reasoning: provider.exposes_reasoning(),
    });
    // The attempt's figures as one `usage` event of scope total: the best
    // evidence the accumulator found (billing totals, Codex's thread delta,
    // or the sum of per-call figures), so a stream consumer needs no
    // provider knowledge to get them.
    if let Some(u) = acc.usage(previous_totals.as_ref()) {
        em.emit(EventBody::Usage(UsageEvent {
            scope: UsageScope::Total,
            usage: u,
        }));
    }
    let attempt = Attempt {
        provider: provider.name().to_owned(),
        model: envelope.model.clone(),
        agent: step.agent.clone(),
        session_id: envelope.session_id.clone(),
        duration_ms,
        exit_code: None,
        error_type: error.as_ref().map(|e| e.kind),
        error: error.as_ref().map(|e| e.message.clone()),
        recoverable: error.as_ref().map(|e| e.recoverable),
        reset_at: error.as_ref().and_then(|e| e.reset_at.clone()),
        skipped: false,
    };
    AttemptOutcome {
        envelope,
        error,
        rate_limit: acc.rate_limit().cloned(),
        attempt,
        started_at,
    }
}

fn humanize(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// The last bytes of a stream, cut at a line start (a single line longer
/// than the whole tail keeps its end).
#[derive(Debug)]
pub(super) struct Tail {
    max: usize,
    buf: Vec<u8>,
}

impl Tail {
    pub(super) fn new(max: usize) -> Self {
        Tail {
            max,
            buf: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, line: &[u8]) {
        let line = &line[line.len().saturating_sub(self.max)..];
        self.buf.extend_from_slice(line);
        self.buf.push(b'\n');
        if self.buf.len() > self.max {
            let mut cut = self.buf.len() - self.max;
            // Drop the partial first line, unless it is the only one.
            if let Some(nl) = self.buf[cut..self.buf.len() - 1]
                .iter()
                .position(|b| *b == b'\n')
                && cut > 0
            {
                cut += nl + 1;
            }
            self.buf.drain(..cut);
        }
    }

    pub(super) fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf).trim_end().to_owned()
    }
}
