//! The loop around the supervised tool: its stdout read as protocol
//! messages (each one an event), its stderr to `stderr.log`, the heartbeat
//! watchdog, the output cap, and cancellation (`CANCEL_FILE` first, the
//! termination table after the grace).

use std::time::Duration;

use agentgate_core::{CancelRequest, STDERR_TAIL_BYTES, Tail};
use agentgate_protocol::{
    ActionRequest, CancelledMessage, ErrorMessage, EventBody, ResultMessage, TOOL_PROTOCOL_VERSION,
    ToolLine, ToolMessage, ToolMessageBody, ToolMessageEvent,
};
use agentgate_supervise::{
    Control, ExitReport, Invocation, OutputLine, Stream, SuperviseError, SupervisorConfig,
    supervise,
};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};

use super::emit::Emitter;
use super::request::RunLimits;

/// Why the runner itself ended the run, if it did (the first cause wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunnerCause {
    /// The tool printed more than its cap on stdout.
    OutputLimit,
    /// No `progress` or `heartbeat` within the heartbeat time.
    HeartbeatMissed,
    /// The caller cancelled.
    Cancelled,
}

/// What the loop saw, and how the supervised process ended.
#[derive(Debug)]
pub(super) struct Watched {
    pub report: Result<ExitReport, SuperviseError>,
    pub seen: Seen,
}

/// What the loop saw of the tool.
#[derive(Debug)]
pub(super) struct Seen {
    pub cause: Option<RunnerCause>,
    pub result: Option<ResultMessage>,
    pub error: Option<ErrorMessage>,
    pub cancelled: Option<CancelledMessage>,
    /// Why a line that looked like the tool's `result` was not one (its
    /// fields do not fit, or it gives a key twice).
    pub bad_result: Option<String>,
    pub actions: Vec<ActionRequest>,
    pub stdout_bytes: u64,
    pub stderr_tail: Tail,
    pub warnings: Vec<String>,
}

struct State<'e, 'o> {
    em: &'e mut Emitter<'o>,
    limits: RunLimits,
    last_alive: Instant,
    watched: Seen,
    control: mpsc::Sender<Control>,
    finished_seen: bool,
}

/// Runs the invocation under the supervisor until the tool is gone.
pub(super) async fn watch(
    inv: Invocation,
    cfg: SupervisorConfig,
    limits: &RunLimits,
    cancel_file: &std::path::Path,
    mut cancel: Option<mpsc::Receiver<CancelRequest>>,
    em: &mut Emitter<'_>,
) -> Watched {
    let (line_tx, mut lines) = mpsc::channel::<OutputLine>(256);
    let (control, control_rx) = mpsc::channel::<Control>(8);
    let supervised = supervise(inv, cfg, line_tx, control_rx);
    tokio::pin!(supervised);
    let mut state = State {
        em,
        limits: limits.clone(),
        last_alive: Instant::now(),
        watched: Seen {
            cause: None,
            result: None,
            error: None,
            cancelled: None,
            bad_result: None,
            actions: Vec::new(),
            stdout_bytes: 0,
            stderr_tail: Tail::new(STDERR_TAIL_BYTES),
            warnings: Vec::new(),
        },
        control,
        finished_seen: false,
    };
    let far = Duration::from_secs(86_400 * 365);
    let mut grace_until: Option<Instant> = None;
    let mut cancels = 0u32;
    let report = loop {
        let heartbeat_at = match state.limits.heartbeat {
            Some(hb) if state.watched.cause.is_none() && !state.finished_seen => {
                state.last_alive + hb
            }
            _ => Instant::now() + far,
        };
        tokio::select! {
            biased;
            report = &mut supervised => break report,
            Some(line) = lines.recv() => state.line(line).await,
            () = sleep_until(heartbeat_at) => {
                state.end(RunnerCause::HeartbeatMissed, false).await;
            }
            () = sleep_until(grace_until.unwrap_or_else(|| Instant::now() + far)), if grace_until.is_some() => {
                grace_until = None;
                let _ = state.control.send(Control::Cancel { immediate: false }).await;
            }
            request = recv_cancel(&mut cancel) => match request {
                None => cancel = None,
                Some(request) => {
                    cancels += 1;
                    if state.watched.cause.is_none() {
                        state.watched.cause = Some(RunnerCause::Cancelled);
                    }
                    if request.immediate || cancels > 1 {
                        // A second request (or an impatient first): kill now.
                        grace_until = None;
                        let _ = state.control.send(Control::Cancel { immediate: true }).await;
                    } else {
                        if let Err(e) = std::fs::write(cancel_file, b"cancel\n") {
                            state.watched.warnings.push(format!("could not create CANCEL_FILE: {e}"));
                        }
                        grace_until = Some(Instant::now() + state.limits.cancel_grace);
                    }
                }
            },
        }
    };
    // The supervisor drained the pipes before returning: what is left in the
    // channel is the tool's last output.
    while let Some(line) = lines.recv().await {
        state.line(line).await;
    }
    Watched {
        report,
        seen: state.watched,
    }
}

