//! One run: plan the invocation, supervise the CLI, decode and accumulate
//! its output, classify the outcome, record everything in the store; with
//! several agents, fail over from one to the next when that is safe.
//!
//! An attempt ([`attempt`]) is one task that `select!`s over the CLI's
//! output lines, the caller's cancel requests, a heartbeat timer and the
//! supervisor's end. [`run`] goes through the run's [`Step`]s in order:
//! it skips a provider whose quota is known to be exhausted ([`quota`]),
//! recreates a vanished session once, retries an invalid model once with
//! the default, checks the answer and the agent's edit scope, and hands on
//! to the next step only for an error the step admits, and only when the
//! workspace policy allows ([`OnDirty`]).

mod attempt;
mod audit;
mod capture;
mod handoff;
mod quota;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentgate_protocol::{
    Attempt, Envelope, ErrorInfo, ErrorKind, ErrorSource, Event, EventBody, LogEvent, LogLevel,
    ResultEvent, StatusEvent, exit_code_for,
};
use agentgate_store::{AttemptRecord, RunFiles, RunRecord, RunStore, SessionRecord};
use jiff::Timestamp;
use tokio::sync::mpsc;

pub use crate::config::{Handoff, OnDirty};
pub use audit::audit_line;
pub use capture::{parse_capture, raw_line};
pub use quota::exhausted_quota;

use crate::provider::{Provider, RunRequest};
use crate::workspace::{self, Change, Snapshot};
use attempt::{AttemptOutcome, attempt};
use handoff::Transcript;

/// How many bytes of the CLI's stderr the envelope keeps.
pub const STDERR_TAIL_BYTES: usize = 2048;

/// Decides whether a failed step hands on to the next one (besides the
/// error being recoverable): a chain's `retry_on`.
pub type ErrorFilter = Arc<dyn Fn(&ErrorInfo) -> bool + Send + Sync>;

/// Checks a successful answer: the JSON it holds, or why it is not
/// acceptable (`--output-schema`).
pub type AnswerCheck = Arc<dyn Fn(&str) -> Result<serde_json::Value, String> + Send + Sync>;

/// Which files an agent may change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EditScope {
    /// Not checked.
    #[default]
    Any,
    /// None (`mode: classify`).
    Nothing,
    /// Only under these paths, relative to the working directory or
    /// absolute (`mode: edit`).
    Only(Vec<PathBuf>),
}

/// One agent of a run: a provider with its request and limits.
#[derive(Clone)]
pub struct Step {
    /// The agent's name, when it comes from the config.
    pub agent: Option<String>,
    /// The provider's adapter (`ProviderKind::adapter()` for a built-in one,
    /// or one described in config).
    pub provider: Arc<dyn Provider>,
    /// The invocation: prompt, model, permissions, ...
    pub request: RunRequest,
    /// The prompt to send instead when the step resumes a session (the
    /// persona is not sent again); `None` = the same prompt.
    pub resumed_prompt: Option<String>,
    /// The CLI's executable (found on `PATH` when `None`).
    pub binary: Option<PathBuf>,
    /// Wall-clock limit of each attempt.
    pub timeout: Option<Duration>,
    /// Limit on silence.
    pub idle_timeout: Option<Duration>,
    /// Stop the CLI when it has retried one failed model request more than
    /// this many times, so the caller (or failover) can act at once.
    pub max_provider_retries: Option<u32>,
    /// How the model was resolved (the envelope's `model_resolution`).
    pub model_resolution: Option<String>,
    /// The model to retry with, once, when the requested one is rejected as
    /// invalid; `None` = the CLI's own default (no model argument).
    pub default_model: Option<String>,
    /// Besides being recoverable, which errors hand on to the next step;
    /// `None` = every recoverable error.
    pub retry_on: Option<ErrorFilter>,
    /// Checks the answer of a successful attempt.
    pub check_answer: Option<AnswerCheck>,
    /// Which files the agent may change.
    pub edit_scope: EditScope,
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Step")
            .field("agent", &self.agent)
            .field("provider", &self.provider.name())
            .field("request", &self.request)
            .field("binary", &self.binary)
            .field("timeout", &self.timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("default_model", &self.default_model)
            .field("retry_on", &self.retry_on.is_some())
            .field("check_answer", &self.check_answer.is_some())
            .field("edit_scope", &self.edit_scope)
            .finish_non_exhaustive()
    }
}

