//! One run: plan the invocation, supervise the CLI, decode and accumulate
//! its output, classify the outcome, record everything in the store.
//!
//! The run loop is one task that `select!`s over the CLI's output lines,
//! the caller's cancel requests, a heartbeat timer and the supervisor's end.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentgate_protocol::{
    Attempt, CancelReason, CancelledEvent, Envelope, ErrorInfo, ErrorKind, ErrorSource, Event,
    EventBody, HeartbeatEvent, LogEvent, LogLevel, RateLimitEvent, RawEvent, RawStream,
    ResultEvent, StartEvent, StatusEvent, Usage, UsageEvent, UsageScope, exit_code_for,
};
use agentgate_store::{
    AttemptRecord, QuotaState, QuotaStatus, RunFiles, RunRecord, RunStore, SessionRecord,
};
use jiff::Timestamp;
use tokio::sync::mpsc;

use crate::accumulate::{Accumulator, Finish};
use crate::classify::{self, ClassifyInput};
use crate::decode::{Decoded, ProviderError};
use std::sync::Arc;

use crate::provider::{PostRun, Provider, ProviderKind, RunRequest, locate_binary};
use crate::supervise::{
    Control, EndReason, ExitReport, Invocation, OutputLine, Stream, SupervisorConfig, supervise,
};

/// How many bytes of the CLI's stderr the envelope keeps.
pub const STDERR_TAIL_BYTES: usize = 2048;

/// What the caller asks of a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The provider's adapter (`ProviderKind::adapter()` for a built-in one,
    /// or one described in config).
    pub provider: Arc<dyn Provider>,
    /// The invocation: prompt, model, permissions, ...
    pub request: RunRequest,
    /// The CLI's executable (found on `PATH` when `None`).
    pub binary: Option<PathBuf>,
    /// A logical session name: the first run creates the provider session,
    /// later runs resume it.
    pub session: Option<String>,
    /// Wall-clock limit.
    pub timeout: Option<Duration>,
    /// Limit on silence.
    pub idle_timeout: Option<Duration>,
    /// Stop the CLI when it has retried one failed model request more than
    /// this many times, so the caller (or failover) can act at once.
    pub max_provider_retries: Option<u32>,
    /// Emit a heartbeat event after this much silence.
    pub heartbeat: Duration,
    /// The keeper executable (the agentgate binary): with it, the CLI dies
    /// with agentgate even on SIGKILL.
    pub keeper: Option<PathBuf>,
    /// The home folder the CLI uses (for session files read after the run).
    pub home: Option<PathBuf>,
    /// How long a CLI that printed its result may take to exit.
    pub result_grace: Duration,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            provider: ProviderKind::Claude.adapter(),
            request: RunRequest::default(),
            binary: None,
            session: None,
            timeout: None,
            idle_timeout: None,
            max_provider_retries: None,
            heartbeat: Duration::from_secs(15),
            keeper: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            result_grace: Duration::from_secs(5),
        }
    }
}

/// Receives the run's events as they happen.
pub trait EventSink: Send {
    /// One event.
    fn emit(&mut self, event: &Event);
}

/// A sink that drops everything.
#[derive(Debug, Default)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&mut self, _event: &Event) {}
}

impl EventSink for Vec<Event> {
    fn emit(&mut self, event: &Event) {
        self.push(event.clone());
    }
}

/// How the run ended.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The result envelope (also the last event's payload).
    pub envelope: Envelope,
    /// The exit code for `agentgate run`.
    pub exit_code: i32,
}

/// A cancel request from the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancelRequest {
    /// Kill at once (a second Ctrl-C) rather than run the termination table.
    pub immediate: bool,
}

/// A fresh run id: time-ordered, unique enough for one machine
/// (`r` + UTC time + 8 random hex digits).
pub fn new_run_id() -> String {
    let now = Timestamp::now();
    let stamp = now.strftime("%Y%m%dT%H%M%S").to_string();
    format!("r{stamp}-{:08x}", random_u32())
}

