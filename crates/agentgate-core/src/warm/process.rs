//! One warm CLI process: started under the supervisor (and its keeper)
//! with stdin kept open, opened with its protocol's lines, then driven one
//! turn at a time. The caller owns the decisions: [`WarmProcess::next`]
//! hands it each step of the running turn (decoded output, a permission
//! request, the turn's end, or the process's death), and it answers a
//! request with [`WarmProcess::answer`] (from a policy, or after asking a
//! human) and stops a turn with [`WarmProcess::interrupt`]. Nothing here
//! waits on a human or keeps time: deadlines are the caller's.

use std::time::Duration;

use agentgate_protocol::{EventBody, RawEvent};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::protocol::{Answer, Inbound, PermissionAsk, WarmProtocol};
use agentgate_providers::decode::{Decoded, Decoder};
use agentgate_supervise::{
    Control, ExitReport, Invocation, OutputLine, Stream, SuperviseError, SupervisorConfig,
    supervise_with_stdin,
};

/// How long a loaded session's output must stay quiet before its replay
/// is taken to be over.
pub const REPLAY_QUIET: Duration = Duration::from_millis(300);

/// The longest a replay is read before the first turn.
pub const REPLAY_LIMIT: Duration = Duration::from_secs(10);

/// What a warm process is started with.
pub struct WarmStart {
    /// The CLI in its long-lived mode (its stdin is kept open).
    pub invocation: Invocation,
    /// The supervisor's settings: give it the keeper; no wall clock or
    /// idle timeout (the process lives across turns).
    pub supervisor: SupervisorConfig,
    /// The CLI's protocol.
    pub protocol: Box<dyn WarmProtocol>,
    /// Its output decoder.
    pub decoder: Box<dyn Decoder>,
    /// How long opening may take before the process is given up.
    pub open_timeout: Duration,
}

impl std::fmt::Debug for WarmStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarmStart")
            .field("program", &self.invocation.program)
            .field("protocol", &self.protocol)
            .finish_non_exhaustive()
    }
}

/// A step of a running turn.
#[derive(Debug)]
pub enum Step {
    /// Output, decoded (events, the final record, errors).
    Output(Vec<Decoded>),
    /// The CLI asks before a tool call: answer it.
    Ask(PermissionAsk),
    /// The CLI withdrew a request (its id).
    Withdrawn(Value),
    /// The turn ended.
    TurnEnd,
    /// The process is gone: how it ended (or why that is unknown).
    Died(Option<ExitReport>),
}

/// Why a warm process could not be started or used.
#[derive(Debug, thiserror::Error)]
pub enum WarmError {
    /// The supervisor could not start it.
    #[error(transparent)]
    Spawn(#[from] SuperviseError),
    /// It did not open its session in time.
    #[error("the CLI did not open its session within {0:?}")]
    OpenTimeout(Duration),
    /// It refused to open its session.
    #[error("the CLI refused to open the session: {0}")]
    Refused(String),
    /// Its session has another model than the one asked for.
    #[error("{0}")]
    WrongModel(String),
    /// It died before or while opening.
    #[error("the CLI exited while opening its session")]
    DiedOpening,
    /// Its stdin is closed: it is gone or going.
    #[error("the CLI no longer reads its input")]
    Gone,
}

/// A running warm process.
pub struct WarmProcess {
    protocol: Box<dyn WarmProtocol>,
    decoder: Box<dyn Decoder>,
    stdin: mpsc::Sender<Vec<u8>>,
    lines: mpsc::Receiver<OutputLine>,
    control: mpsc::Sender<Control>,
    task: Option<JoinHandle<Result<ExitReport, SuperviseError>>>,
    session_id: Option<String>,
    /// Steps read but not handed out yet.
    queued: std::collections::VecDeque<Step>,
    turns: u32,
    group: std::sync::Arc<std::sync::OnceLock<u32>>,
}

impl std::fmt::Debug for WarmProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarmProcess")
            .field("protocol", &self.protocol)
            .field("session_id", &self.session_id)
            .field("turns", &self.turns)
            .finish_non_exhaustive()
    }
}