impl Step {
    /// A step of `provider` with `request` and nothing else set.
    pub fn new(provider: Arc<dyn Provider>, request: RunRequest) -> Step {
        Step {
            agent: None,
            provider,
            request,
            resumed_prompt: None,
            binary: None,
            timeout: None,
            idle_timeout: None,
            max_provider_retries: None,
            model_resolution: None,
            default_model: None,
            retry_on: None,
            check_answer: None,
            edit_scope: EditScope::Any,
        }
    }

    /// The request to send: resuming `stored_session` (the native id a
    /// `--session` name maps to) unless the request resumes one already,
    /// and with the resumed prompt (no persona) when it resumes.
    pub fn request_for(&self, stored_session: Option<String>) -> RunRequest {
        let mut request = self.request.clone();
        if request.resume.is_none() {
            request.resume = stored_session;
        }
        if request.resume.is_some()
            && let Some(p) = &self.resumed_prompt
        {
            request.prompt = p.clone();
        }
        request
    }

    /// What the step is called in messages: the agent, else the provider.
    fn label(&self) -> String {
        match &self.agent {
            Some(a) if a != self.provider.name() => format!("{a} ({})", self.provider.name()),
            Some(a) => a.clone(),
            None => self.provider.name().to_owned(),
        }
    }
}

/// What the caller asks of a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The agents to try, in order (one for a plain run).
    pub steps: Vec<Step>,
    /// The failover chain's name, for the record.
    pub chain: Option<String>,
    /// A logical session name: the first run creates the provider session,
    /// later runs resume it (one mapping per provider).
    pub session: Option<String>,
    /// What to do when a failed attempt changed the workspace.
    pub on_dirty: OnDirty,
    /// What the next agent learns of a failed attempt.
    pub handoff: Handoff,
    /// Run a provider even when its quota is recorded as exhausted.
    pub ignore_quota: bool,
    /// Emit a heartbeat event after this much silence.
    pub heartbeat: Duration,
    /// The keeper executable (the agentgate binary): with it, the CLI dies
    /// with agentgate even on SIGKILL.
    pub keeper: Option<PathBuf>,
    /// The home folder the CLIs use (for session files read after the run);
    /// a step whose `env` sets `HOME` uses that instead.
    pub home: Option<PathBuf>,
    /// How long a CLI that printed its result may take to exit.
    pub result_grace: Duration,
    /// The clock: `None` = the system's. Tests set it to check quota
    /// skipping around a reset time.
    pub now: Option<Timestamp>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            steps: Vec::new(),
            chain: None,
            session: None,
            on_dirty: OnDirty::Stop,
            handoff: Handoff::None,
            ignore_quota: false,
            heartbeat: Duration::from_secs(15),
            keeper: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            result_grace: Duration::from_secs(5),
            now: None,
        }
    }
}

impl RunOptions {
    /// A run of one step.
    pub fn single(step: Step) -> RunOptions {
        RunOptions {
            steps: vec![step],
            ..RunOptions::default()
        }
    }