async fn recv_cancel(cancel: &mut Option<mpsc::Receiver<CancelRequest>>) -> Option<CancelRequest> {
    match cancel {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

impl State<'_, '_> {
    /// The runner ends the run for `cause` (if nothing ended it before).
    async fn end(&mut self, cause: RunnerCause, immediate: bool) {
        if self.watched.cause.is_some() {
            return;
        }
        self.watched.cause = Some(cause);
        let _ = self.control.send(Control::Cancel { immediate }).await;
    }

    async fn line(&mut self, line: OutputLine) {
        match line.stream {
            Stream::Stderr => {
                self.watched.stderr_tail.push(&line.bytes);
                self.em.stderr_line(&line.bytes);
            }
            Stream::Stdout => self.stdout(line).await,
        }
    }

    async fn stdout(&mut self, line: OutputLine) {
        let size = line.printed_len() + u64::from(!line.partial);
        self.watched.stdout_bytes = self.watched.stdout_bytes.saturating_add(size);
        if self.watched.stdout_bytes > self.limits.max_output_bytes {
            // Nothing past the cap is kept: the point is not to fill the disk.
            self.end(RunnerCause::OutputLimit, true).await;
            return;
        }
        if self.watched.cause == Some(RunnerCause::OutputLimit) {
            return;
        }
        if let Some(original) = line.cut_from {
            // No message is that long: the line is told of, not read.
            let warning = format!(
                "the tool printed a line of {original} bytes, over the line limit of {} \
                 bytes; it was left out",
                agentgate_protocol::MAX_LINE_BYTES
            );
            self.em.emit(EventBody::Log(agentgate_protocol::LogEvent {
                level: agentgate_protocol::LogLevel::Warn,
                message: warning.clone(),
            }));
            self.warn_once(warning);
            return;
        }
        let message = match ToolMessage::parse_line(&line.bytes) {
            ToolLine::Refused { message, reason } => {
                self.warn_once(format!(
                    "a line of the tool's was not read as a message: {reason}"
                ));
                if looks_like_result(&line.bytes) && self.watched.bad_result.is_none() {
                    self.watched.bad_result = Some(format!("its `result` line: {reason}"));
                }
                message
            }
            other => other.into_message(),
        };
        self.take(&message).await;
        self.em
            .emit(EventBody::ToolMessage(ToolMessageEvent { message }));
    }

    /// What a message changes: liveness, the outcome, the warnings.
    async fn take(&mut self, message: &ToolMessage) {
        if let Some(v) = message.v
            && v != TOOL_PROTOCOL_VERSION
        {
            self.warn_once(format!(
                "the tool wrote protocol version {v}; this runner speaks {TOOL_PROTOCOL_VERSION}"
            ));
        }
        if self.finished_seen && !matches!(message.body, ToolMessageBody::Log(_)) {
            self.warn_once("the tool printed messages after its result".to_owned());
        }
        match &message.body {
            ToolMessageBody::Progress(_) | ToolMessageBody::Heartbeat(_) => {
                self.last_alive = Instant::now();
            }
            ToolMessageBody::ActionRequired(action) => {
                self.last_alive = Instant::now();
                self.watched.actions.push(ActionRequest {
                    action: action.action.clone(),
                    context: action.context.clone(),
                });
            }
            ToolMessageBody::Result(result) => {
                if self.watched.result.is_none() {
                    self.watched.result = Some(result.clone());
                }
                self.finished().await;
            }
            ToolMessageBody::Error(error) => {
                if self.watched.error.is_none() {
                    self.watched.error = Some(error.clone());
                }
                self.finished().await;
            }
            ToolMessageBody::Cancelled(cancelled) if self.watched.cancelled.is_none() => {
                self.watched.cancelled = Some(cancelled.clone());
            }
            ToolMessageBody::Malformed(fields) => {
                let kind = fields.get("type").and_then(|t| t.as_str()).unwrap_or("");
                if kind == "result" && self.watched.bad_result.is_none() {
                    self.watched.bad_result =
                        Some("its `result` message does not fit the protocol".to_owned());
                }
                self.warn_once(format!(
                    "the tool printed a `{kind}` message whose fields do not fit the protocol (kept as it came)"
                ));
            }
            _ => {}
        }
    }

    /// The tool reported its end: from here the result grace applies.
    async fn finished(&mut self) {
        if !self.finished_seen {
            self.finished_seen = true;
            let _ = self.control.send(Control::ResultSeen).await;
        }
    }

    fn warn_once(&mut self, warning: String) {
        if !self.watched.warnings.contains(&warning) {
            self.watched.warnings.push(warning);
        }
    }
}

/// Whether a line refused for a repeated key is a `result` (its `type`, as
/// a lenient reading sees it).
fn looks_like_result(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|v| {
            v.get("type")
                .and_then(|t| t.as_str())
                .map(|t| t == "result")
        })
        .unwrap_or(false)
}