fn random_u32() -> u32 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut h = RandomState::new().build_hasher();
    h.write_u128(Timestamp::now().as_nanosecond().unsigned_abs());
    h.write_u32(std::process::id());
    // Truncation is the point: 32 random bits.
    (h.finish() & 0xffff_ffff) as u32
}

fn now_ts() -> String {
    Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Numbers events and writes them to the store's events.jsonl and the
/// caller's sink.
struct Emitter<'a> {
    run_id: String,
    seq: u64,
    provider: Option<String>,
    attempt: Option<u32>,
    files: Option<&'a mut RunFiles>,
    sink: &'a mut dyn EventSink,
    store_failed: bool,
}

impl Emitter<'_> {
    fn emit(&mut self, body: EventBody) {
        let mut ev = Event::new(self.run_id.clone(), self.seq, now_ts(), body);
        ev.provider = self.provider.clone();
        ev.attempt = self.attempt;
        self.seq += 1;
        if let Some(f) = self.files.as_deref_mut()
            && let Err(e) = f.write_event(&ev)
            && !self.store_failed
        {
            // Keep running: the caller still gets the events and the result.
            self.store_failed = true;
            tracing::warn!("failed to write the run's events.jsonl: {e}");
        }
        self.sink.emit(&ev);
    }

    fn log(&mut self, level: LogLevel, message: String) {
        self.emit(EventBody::Log(LogEvent { level, message }));
    }
}

