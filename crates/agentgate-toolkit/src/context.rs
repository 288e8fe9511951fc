//! The run's variables and the protocol's messages.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use agentgate_protocol::{
    ActionRequiredMessage, ArtifactRef, CancelledMessage, ErrorMessage, HeartbeatMessage,
    LogMessage, ProgressMessage, ResultMessage, StartMessage, TOOL_PROTOCOL_VERSION, ToolMessage,
    ToolMessageBody,
};
use jiff::Timestamp;
use serde_json::{Map, Value};

/// Why a tool should stop now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// `CANCEL_FILE` exists: emit `cancelled` and exit (130 by convention).
    Cancelled,
    /// `DEADLINE_TS` passed: emit an `E_DEADLINE` error and exit.
    Deadline,
}

/// What the runner told the tool, and the way to talk back.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// `RUN_ID` (empty when run by hand).
    pub run_id: String,
    /// `TRACE_ID`.
    pub trace_id: Option<String>,
    /// `WORKSPACE`, else the current folder.
    pub workspace: PathBuf,
    /// `LOG_DIR`.
    pub log_dir: Option<PathBuf>,
    /// `CANCEL_FILE`.
    pub cancel_file: Option<PathBuf>,
    /// `DEADLINE_TS`.
    pub deadline: Option<Timestamp>,
}

impl ToolContext {
    /// The context from the environment the runner set.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Self {
            run_id: var("RUN_ID").unwrap_or_default(),
            trace_id: var("TRACE_ID"),
            workspace: var("WORKSPACE")
                .map(PathBuf::from)
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from(".")),
            log_dir: var("LOG_DIR").map(PathBuf::from),
            cancel_file: var("CANCEL_FILE").map(PathBuf::from),
            deadline: var("DEADLINE_TS").and_then(|ts| ts.parse().ok()),
        }
    }

    /// Whether to stop: the cancel file exists, or the deadline passed.
    pub fn should_stop(&self) -> Option<Stop> {
        if self.cancel_file.as_deref().is_some_and(Path::exists) {
            return Some(Stop::Cancelled);
        }
        if self.deadline.is_some_and(|d| Timestamp::now() >= d) {
            return Some(Stop::Deadline);
        }
        None
    }

    /// A path as the tool should open it: relative paths are relative to
    /// the workspace.
    pub fn resolve(&self, path: impl AsRef<Path>) -> PathBuf {
        self.workspace.join(path)
    }

    /// Prints one message, with `v`, `ts`, `run_id` and `trace_id` filled.
    pub fn emit(&self, body: ToolMessageBody) -> std::io::Result<()> {
        let message = ToolMessage {
            v: Some(TOOL_PROTOCOL_VERSION),
            ts: Some(Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()),
            run_id: Some(self.run_id.clone()),
            trace_id: self.trace_id.clone(),
            span_id: None,
            body,
        };
        let mut line = serde_json::to_vec(&message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut out = std::io::stdout().lock();
        out.write_all(&line)?;
        out.flush()
    }

    /// `start`: the step begins.
    pub fn start(&self, step: &str, args: Value) -> std::io::Result<()> {
        self.emit(ToolMessageBody::Start(StartMessage {
            step: Some(step.to_owned()),
            args: Some(args),
            extra: Map::new(),
        }))
    }

    /// `progress`: `pct` of 100 done.
    pub fn progress(&self, step: &str, pct: f64, msg: &str) -> std::io::Result<()> {
        self.emit(ToolMessageBody::Progress(ProgressMessage {
            step: Some(step.to_owned()),
            pct: serde_json::Number::from_f64(pct),
            msg: Some(msg.to_owned()),
            extra: Map::new(),
        }))
    }

    /// `heartbeat`: alive.
    pub fn heartbeat(&self, step: &str) -> std::io::Result<()> {
        self.emit(ToolMessageBody::Heartbeat(HeartbeatMessage {
            step: Some(step.to_owned()),
            extra: Map::new(),
        }))
    }

    /// `action_required`: a decision is needed.
    pub fn action_required(&self, action: &str, context: Value) -> std::io::Result<()> {
        self.emit(ToolMessageBody::ActionRequired(ActionRequiredMessage {
            action: action.to_owned(),
            context: Some(context),
            extra: Map::new(),
        }))
    }

    /// `result` with status `ok`.
    pub fn result(
        &self,
        artifacts: Vec<ArtifactRef>,
        metrics: Map<String, Value>,
    ) -> std::io::Result<()> {
        self.emit(ToolMessageBody::Result(ResultMessage {
            status: "ok".to_owned(),
            artifacts,
            metrics: Some(metrics),
            extra: Map::new(),
        }))
    }

    /// `error` with a code of the error-code registry.
    pub fn error(&self, code: &str, msg: &str, hint: &str) -> std::io::Result<()> {
        self.emit(ToolMessageBody::Error(ErrorMessage {
            code: code.to_owned(),
            msg: Some(msg.to_owned()),
            hint: Some(hint.to_owned()).filter(|h| !h.is_empty()),
            retryable: None,
            extra: Map::new(),
        }))
    }

    /// `cancelled`.
    pub fn cancelled(&self, reason: &str) -> std::io::Result<()> {
        self.emit(ToolMessageBody::Cancelled(CancelledMessage {
            reason: Some(reason.to_owned()),
            extra: Map::new(),
        }))
    }

    /// `log`.
    pub fn log(&self, level: &str, msg: &str) -> std::io::Result<()> {
        self.emit(ToolMessageBody::Log(LogMessage {
            level: level.to_owned(),
            msg: msg.to_owned(),
            extra: Map::new(),
        }))
    }
}

/// An artifact for a `result`: the file's path as given and its SHA-256.
pub fn artifact(path: &Path) -> std::io::Result<ArtifactRef> {
    use sha2::{Digest as _, Sha256};
    let bytes = std::fs::read(path)?;
    let digest = Sha256::digest(&bytes);
    Ok(ArtifactRef {
        path: path.display().to_string(),
        sha256: Some(digest.iter().map(|b| format!("{b:02x}")).collect()),
        extra: Map::new(),
    })
}