impl WarmProcess {
    /// Start the process and open its session (waiting for the CLI to
    /// name it when its protocol needs that).
    pub async fn start(start: WarmStart) -> Result<WarmProcess, WarmError> {
        let WarmStart {
            mut invocation,
            mut supervisor,
            protocol,
            decoder,
            open_timeout,
        } = start;
        if invocation.stdin.is_none() {
            invocation.stdin = Some(Vec::new());
        }
        let (lines_tx, lines) = mpsc::channel(256);
        let (control, control_rx) = mpsc::channel(8);
        let (stdin, more) = mpsc::channel(64);
        let group = std::sync::Arc::new(std::sync::OnceLock::new());
        supervisor.spawned = Some(group.clone());
        let task = tokio::spawn(supervise_with_stdin(
            invocation,
            supervisor,
            lines_tx,
            control_rx,
            Some(more),
        ));
        let mut process = WarmProcess {
            protocol,
            decoder,
            stdin,
            lines,
            control,
            task: Some(task),
            session_id: None,
            queued: std::collections::VecDeque::new(),
            turns: 0,
            group,
        };
        let open = process.protocol.open();
        process.write(open).await?;
        if !process.protocol.opened_at_start() {
            match tokio::time::timeout(open_timeout, process.wait_opened()).await {
                Ok(result) => result?,
                Err(_) => {
                    process.kill().await;
                    return Err(WarmError::OpenTimeout(open_timeout));
                }
            }
        }
        if process.protocol.replays_after_open() {
            process.drop_replay().await?;
        }
        Ok(process)
    }

    /// Read and drop what the CLI prints after opening until it has been
    /// quiet for [`REPLAY_QUIET`] (at most [`REPLAY_LIMIT`]).
    async fn drop_replay(&mut self) -> Result<(), WarmError> {
        let until = tokio::time::Instant::now() + REPLAY_LIMIT;
        loop {
            let quiet = (tokio::time::Instant::now() + REPLAY_QUIET).min(until);
            match tokio::time::timeout_at(quiet, self.lines.recv()).await {
                Ok(Some(line)) => {
                    if line.stream == Stream::Stdout {
                        for inbound in self.protocol.read(&line.bytes) {
                            if let Inbound::Reply(reply) = inbound {
                                self.write(vec![reply]).await?;
                            }
                        }
                    }
                }
                Ok(None) => return Err(WarmError::DiedOpening),
                Err(_) => break,
            }
        }
        self.protocol.replay_done();
        Ok(())
    }

    async fn wait_opened(&mut self) -> Result<(), WarmError> {
        loop {
            let Some(line) = self.lines.recv().await else {
                return Err(WarmError::DiedOpening);
            };
            if line.stream != Stream::Stdout {
                continue;
            }
            for inbound in self.protocol.read(&line.bytes) {
                match inbound {
                    Inbound::Opened { session_id } => {
                        self.session_id = Some(session_id);
                        return Ok(());
                    }
                    Inbound::Refused(why) => return Err(WarmError::Refused(why)),
                    Inbound::WrongModel(why) => return Err(WarmError::WrongModel(why)),
                    Inbound::Reply(reply) => self.write(vec![reply]).await?,
                    _ => {}
                }
            }
        }
    }

    async fn write(&mut self, lines: Vec<String>) -> Result<(), WarmError> {
        for mut line in lines {
            line.push('\n');
            self.stdin
                .send(line.into_bytes())
                .await
                .map_err(|_| WarmError::Gone)?;
        }
        Ok(())
    }

    /// The CLI's session id, once it named it.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The process group's id (its leader's pid), once spawned.
    pub fn process_group(&self) -> Option<u32> {
        self.group.get().copied()
    }

    /// Where the process group's id is written when the process is
    /// spawned (which may come after this call returns).
    pub fn process_group_cell(&self) -> std::sync::Arc<std::sync::OnceLock<u32>> {
        self.group.clone()
    }

    /// Turns started so far in this process.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Whether the process may still take a turn: its supervisor still
    /// runs, its input is open, and its process group still has a member
    /// (a group killed a moment ago is seen before the supervisor is).
    pub fn is_alive(&self) -> bool {
        let group = match self.process_group() {
            Some(pgid) => i32::try_from(pgid).is_ok_and(|g| {
                nix::sys::signal::killpg(nix::unistd::Pid::from_raw(g), None).is_ok()
            }),
            None => true,
        };
        group && self.task.as_ref().is_some_and(|t| !t.is_finished()) && !self.stdin.is_closed()
    }