/// Run once, with failover-free semantics: one provider, and a second
/// attempt only to recreate a vanished `--session`.
pub async fn run(
    opts: RunOptions,
    store: Option<&dyn RunStore>,
    sink: &mut dyn EventSink,
    mut cancel: mpsc::Receiver<CancelRequest>,
) -> RunOutcome {
    let run_id = new_run_id();
    let started = Instant::now();
    let provider = opts.provider.clone();

    let mut files = None;
    if let Some(store) = store {
        let record = RunRecord {
            run_id: run_id.clone(),
            started_at: Timestamp::now(),
            providers: vec![provider.name().to_owned()],
            model: opts.request.model.clone(),
            session: opts.session.clone(),
            cwd: Some(opts.request.cwd.display().to_string()),
            prompt_bytes: opts.request.prompt.len() as u64,
        };
        match store
            .insert_run(&record)
            .and_then(|()| RunFiles::create(store, &run_id))
        {
            Ok(f) => files = Some(f),
            Err(e) => tracing::warn!("failed to record the run in the store: {e}"),
        }
    }
    // Files a plan writes (system-prompt files) go in the run's folder, or,
    // without a store, in a folder of this run's own that is removed after.
    let own_scratch = if files.is_none() {
        tempfile::Builder::new()
            .prefix("agentgate-run-")
            .tempdir()
            .ok()
    } else {
        None
    };
    let scratch = match (&files, &own_scratch) {
        (Some(f), _) => f.dir().to_path_buf(),
        (None, Some(d)) => d.path().to_path_buf(),
        (None, None) => std::env::temp_dir(),
    };
    let mut em = Emitter {
        run_id: run_id.clone(),
        seq: 0,
        provider: None,
        attempt: None,
        files: files.as_mut(),
        sink,
        store_failed: false,
    };

    // Sessions: a logical name maps to the provider's native id.
    let mut request = opts.request.clone();
    let mut from_session_map = false;
    if opts.session.is_some() && store.is_none() {
        em.log(
            LogLevel::Warn,
            "--session needs the run store to map the name to a provider session; running without resuming".into(),
        );
    }
    if request.resume.is_none()
        && let (Some(name), Some(store)) = (&opts.session, store)
    {
        match store.get_session(name, provider.name()) {
            Ok(Some(s)) => {
                request.resume = Some(s.native_session_id);
                from_session_map = true;
            }
            Ok(None) => {}
            Err(e) => em.log(
                LogLevel::Warn,
                format!("failed to read session `{name}`: {e}"),
            ),
        }
    }

    let mut attempts: Vec<Attempt> = Vec::new();
    let mut session_recreated = false;
    let mut attempt_no = 0u32;
    let mut rate_limit = None;
    let (mut envelope, error) = loop {
        attempt_no += 1;
        em.provider = Some(provider.name().to_owned());
        em.attempt = Some(attempt_no);
        let outcome = attempt(&opts, &request, store, &scratch, &mut em, &mut cancel).await;
        attempts.push(outcome.attempt.clone());
        rate_limit = outcome.rate_limit.clone().or(rate_limit);
        if let Some(store) = store {
            let record = AttemptRecord {
                n: attempt_no,
                provider: provider.name().to_owned(),
                agent: None,
                model: outcome.attempt.model.clone(),
                session_id: outcome.attempt.session_id.clone(),
                started_at: outcome.started_at,
                ended_at: Some(Timestamp::now()),
                duration_ms: Some(outcome.attempt.duration_ms),
                exit_code: outcome.attempt.exit_code,
                error_type: outcome.attempt.error_type,
                error: outcome.attempt.error.clone(),
            };
            if let Err(e) = store.insert_attempt(&run_id, &record) {
                tracing::warn!("failed to record attempt {attempt_no}: {e}");
            }
        }
        let vanished = outcome
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::InvalidSession);
        if vanished && from_session_map && !session_recreated {
            let gone = request.resume.take().unwrap_or_default();
            em.emit(EventBody::Status(StatusEvent::Notice {
                detail: format!(
                    "session `{}` ({gone}) is no longer known to {}; starting a new one",
                    opts.session.as_deref().unwrap_or_default(),
                    provider.name()
                ),
            }));
            if let (Some(name), Some(store)) = (&opts.session, store)
                && let Err(e) = store.delete_session(name, provider.name())
            {
                tracing::warn!("failed to forget session `{name}`: {e}");
            }
            session_recreated = true;
            continue;
        }
        break (outcome.envelope, outcome.error);
    };

    // Remember the session for the next run.
    if let (Some(name), Some(store), Some(id)) = (&opts.session, store, envelope.session_id.clone())
    {
        let now = Timestamp::now();
        let turns = store
            .get_session(name, provider.name())
            .ok()
            .flatten()
            .map(|s| s.turns)
            .unwrap_or(0);
        let record = SessionRecord {
            name: name.clone(),
            provider: provider.name().to_owned(),
            native_session_id: id,
            cwd: Some(request.cwd.display().to_string()),
            created_at: now,
            updated_at: now,
            turns: turns + 1,
        };
        if let Err(e) = store.put_session(&record) {
            em.log(
                LogLevel::Warn,
                format!("failed to save session `{name}`: {e}"),
            );
        }
    }

    // One provider per run: the last attempt decides (an attempt that found
    // its session gone was replaced by a fresh one, not a failover).
    let every_recoverable = error.as_ref().is_some_and(|e| e.recoverable);
    let exit_code = exit_code_for(error.as_ref().map(|e| e.kind), every_recoverable);
    if let Some(e) = &error {
        envelope = envelope.with_error(e, exit_code);
    }
    envelope.run_id = run_id.clone();
    envelope.attempts = attempts;
    // A CLI that starts a new session when asked to resume one it no
    // longer knows (agy) recreated it too.
    let resumed_elsewhere = request.resume.as_deref().is_some_and(|asked| {
        error.is_none()
            && envelope
                .session_id
                .as_deref()
                .is_some_and(|got| got != asked)
    });
    envelope.session_recreated = session_recreated || resumed_elsewhere;
    envelope.duration_ms = started.elapsed().as_millis() as u64;
    if let Some(store) = store {
        record_quota(
            store,
            provider.name(),
            &run_id,
            error.as_ref(),
            rate_limit.as_ref(),
        );
    }
    if let Some(e) = &error {
        em.emit(EventBody::Error(e.clone()));
    }
    em.emit(EventBody::Result(ResultEvent {
        envelope: Box::new(envelope.clone()),
    }));
    if let Some(store) = store
        && let Err(e) = store.finish_run(&run_id, &envelope)
    {
        tracing::warn!("failed to record the run's result: {e}");
    }
    RunOutcome {
        envelope,
        exit_code,
    }
}