    fn now(&self) -> Timestamp {
        self.now.unwrap_or_else(Timestamp::now)
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
    /// The current step's transcript, kept for `--handoff summary`.
    transcript: Option<Transcript>,
}

impl Emitter<'_> {
    fn emit(&mut self, body: EventBody) {
        if let Some(t) = &mut self.transcript {
            t.observe(&body);
        }
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

    fn notice(&mut self, detail: String) {
        self.emit(EventBody::Status(StatusEvent::Notice { detail }));
    }
}

/// The end of one step: its last attempt's envelope and error.
struct StepEnd {
    envelope: Envelope,
    error: Option<ErrorInfo>,
    /// Set when the invalid-model retry replaced the requested model.
    model_note: Option<String>,
}

/// Run the steps in order until one succeeds or the run must stop.
pub async fn run(
    opts: RunOptions,
    store: Option<&dyn RunStore>,
    sink: &mut dyn EventSink,
    mut cancel: mpsc::Receiver<CancelRequest>,
) -> RunOutcome {
    let run_id = new_run_id();
    let started = Instant::now();

    let mut files = None;
    if let Some(store) = store {
        let record = RunRecord {
            run_id: run_id.clone(),
            started_at: Timestamp::now(),
            providers: opts
                .steps
                .iter()
                .map(|s| s.provider.name().to_owned())
                .collect(),
            model: opts.steps.first().and_then(|s| s.request.model.clone()),
            session: opts.session.clone(),
            cwd: opts
                .steps
                .first()
                .map(|s| s.request.cwd.display().to_string()),
            prompt_bytes: opts
                .steps
                .first()
                .map_or(0, |s| s.request.prompt.len() as u64),
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
        transcript: None,
    };
    if opts.session.is_some() && store.is_none() {
        em.log(
            LogLevel::Warn,
            "--session needs the run store to map the name to a provider session; running without resuming".into(),
        );
    }

    let mut run = RunState {
        run_id: run_id.clone(),
        opts: &opts,
        store,
        scratch,
        attempts: Vec::new(),
        attempt_no: 0,
        session_recreated: false,
        resumed_elsewhere: false,
    };
    let mut end: Option<(usize, StepEnd)> = None;
    let mut handoff: Option<String> = None;
    for (i, step) in opts.steps.iter().enumerate() {
        em.provider = Some(step.provider.name().to_owned());
        let next = opts.steps.get(i + 1);
        if let Some(skip) = run.skip_exhausted(step, &mut em) {
            end = Some((i, skip));
            continue;
        }
        let step_end = run
            .step(step, next.is_some(), handoff.take(), &mut em, &mut cancel)
            .await;
        let Some(next) = next else {
            end = Some((i, step_end.0));
            break;
        };
        let (step_end, changes) = step_end;
        let Some(error) = step_end.error.clone() else {
            end = Some((i, step_end));
            break;
        };
        let admitted = error.recoverable && step.retry_on.as_ref().is_none_or(|f| f(&error));
        if !admitted {
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
            end = Some((i, step_end));
            break;
        }
        match run
            .workspace_gate(step, next, &error, changes, &mut em)
            .await
        {
            Ok(()) => {}
            Err(stopped) => {
                end = Some((
                    i,
                    StepEnd {
                        error: Some(stopped),
                        ..step_end
                    },
                ));
                break;
            }
        }
        if opts.handoff == Handoff::Summary
            && let Some(t) = em.transcript.take()
        {
            handoff = Some(t.summary(&step.label(), &error));
        }
        em.notice(format!(
            "failover: {} failed ({}: {}); trying {}",
            step.label(),
            error.kind,
            error.message,
            next.label()
        ));
        end = Some((i, step_end));
    }

    let (last_step, step_end) = match end {
        Some((i, e)) => (opts.steps.get(i), e),
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

    // Remember the session for the next run.
    if let (Some(name), Some(store), Some(id), Some(step)) =
        (&opts.session, store, envelope.session_id.clone(), last_step)
    {
        let provider = step.provider.name();
        let now = Timestamp::now();
        let turns = store
            .get_session(name, provider)
            .ok()
            .flatten()
            .map(|s| s.turns)
            .unwrap_or(0);
        let record = SessionRecord {
            name: name.clone(),
            provider: provider.to_owned(),
            native_session_id: id,
            cwd: Some(step.request.cwd.display().to_string()),
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

    // The run is as recoverable as its failures: exit 75 only when every
    // attempt failed in a way that a later or another try may fix.
    let every_recoverable = error.as_ref().is_some_and(|e| e.recoverable)
        && run.attempts.iter().all(|a| a.recoverable.is_none_or(|r| r));
    let exit_code = exit_code_for(error.as_ref().map(|e| e.kind), every_recoverable);
    if let Some(e) = &error {
        envelope = envelope.with_error(e, exit_code);
    }
    envelope.run_id = run_id.clone();
    if let Some(step) = last_step {
        envelope.provider = Some(step.provider.name().to_owned());
        envelope.agent = step.agent.clone();
        envelope.model_resolution = model_note.or_else(|| step.model_resolution.clone());
        if envelope.model.is_none() {
            // As the last attempt asked for it (after an invalid-model retry,
            // not the model first requested).
            envelope.model = run.attempts.last().and_then(|a| a.model.clone());
        }
    }
    envelope.chain = opts.chain.clone();
    envelope.attempts = std::mem::take(&mut run.attempts);
    envelope.session_recreated = run.session_recreated || run.resumed_elsewhere;
    envelope.duration_ms = started.elapsed().as_millis() as u64;
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

/// What the steps of one run share.
struct RunState<'a> {
    run_id: String,
    opts: &'a RunOptions,
    store: Option<&'a dyn RunStore>,
    scratch: PathBuf,
    attempts: Vec<Attempt>,
    attempt_no: u32,
    session_recreated: bool,
    resumed_elsewhere: bool,
}

impl RunState<'_> {
    /// Skip `step` when its provider's quota is known exhausted until a time
    /// still ahead: record a skipped attempt and say so.
    fn skip_exhausted(&mut self, step: &Step, em: &mut Emitter<'_>) -> Option<StepEnd> {
        if self.opts.ignore_quota {
            return None;
        }
        let store = self.store?;
        let provider = step.provider.name();
        let state = exhausted_quota(store, provider, self.opts.now())?;
        let reset_at = state.reset_at.map(|t| t.to_string());
        let mut error = ErrorInfo::new(
            ErrorKind::Quota,
            ErrorSource::Internal,
            format!(
                "skipped {}: its quota is exhausted until {} (recorded from {}; --ignore-quota tries anyway)",
                step.label(),
                reset_at.as_deref().unwrap_or("an unknown time"),
                state.source
            ),
        );
        error.reset_at = reset_at.clone();
        self.attempt_no += 1;
        em.attempt = Some(self.attempt_no);
        em.notice(error.message.clone());
        let attempt = Attempt {
            provider: provider.to_owned(),
            model: step.request.model.clone(),
            agent: step.agent.clone(),
            error_type: Some(ErrorKind::Quota),
            error: Some(error.message.clone()),
            recoverable: Some(true),
            reset_at,
            skipped: true,
            ..Attempt::default()
        };
        self.record_attempt(&attempt, Timestamp::now(), step);
        let mut envelope = Envelope::new(em.run_id.clone());
        envelope.provider = Some(provider.to_owned());
        Some(StepEnd {
            envelope,
            error: Some(error),
            model_note: None,
        })
    }

    fn record_attempt(&mut self, attempt: &Attempt, started_at: Timestamp, step: &Step) {
        self.attempts.push(attempt.clone());
        let Some(store) = self.store else { return };
        let record = AttemptRecord {
            n: self.attempt_no,
            provider: step.provider.name().to_owned(),
            agent: step.agent.clone(),
            model: attempt.model.clone(),
            session_id: attempt.session_id.clone(),
            started_at,
            ended_at: Some(Timestamp::now()),
            duration_ms: Some(attempt.duration_ms),
            exit_code: attempt.exit_code,
            error_type: attempt.error_type,
            error: attempt.error.clone(),
        };
        if let Err(e) = store.insert_attempt(&self.run_id, &record) {
            tracing::warn!("failed to record attempt {}: {e}", self.attempt_no);
        }
    }

    /// Run one step: its attempts (a vanished session recreated once, an
    /// invalid model retried once with the default), then the checks of its
    /// answer and of the files it changed. Also returns what the last
    /// attempt changed in the workspace, for the failover's check.
    async fn step(
        &mut self,
        step: &Step,
        has_next: bool,
        handoff: Option<String>,
        em: &mut Emitter<'_>,
        cancel: &mut mpsc::Receiver<CancelRequest>,
    ) -> (StepEnd, Changes) {
        let provider = step.provider.name();
        let mut stored = None;
        if step.request.resume.is_none()
            && let (Some(name), Some(store)) = (&self.opts.session, self.store)
        {
            match store.get_session(name, provider) {
                Ok(s) => stored = s.map(|s| s.native_session_id),
                Err(e) => em.log(
                    LogLevel::Warn,
                    format!("failed to read session `{name}`: {e}"),
                ),
            }
        }
        let from_session_map = stored.is_some();
        let fresh_prompt = step.request.prompt.clone();
        let mut request = step.request_for(stored);
        if let Some(h) = &handoff {
            request.prompt = format!("{h}\n\n{}", request.prompt);
        }
        let home = request
            .env
            .iter()
            .rev()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v))
            .or_else(|| self.opts.home.clone());
        // The workspace before the step, when something will ask what it
        // changed: the failover's check, or the agent's edit scope.
        let snapshot = if has_next || step.edit_scope != EditScope::Any {
            let cwd = request.cwd.clone();
            Some(blocking(move || Snapshot::take(&cwd)).await)
        } else {
            None
        };
        let mut changes: Changes;
        // Kept only when it may be handed on.
        em.transcript =
            (self.opts.handoff == Handoff::Summary && has_next).then(Transcript::default);

        let mut model_note = None;
        let mut model_retried = false;
        let mut recreated = false;
        let outcome = loop {
            self.attempt_no += 1;
            em.attempt = Some(self.attempt_no);
            let mut outcome: AttemptOutcome = attempt(
                self.opts,
                step,
                &request,
                home.as_deref(),
                self.store,
                &self.scratch,
                em,
                cancel,
            )
            .await;
            changes = changes_since(snapshot.as_ref()).await;
            self.check(step, &mut outcome, changes.as_ref());
            self.record_attempt(&outcome.attempt, outcome.started_at, step);
            if let Some(store) = self.store {
                quota::record_quota(
                    store,
                    provider,
                    &em.run_id,
                    outcome.error.as_ref(),
                    outcome.rate_limit.as_ref(),
                    self.opts.now(),
                );
            }
            let kind = outcome.error.as_ref().map(|e| e.kind);
            if kind == Some(ErrorKind::InvalidSession) && from_session_map && !recreated {
                let gone = request.resume.take().unwrap_or_default();
                request.prompt = match &handoff {
                    Some(h) => format!("{h}\n\n{fresh_prompt}"),
                    None => fresh_prompt.clone(),
                };
                em.notice(format!(
                    "session `{}` ({gone}) is no longer known to {provider}; starting a new one",
                    self.opts.session.as_deref().unwrap_or_default(),
                ));
                if let (Some(name), Some(store)) = (&self.opts.session, self.store)
                    && let Err(e) = store.delete_session(name, provider)
                {
                    tracing::warn!("failed to forget session `{name}`: {e}");
                }
                recreated = true;
                self.session_recreated = true;
                continue;
            }
            if kind == Some(ErrorKind::InvalidModel)
                && !model_retried
                && request.model.is_some()
                && request.model != step.default_model
            {
                let rejected = request.model.take().unwrap_or_default();
                request.model = step.default_model.clone();
                let with = match &request.model {
                    Some(m) => format!("the default model '{m}'"),
                    None => format!("{provider}'s own default model"),
                };
                let note = format!(
                    "{provider} model '{rejected}' was rejected as invalid; retried once with {with}"
                );
                em.notice(note.clone());
                model_note = Some(note);
                model_retried = true;
                continue;
            }
            break outcome;
        };
        // A CLI that starts a new session when asked to resume one it no
        // longer knows (agy) recreated it too.
        if let Some(asked) = request.resume.as_deref()
            && outcome.error.is_none()
            && outcome
                .envelope
                .session_id
                .as_deref()
                .is_some_and(|got| got != asked)
        {
            self.resumed_elsewhere = true;
        }
        (
            StepEnd {
                envelope: outcome.envelope,
                error: outcome.error,
                model_note,
            },
            changes,
        )
    }

    /// The checks of a finished attempt: its answer against the schema, and
    /// the files it changed against its edit scope. A failed check turns the
    /// attempt into an `invalid_output` failure.
    fn check(
        &self,
        step: &Step,
        outcome: &mut AttemptOutcome,
        changes: Option<&Result<Vec<Change>, String>>,
    ) {
        if outcome.error.is_none()
            && let Some(check) = &step.check_answer
        {
            match check(&outcome.envelope.response) {
                Ok(v) => outcome.envelope.structured_output = Some(v),
                Err(why) => outcome.fail(ErrorInfo::new(
                    ErrorKind::InvalidOutput,
                    ErrorSource::Internal,
                    format!("{}'s answer failed --output-schema: {why}", step.label()),
                )),
            }
        }
        let allowed: &[PathBuf] = match &step.edit_scope {
            EditScope::Any => return,
            EditScope::Nothing => &[],
            EditScope::Only(paths) => paths,
        };
        let Some(changes) = changes else { return };
        let message = match changes {
            Ok(changes) => {
                let outside = workspace::outside_allowlist(&step.request.cwd, changes, allowed);
                if outside.is_empty() {
                    return;
                }
                let mode = if allowed.is_empty() {
                    "mode classify: it must not change files".to_owned()
                } else {
                    format!(
                        "mode edit: it may change only {}",
                        allowed
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                format!(
                    "{} changed files outside its scope ({mode}): {}",
                    step.label(),
                    list_changes(&outside)
                )
            }
            Err(e) => format!(
                "{} has an edit scope, but what it changed cannot be checked: {e}",
                step.label()
            ),
        };
        if outcome.error.is_none() {
            outcome.fail(ErrorInfo::new(
                ErrorKind::InvalidOutput,
                ErrorSource::Internal,
                message,
            ));
        } else if let Some(e) = &mut outcome.error {
            e.message = format!("{}; and {message}", e.message);
        }
    }

    /// Before handing the task on after `error`: what did the failed step
    /// leave in the workspace, and does the policy let the next agent start?
    async fn workspace_gate(
        &self,
        step: &Step,
        next: &Step,
        error: &ErrorInfo,
        changes: Changes,
        em: &mut Emitter<'_>,
    ) -> Result<(), ErrorInfo> {
        let policy = self.opts.on_dirty;
        let stopped = |why: String| {
            let mut e = error.clone();
            e.message = format!(
                "{} failed ({}: {}) and {why}",
                step.label(),
                error.kind,
                error.message
            );
            e.recoverable = false;
            e
        };
        let action = dirty_action(
            policy,
            changes.unwrap_or(Ok(Vec::new())),
            &step.label(),
            &next.label(),
        );
        let list = match action {
            DirtyAction::HandOn => return Ok(()),
            DirtyAction::Warn(why) => {
                em.log(LogLevel::Warn, why);
                return Ok(());
            }
            DirtyAction::Stop(why) => return Err(stopped(why)),
            DirtyAction::Stash(list) => list,
        };
        let message = format!(
            "agentgate {}: changes left by {} ({})",
            em.run_id,
            step.label(),
            error.kind
        );
        let cwd = step.request.cwd.clone();
        match blocking(move || workspace::stash(&cwd, &message)).await {
            Ok(stash) => {
                em.notice(format!(
                    "stashed the changes {} left ({list}) as {stash}",
                    step.label()
                ));
                Ok(())
            }
            Err(e) => Err(stopped(format!(
                "left changes in the workspace ({list}) that could not be stashed ({e}), so the chain stopped before {}",
                next.label()
            ))),
        }
    }
}

/// What failover does about the workspace a failed step left.
#[derive(Debug, PartialEq, Eq)]
enum DirtyAction {
    /// Nothing changed: hand on.
    HandOn,
    /// Hand on, with this warning.
    Warn(String),
    /// Stash these changes, then hand on.
    Stash(String),
    /// Stop the chain, for this reason.
    Stop(String),
}

/// The `on_dirty` policy applied to what the failed step changed (an error
/// when that cannot be told: only `continue` hands on then).
fn dirty_action(
    policy: OnDirty,
    changes: Result<Vec<Change>, String>,
    step: &str,
    next: &str,
) -> DirtyAction {
    let changes = match changes {
        Ok(c) if c.is_empty() => return DirtyAction::HandOn,
        Ok(c) => c,
        Err(e) if policy == OnDirty::Continue => {
            return DirtyAction::Warn(format!(
                "cannot tell whether {step} changed the workspace: {e}"
            ));
        }
        Err(e) => {
            return DirtyAction::Stop(format!(
                "whether it changed the workspace cannot be told ({e}), so the chain stopped before {next} (on_dirty: {})",
                policy.as_str()
            ));
        }
    };
    let list = list_changes(&changes.iter().collect::<Vec<_>>());
    match policy {
        OnDirty::Stop => DirtyAction::Stop(format!(
            "left changes in the workspace ({list}), so the chain stopped before {next}: review them, then rerun (on_dirty: stop; `continue` hands them on, `stash` stashes them)"
        )),
        OnDirty::Continue => DirtyAction::Warn(format!(
            "{step} left changes in the workspace ({list}); handing them on to {next} (on_dirty: continue)"
        )),
        OnDirty::Stash => DirtyAction::Stash(list),
    }
}

/// What an attempt changed in the workspace: `None` when nothing asked,
/// an error message when it cannot be told.
type Changes = Option<Result<Vec<Change>, String>>;

/// Run a workspace operation (git, a folder walk) off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, workspace::WorkspaceError> + Send + 'static,
) -> Result<T, String> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(e) => Err(format!("the workspace check failed: {e}")),
    }
}

/// What changed since `snapshot` was taken.
async fn changes_since(snapshot: Option<&Result<Snapshot, String>>) -> Changes {
    match snapshot? {
        Ok(s) => {
            let s = s.clone();
            Some(blocking(move || s.changes()).await)
        }
        Err(e) => Some(Err(e.clone())),
    }
}

/// At most ten changes, then how many more.
fn list_changes(changes: &[&workspace::Change]) -> String {
    let mut out: Vec<String> = changes.iter().take(10).map(|c| c.to_string()).collect();
    if changes.len() > 10 {
        out.push(format!("and {} more", changes.len() - 10));
    }
    out.join(", ")
}

impl AttemptOutcome {
    /// Turn a successful attempt into a failed one.
    fn fail(&mut self, error: ErrorInfo) {
        self.attempt.error_type = Some(error.kind);
        self.attempt.error = Some(error.message.clone());
        self.attempt.recoverable = Some(error.recoverable);
        self.error = Some(error);
    }
}

#[cfg(test)]
mod tests {
    use agentgate_protocol::RateLimitEvent;
    use agentgate_store::QuotaStatus;