    /// Start a turn with `prompt`; then read its steps with [`Self::next`].
    pub async fn send_turn(&mut self, prompt: &str) -> Result<(), WarmError> {
        self.turns += 1;
        let lines = self.protocol.turn(prompt);
        self.write(lines).await
    }

    /// The next step of the running turn.
    pub async fn next(&mut self) -> Step {
        loop {
            if let Some(step) = self.queued.pop_front() {
                return step;
            }
            let Some(line) = self.lines.recv().await else {
                let report = match self.task.take() {
                    Some(task) => task.await.ok().and_then(Result::ok),
                    None => None,
                };
                return Step::Died(report);
            };
            let mut decoded = Vec::new();
            if let Some(original) = line.cut_from {
                // Over the line limit: neither the protocol nor the decoder
                // can read its first bytes; they are kept, said to be cut.
                let raw = RawEvent::cut(line.stream.raw(), &line.bytes, original);
                self.queued
                    .push_back(Step::Output(vec![Decoded::Event(EventBody::Raw(raw))]));
                continue;
            }
            if line.stream == Stream::Stderr {
                self.decoder.stderr_line(&line.bytes, &mut decoded);
                if !decoded.is_empty() {
                    self.queued.push_back(Step::Output(decoded));
                }
                continue;
            }
            for inbound in self.protocol.read(&line.bytes) {
                match inbound {
                    Inbound::Output(bytes) => {
                        let mut out = Vec::new();
                        self.decoder.stdout_line(&bytes, &mut out);
                        if !out.is_empty() {
                            self.queued.push_back(Step::Output(out));
                        }
                    }
                    Inbound::Ask(ask) => self.queued.push_back(Step::Ask(ask)),
                    Inbound::Withdrawn(id) => self.queued.push_back(Step::Withdrawn(id)),
                    Inbound::TurnEnd => self.queued.push_back(Step::TurnEnd),
                    Inbound::Reply(reply) => {
                        // A refusal the CLI waits for; a write failure
                        // shows as the process's death next.
                        let _ = self.write(vec![reply]).await;
                    }
                    Inbound::Opened { session_id } => self.session_id = Some(session_id),
                    Inbound::Refused(why) | Inbound::WrongModel(why) => {
                        self.queued
                            .push_back(Step::Output(vec![Decoded::ProviderError(
                                agentgate_providers::decode::ProviderError {
                                    message: why,
                                    http_status: None,
                                    code: None,
                                    terminal: true,
                                },
                            )]));
                        self.queued.push_back(Step::TurnEnd);
                    }
                    Inbound::Nothing => {}
                }
            }
        }
    }

    /// Answer `ask`.
    pub async fn answer(&mut self, ask: &PermissionAsk, answer: &Answer) -> Result<(), WarmError> {
        let lines = self.protocol.answer(ask, answer);
        self.write(lines).await
    }

    /// Interrupt the running turn (it still ends with [`Step::TurnEnd`]).
    pub async fn interrupt(&mut self) -> Result<(), WarmError> {
        let lines = self.protocol.interrupt();
        self.write(lines).await
    }

    /// End the process now (SIGKILL to everything it started) and wait
    /// for it.
    pub async fn kill(&mut self) -> Option<ExitReport> {
        let _ = self.control.send(Control::Cancel { immediate: true }).await;
        self.wait().await
    }

    /// Close its input (the CLI ends by itself), running the termination
    /// table after `grace` if it does not, and wait for it.
    pub async fn close(mut self, grace: Duration) -> Option<ExitReport> {
        let (closed, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.stdin, closed));
        let task = self.task.take()?;
        tokio::pin!(task);
        tokio::select! {
            done = &mut task => done.ok().and_then(Result::ok),
            () = tokio::time::sleep(grace) => {
                let _ = self.control.send(Control::Cancel { immediate: false }).await;
                task.await.ok().and_then(Result::ok)
            }
        }
    }

    async fn wait(&mut self) -> Option<ExitReport> {
        // Drain the output so the supervisor is never blocked on it.
        while self.lines.recv().await.is_some() {}
        let task = self.task.take()?;
        task.await.ok().and_then(Result::ok)
    }
}