/// Remember what the run learnt about the provider's usage limit: a quota or
/// rate-limit error, else a `rate_limit` event, else (on success) that an
/// exhausted limit whose reset time passed is available again.
fn record_quota(
    store: &dyn RunStore,
    provider: &str,
    run_id: &str,
    error: Option<&ErrorInfo>,
    rate_limit: Option<&RateLimitEvent>,
) {
    let now = Timestamp::now();
    let parse = |t: Option<&String>| t.and_then(|t| t.parse::<Timestamp>().ok());
    let state = match (error, rate_limit) {
        (Some(e), _) if matches!(e.kind, ErrorKind::Quota | ErrorKind::RateLimit) => {
            Some(QuotaState {
                status: if e.kind == ErrorKind::Quota {
                    QuotaStatus::Exhausted
                } else {
                    QuotaStatus::Warning
                },
                reset_at: parse(e.reset_at.as_ref()),
                source: format!("error:{run_id}"),
                updated_at: now,
                message: Some(e.message.clone()),
            })
        }
        (_, Some(r)) => Some(QuotaState {
            status: r.status.into(),
            reset_at: parse(r.resets_at.as_ref()),
            source: format!("event:{run_id}"),
            updated_at: now,
            message: r.window.as_ref().map(|w| format!("window {w}")),
        }),
        (None, None) => match store.get_quota(provider) {
            Ok(Some(old))
                if old.status == QuotaStatus::Exhausted
                    && old.reset_at.is_some_and(|t| t <= now) =>
            {
                Some(QuotaState {
                    status: QuotaStatus::Available,
                    reset_at: None,
                    source: format!("success:{run_id}"),
                    updated_at: now,
                    message: None,
                })
            }
            _ => None,
        },
        (Some(_), None) => None,
    };
    if let Some(state) = state
        && let Err(e) = store.put_quota(provider, &state)
    {
        tracing::warn!("failed to record {provider}'s quota state: {e}");
    }
}

/// One attempt's result.
struct AttemptOutcome {
    envelope: Envelope,
    error: Option<ErrorInfo>,
    rate_limit: Option<RateLimitEvent>,
    attempt: Attempt,
    started_at: Timestamp,
}