    use super::attempt::Tail;
    use super::capture::split_lines;
    use super::quota::record_quota;
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
        record_quota(&store, "claude", "r1", Some(&quota), None, Timestamp::now());
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
        record_quota(&store, "codex", "r2", None, Some(&event), Timestamp::now());
        let s = store.get_quota("codex").unwrap().unwrap();
        assert_eq!(
            (s.status, s.source.as_str()),
            (QuotaStatus::Warning, "event:r2")
        );
        assert_eq!(s.message.as_deref(), Some("window five_hour"));
        // Other errors record nothing.
        let auth = ErrorInfo::new(ErrorKind::Auth, ErrorSource::Pattern, "bad key");
        record_quota(&store, "gemini", "r3", Some(&auth), None, Timestamp::now());
        assert!(store.get_quota("gemini").unwrap().is_none());
    }

    #[test]
    fn a_success_after_the_reset_makes_the_provider_available_again() {
        let (_dir, store) = store();
        let mut quota = ErrorInfo::new(ErrorKind::Quota, ErrorSource::Pattern, "limit");
        quota.reset_at = Some("2000-01-01T00:00:00Z".into());
        record_quota(&store, "claude", "r1", Some(&quota), None, Timestamp::now());
        record_quota(&store, "claude", "r2", None, None, Timestamp::now());
        let s = store.get_quota("claude").unwrap().unwrap();
        assert_eq!(
            (s.status, s.source.as_str()),
            (QuotaStatus::Available, "success:r2")
        );
        // Not before the reset time.
        quota.reset_at = Some("2099-01-01T00:00:00Z".into());
        record_quota(&store, "codex", "r3", Some(&quota), None, Timestamp::now());
        record_quota(&store, "codex", "r4", None, None, Timestamp::now());
        assert_eq!(
            store.get_quota("codex").unwrap().unwrap().status,
            QuotaStatus::Exhausted
        );
    }

