//! The run's event stream: [`Emitter`] gives each event its header (`seq`,
//! `ts`, `run_id`, `provider`, `attempt`), writes it to the run's
//! `events.jsonl` and hands it to the caller's [`EventSink`]; it also keeps
//! the current step's transcript for `--handoff summary`. Every event's
//! body goes through the run's [`Redactor`] first: the CLI's lines were
//! redacted where they were read, but events agentgate makes (from
//! session files read after a run, error messages) are checked here. Then
//! the event is cut to the line limit ([`agentgate_protocol::fit`]) if it
//! is longer, so the file, the caller and every stream get the same line.

use agentgate_protocol::{Event, EventBody, LogEvent, LogLevel, StatusEvent, Survivor};
use agentgate_store::{RunFiles, StoreError};
use jiff::Timestamp;

use super::handoff::Transcript;
use crate::redact::Redactor;
use agentgate_providers::CliCommand;

/// Receives the run's events as they happen (the caller's live view; the
/// store's copy is written through `agentgate_store::EventLogWriter`).
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

/// Numbers events and writes them to the store's events.jsonl and the
/// caller's sink.
pub(super) struct Emitter<'a> {
    pub run_id: String,
    seq: u64,
    /// The provider of the step under way.
    pub provider: Option<String>,
    /// The attempt under way.
    pub attempt: Option<u32>,
    /// The run's files in the store (`None` without a store).
    files: Option<&'a mut RunFiles>,
    sink: &'a mut dyn EventSink,
    /// The first write to the store that failed (see [`Emitter::store_failed`]).
    store_error: Option<StoreError>,
    /// The current step's transcript, kept for `--handoff summary`.
    pub transcript: Option<Transcript>,
    /// The run's secrets.
    redactor: Redactor,
    /// The run's log file (`--log-dir`), if it has one.
    run_log: Option<super::run_log::RunLog>,
}

impl<'a> Emitter<'a> {
    pub fn new(
        run_id: String,
        files: Option<&'a mut RunFiles>,
        sink: &'a mut dyn EventSink,
        redactor: Redactor,
    ) -> Emitter<'a> {
        Emitter {
            run_id,
            seq: 0,
            provider: None,
            attempt: None,
            files,
            sink,
            store_error: None,
            transcript: None,
            redactor,
            run_log: None,
        }
    }

    /// The run's secrets.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Add secrets: they are redacted from here on.
    pub fn set_redactor(&mut self, redactor: Redactor) {
        self.redactor = redactor;
    }

    pub fn emit(&mut self, mut body: EventBody) {
        // A line cut at the line limit may end with the first bytes of a
        // secret, which no search finds: they go.
        if let EventBody::Raw(raw) = &mut body
            && raw.truncated
        {
            raw.trim_end(self.redactor.longest_secret().saturating_sub(1));
        }
        let body = match self.redactor.redacted(&body) {
            Ok(None) => body,
            Ok(Some(redacted)) => redacted,
            Err(e) => EventBody::Log(LogEvent {
                level: LogLevel::Warn,
                message: format!(
                    "a `{}` event was left out: it could not be checked for secrets ({e})",
                    body.type_name()
                ),
            }),
        };
        if let Some(t) = &mut self.transcript {
            t.observe(&body);
        }
        let mut ev = Event::new(self.run_id.clone(), self.seq, now_ts(), body);
        ev.provider = self.provider.clone();
        ev.attempt = self.attempt;
        // Written, sent and streamed within the one line limit.
        let ev = agentgate_protocol::fit(ev);
        self.seq += 1;
        if let Some(f) = self.files.as_deref_mut()
            && let Err(e) = f.write_event(&ev)
        {
            // Keep running: the caller still gets the events and the result.
            self.store_failed(e);
        }
        self.sink.emit(&ev);
    }

    /// Wait until the events written to the store can be read by others.
    pub fn flush_store(&mut self) {
        if let Some(f) = self.files.as_deref_mut()
            && let Err(e) = f.flush_events()
        {
            self.store_failed(e);
        }
    }

    /// A write to the store failed: the first is logged and kept for the
    /// run's outcome (`RunOutcome::store_error`), the run goes on.
    pub fn store_failed(&mut self, error: StoreError) {
        if self.store_error.is_none() {
            tracing::warn!("the store refused a write of run {}: {error}", self.run_id);
            self.store_error = Some(error);
        }
    }

    /// The first write to the store that failed, if any.
    pub fn take_store_error(&mut self) -> Option<StoreError> {
        self.store_error.take()
    }

    /// Write the run's stderr and answer to `log` too.
    pub fn set_run_log(&mut self, log: super::run_log::RunLog) {
        self.run_log = Some(log);
    }

    /// The run's log file, taken to write its end.
    pub fn take_run_log(&mut self) -> Option<super::run_log::RunLog> {
        self.run_log.take()
    }

    /// The run's folder, when it has one (a run with a store).
    pub fn run_dir(&self) -> Option<&std::path::Path> {
        self.files.as_deref().map(RunFiles::dir)
    }

    /// Append a line of the CLI's stderr (already redacted) to the run's
    /// `stderr.log` (and its log file).
    pub fn stderr(&mut self, line: &[u8]) {
        if let Some(log) = &mut self.run_log
            && let Err(e) = log.stderr(line)
        {
            // The log goes; the run goes on.
            self.run_log = None;
            tracing::warn!("{e}; the run goes on without its log file");
            self.log(
                LogLevel::Warn,
                format!("{e}; the run goes on without its log file"),
            );
        }
        if let Some(f) = self.files.as_deref_mut() {
            let mut bytes = line.to_vec();
            bytes.push(b'\n');
            if let Err(e) = f.write_stderr(&bytes) {
                tracing::warn!("failed to write stderr.log: {e}");
            }
        }
    }

    /// The CLI of `provider` is about to run `cmd`: logged (info), and
    /// what the plan (`step_notices`) and the command could not do as
    /// asked (a mode mapped, a flag left out) emitted as `status` notices.
    pub fn starting(&mut self, provider: &str, cmd: &CliCommand, step_notices: &[String]) {
        tracing::info!(
            provider,
            program = %cmd.program.display(),
            cwd = %cmd.cwd.display(),
            "starting the CLI"
        );
        for detail in step_notices.iter().chain(&cmd.notices) {
            self.notice(detail.clone());
        }
    }

    pub fn log(&mut self, level: LogLevel, message: String) {
        self.emit(EventBody::Log(LogEvent { level, message }));
    }

    pub fn notice(&mut self, detail: String) {
        self.emit(EventBody::Status(StatusEvent::Notice { detail }));
    }

    /// Names each process that could not be ended in a `log` event (level
    /// `warn`), and returns them for the attempt's `survivors`.
    pub fn report_survivors(&mut self, found: &[agentgate_supervise::Survivor]) -> Vec<Survivor> {
        found
            .iter()
            .map(|s| {
                self.log(
                    LogLevel::Warn,
                    format!(
                        "process {} ({}) is still running after SIGKILL; end it by hand",
                        s.pid, s.command
                    ),
                );
                Survivor {
                    pid: s.pid,
                    command: s.command.clone(),
                }
            })
            .collect()
    }
}

fn now_ts() -> String {
    Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}