async fn attempt(
    opts: &RunOptions,
    request: &RunRequest,
    store: Option<&dyn RunStore>,
    scratch: &Path,
    em: &mut Emitter<'_>,
    cancel: &mut mpsc::Receiver<CancelRequest>,
) -> AttemptOutcome {
    let started_at = Timestamp::now();
    let started = Instant::now();
    let provider = opts.provider.clone();
    let adapter: &dyn Provider = provider.as_ref();
    let mut acc = Accumulator::new(provider.name());
    em.emit(EventBody::Start(StartEvent {
        agent: None,
        model: request.model.clone(),
        resume_session_id: request.resume.clone(),
        cwd: Some(request.cwd.display().to_string()),
    }));

    let fail = |acc: &Accumulator, em: &mut Emitter<'_>, kind: ErrorKind, message: String| {
        let error = ErrorInfo::new(kind, ErrorSource::Internal, message);
        finish_attempt(opts, acc, Some(error), None, None, started, started_at, em)
    };

    let program = match locate_binary(adapter, opts.binary.as_deref()) {
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
        timeout: opts.timeout,
        idle_timeout: opts.idle_timeout,
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
                                && let Some(max) = opts.max_provider_retries
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
        home: opts.home.as_deref(),
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
                humanize(opts.timeout.unwrap_or_default())
            ),
        )),
        EndReason::IdleTimeout => Some(ErrorInfo::new(
            ErrorKind::IdleTimeout,
            ErrorSource::Internal,
            format!(
                "{} printed nothing for --idle-timeout {}",
                provider.name(),
                humanize(opts.idle_timeout.unwrap_or_default())
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
                now: Timestamp::now(),
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
        opts,
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
    opts: &RunOptions,
    acc: &Accumulator,
    error: Option<ErrorInfo>,
    previous_totals: Option<Usage>,
    stderr_tail: Option<String>,
    started: Instant,
    started_at: Timestamp,
    em: &mut Emitter<'_>,
) -> AttemptOutcome {
    let provider = opts.provider.clone();
    let duration_ms = started.elapsed().as_millis() as u64;
    let envelope = acc.finish(Finish {
        run_id: em.run_id.clone(),
        duration_ms,
        requested_model: opts.request.model.clone(),
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
        agent: None,
        session_id: envelope.session_id.clone(),
        duration_ms,
        exit_code: None,
        error_type: error.as_ref().map(|e| e.kind),
        error: error.as_ref().map(|e| e.message.clone()),
        recoverable: error.as_ref().map(|e| e.recoverable),
        reset_at: error.as_ref().and_then(|e| e.reset_at.clone()),
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
struct Tail {
    max: usize,
    buf: Vec<u8>,
}

impl Tail {
    fn new(max: usize) -> Self {
        Tail {
            max,
            buf: Vec::new(),
        }
    }

    fn push(&mut self, line: &[u8]) {
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

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf).trim_end().to_owned()
    }
}

/// Decode a saved capture of a CLI's output without running anything: the
/// same decoder, accumulator and classifier as a live run.
pub fn parse_capture(
    provider: &dyn Provider,
    stdout: &[u8],
    stderr: &[u8],
    exit_code: Option<i32>,
) -> (Vec<Event>, Envelope, i32) {
    let run_id = "parse".to_owned();
    let mut events = Vec::new();
    let mut em = Emitter {
        run_id: run_id.clone(),
        seq: 0,
        provider: Some(provider.name().to_owned()),
        attempt: Some(1),
        files: None,
        sink: &mut events,
        store_failed: false,
    };
    let adapter = provider;
    let mut decoder = adapter.decoder();
    let mut acc = Accumulator::new(provider.name());
    let mut out = Vec::new();
    let mut stdout_tail = Tail::new(STDERR_TAIL_BYTES);
    let mut stderr_tail = Tail::new(STDERR_TAIL_BYTES);
    for line in split_lines(stdout) {
        stdout_tail.push(line);
        decoder.stdout_line(line, &mut out);
    }
    for line in split_lines(stderr) {
        stderr_tail.push(line);
        decoder.stderr_line(line, &mut out);
    }
    decoder.finish(&mut out);
    for d in out {
        acc.observe(&d);
        if let Decoded::Event(body) = d {
            em.emit(body);
        }
    }
    let stdout_text = stdout_tail.text();
    let stderr_text = stderr_tail.text();
    let error = classify::classify(&ClassifyInput {
        provider: provider.name(),
        errors: acc.errors(),
        final_: acc.final_record(),
        exit_code,
        signal: None,
        stdout_tail: &stdout_text,
        stderr_tail: &stderr_text,
        now: Timestamp::now(),
        tz: None,
    });
    let exit = exit_code_for(
        error.as_ref().map(|e| e.kind),
        error.as_ref().is_some_and(|e| e.recoverable),
    );
    let envelope = acc.finish(Finish {
        run_id,
        duration_ms: 0,
        requested_model: None,
        error: error.clone(),
        exit_code: exit,
        previous_thread_totals: None,
        stderr_tail: (!stderr_text.is_empty()).then_some(stderr_text),
        exposes_reasoning: adapter.exposes_reasoning(),
    });
    if let Some(e) = error {
        em.emit(EventBody::Error(e));
    }
    em.emit(EventBody::Result(ResultEvent {
        envelope: Box::new(envelope.clone()),
    }));
    (events, envelope, exit)
}

/// Split a capture into lines the way the supervisor does: on `\n`, with a
/// trailing `\r` removed; a last line without `\n` counts.
fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let trimmed = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let empty = bytes.is_empty();
    trimmed
        .split(|b| *b == b'\n')
        .filter(move |_| !empty)
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

/// Raw event for a line the run could not attribute (kept for symmetry with
/// decoders; used when a CLI fails before its decoder saw anything).
pub fn raw_line(stream: Stream, bytes: &[u8]) -> EventBody {
    EventBody::Raw(RawEvent::from_bytes(
        match stream {
            Stream::Stdout => RawStream::Stdout,
            Stream::Stderr => RawStream::Stderr,
        },
        bytes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_keep_the_last_bytes() {
        let mut t = Tail::new(10);
        t.push(b"first line");
        t.push(b"abc");
        assert_eq!(t.text(), "abc");
        t.push(b"de");
        assert_eq!(t.text(), "abc\nde");
        t.push(&[b'x'; 30]);
        assert_eq!(t.text(), "xxxxxxxxx");
    }

    #[test]
    fn capture_lines_split_like_the_supervisor() {
        let lines: Vec<&[u8]> = split_lines(b"a\r\nb\n\nc").collect();
        assert_eq!(lines, [&b"a"[..], b"b", b"", b"c"]);
        assert_eq!(split_lines(b"").count(), 0);
        assert_eq!(split_lines(b"x\n").count(), 1);
    }

    fn store() -> (tempfile::TempDir, agentgate_store::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = agentgate_store::Store::open(dir.path().join("agentgate.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn quota_errors_and_rate_limit_events_are_recorded() {
        let (_dir, store) = store();
        let mut quota = ErrorInfo::new(
            ErrorKind::Quota,
            ErrorSource::Pattern,
            "usage limit reached",
        );
        quota.reset_at = Some("2099-01-01T00:00:00Z".into());
        record_quota(&store, "claude", "r1", Some(&quota), None);
        let s = store.get_quota("claude").unwrap().unwrap();
        assert_eq!(s.status, QuotaStatus::Exhausted);
        assert_eq!(
            s.reset_at.map(|t| t.to_string()).as_deref(),
            Some("2099-01-01T00:00:00Z")
        );
        assert_eq!(s.source, "error:r1");
        // A rate-limit event of a run that did not fail.
        let event = RateLimitEvent {
            status: agentgate_protocol::RateLimitStatus::Warning,
            resets_at: Some("2099-01-02T00:00:00Z".into()),
            window: Some("five_hour".into()),
            utilization: Some(0.9),
        };
        record_quota(&store, "codex", "r2", None, Some(&event));
        let s = store.get_quota("codex").unwrap().unwrap();
        assert_eq!(
            (s.status, s.source.as_str()),
            (QuotaStatus::Warning, "event:r2")
        );
        assert_eq!(s.message.as_deref(), Some("window five_hour"));
        // Other errors record nothing.
        let auth = ErrorInfo::new(ErrorKind::Auth, ErrorSource::Pattern, "bad key");
        record_quota(&store, "gemini", "r3", Some(&auth), None);
        assert!(store.get_quota("gemini").unwrap().is_none());
    }

    #[test]
    fn a_success_after_the_reset_makes_the_provider_available_again() {
        let (_dir, store) = store();
        let mut quota = ErrorInfo::new(ErrorKind::Quota, ErrorSource::Pattern, "limit");
        quota.reset_at = Some("2000-01-01T00:00:00Z".into());
        record_quota(&store, "claude", "r1", Some(&quota), None);
        record_quota(&store, "claude", "r2", None, None);
        let s = store.get_quota("claude").unwrap().unwrap();
        assert_eq!(
            (s.status, s.source.as_str()),
            (QuotaStatus::Available, "success:r2")
        );
        // Not before the reset time.
        quota.reset_at = Some("2099-01-01T00:00:00Z".into());
        record_quota(&store, "codex", "r3", Some(&quota), None);
        record_quota(&store, "codex", "r4", None, None);
        assert_eq!(
            store.get_quota("codex").unwrap().unwrap().status,
            QuotaStatus::Exhausted
        );
    }

    #[test]
    fn run_ids_are_valid_and_distinct() {
        let a = new_run_id();
        let b = new_run_id();
        assert_ne!(a, b);
        agentgate_store::validate_run_id(&a).unwrap();
    }
}