    #[test]
    fn the_dirty_policy_decides_what_failover_does() {
        use crate::workspace::ChangeKind;
        let one = || {
            Ok(vec![Change {
                path: PathBuf::from("half-done.txt"),
                kind: ChangeKind::Added,
            }])
        };
        let act = |p, c| dirty_action(p, c, "claude", "codex");
        for p in [OnDirty::Stop, OnDirty::Continue, OnDirty::Stash] {
            assert_eq!(act(p, Ok(Vec::new())), DirtyAction::HandOn);
        }
        match act(OnDirty::Stop, one()) {
            DirtyAction::Stop(why) => {
                assert!(why.contains("A half-done.txt"), "{why}");
                assert!(why.contains("before codex"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(act(OnDirty::Continue, one()), DirtyAction::Warn(w) if w.contains("half-done.txt"))
        );
        assert_eq!(
            act(OnDirty::Stash, one()),
            DirtyAction::Stash("A half-done.txt".into())
        );
        // Unknown (a folder too large to walk, git failing): only
        // `continue` hands on.
        let unknown = || Err("failed to walk /big: more than 100000 entries".to_owned());
        assert!(
            matches!(act(OnDirty::Stop, unknown()), DirtyAction::Stop(w) if w.contains("cannot be told"))
        );
        assert!(matches!(
            act(OnDirty::Stash, unknown()),
            DirtyAction::Stop(_)
        ));
        assert!(
            matches!(act(OnDirty::Continue, unknown()), DirtyAction::Warn(w) if w.contains("100000"))
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
