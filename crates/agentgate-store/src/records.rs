//! The records the store keeps: plain data, no I/O.
//!
//! Every record serializes with serde (timestamps as RFC 3339 in UTC), so a
//! command such as `agentgate runs --json` can print them as they are.

use std::fmt;
use std::str::FromStr;

use agentgate_protocol::{Envelope, ErrorKind, Labels, RateLimitStatus, RateLimitWindow, Usage};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::owner::{OwnerState, RunOwner};

/// A run as recorded when it starts (`insert_run`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The run's id, as in its events. Letters, digits, `-`, `_` and `.`
    /// only: it names the run's folder.
    pub run_id: String,
    /// When the run started.
    pub started_at: Timestamp,
    /// The providers requested, in failover order (one entry for a plain run).
    pub providers: Vec<String>,
    /// The model requested, if any.
    pub model: Option<String>,
    /// The logical session name the run continues or starts, if any.
    pub session: Option<String>,
    /// The working directory of the agent.
    pub cwd: Option<String>,
    /// Size of the prompt in bytes (the prompt itself is not stored).
    pub prompt_bytes: u64,
    /// What ran: an agent CLI, a deterministic tool or a workflow. For a
    /// tool run, `providers` holds the tool's name and `prompt_bytes` is 0.
    #[serde(default)]
    pub kind: RunKind,
    /// The run that started this one: the agent run whose CLI called the
    /// tool through `agentgate mcp`.
    #[serde(default)]
    pub parent_run_id: Option<String>,
    /// The run's labels (`--label key=value`), kept in the side table
    /// `labels` (indexed by key and value, see [`crate::RunStore::list_runs_labelled`]).
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub labels: Labels,
}

/// What a run ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// An agent CLI (`agentgate run`).
    #[default]
    Agent,
    /// A deterministic tool (`agentgate tool`, a call through `agentgate mcp`).
    Tool,
    /// A workflow: a run of a workflow file's steps whose event history is
    /// its checkpoint, so that a later process can resume it.
    Workflow,
}

impl RunKind {
    /// Every kind.
    pub const ALL: [RunKind; 3] = [Self::Agent, Self::Tool, Self::Workflow];

    /// The stored name, e.g. `"tool"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Tool => "tool",
            Self::Workflow => "workflow",
        }
    }
}

impl fmt::Display for RunKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RunKind {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| UnknownName(s.to_owned()))
    }
}

/// Where a run is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Started and not finished, its owner process still there (or on
    /// another host, where it cannot be checked).
    Running,
    /// Finished without error.
    Succeeded,
    /// Finished with an error other than a cancellation.
    Failed,
    /// Cancelled by the caller (error type `cancelled`).
    Cancelled,
    /// Never finished: stored as running, but the agentgate process that ran
    /// it is gone (killed, crashed, the machine restarted). Computed when
    /// read, from the run's [`RunOwner`](crate::RunOwner); never stored.
    Abandoned,
}

impl RunStatus {
    /// Every status.
    pub const ALL: [RunStatus; 5] = [
        Self::Running,
        Self::Succeeded,
        Self::Failed,
        Self::Cancelled,
        Self::Abandoned,
    ];

    /// The status of a finished run with this envelope.
    pub fn of_envelope(envelope: &Envelope) -> Self {
        match envelope.error_type {
            None => Self::Succeeded,
            Some(ErrorKind::Cancelled) => Self::Cancelled,
            Some(_) => Self::Failed,
        }
    }

    /// The stored name, e.g. `"succeeded"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Abandoned => "abandoned",
        }
    }
}

/// The status to show for a run stored with `stored` and `owner`: a
/// `running` run whose owner is gone is [`RunStatus::Abandoned`]. Every read
/// of every backend goes through this, so the HTTP API, `runs` and `runs
/// show` agree.
pub fn effective_status(stored: RunStatus, owner: Option<&RunOwner>) -> RunStatus {
    match (stored, owner) {
        (RunStatus::Running, Some(owner)) if owner.state() == OwnerState::Gone => {
            RunStatus::Abandoned
        }
        _ => stored,
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RunStatus {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| UnknownName(s.to_owned()))
    }
}

/// A run as listed: what it asked for and, once finished, how it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// What was recorded at the start.
    pub record: RunRecord,
    /// Where the run is. A run stored as running whose owner is gone reads
    /// as [`RunStatus::Abandoned`].
    pub status: RunStatus,
    /// The process that runs (or ran) it; `None` for runs recorded before
    /// owners were stored.
    pub owner: Option<RunOwner>,
    /// When the run finished; `None` while running.
    pub ended_at: Option<Timestamp>,
    /// Wall-clock duration in milliseconds, from the envelope.
    pub duration_ms: Option<u64>,
    /// Exit status of `agentgate run` for this result (0 on success).
    pub exit_code: Option<i32>,
    /// The error the run ended with; `None` on success and while running.
    /// A kind this version does not know reads as [`ErrorKind::Unknown`].
    pub error_type: Option<ErrorKind>,
    /// The error message the run ended with.
    pub error: Option<String>,
    /// The provider of the last attempt.
    pub provider: Option<String>,
    /// The model of the last attempt.
    pub final_model: Option<String>,
    /// The provider-native session id the run ended with.
    pub session_id: Option<String>,
    /// Token and cost figures of the whole run; `None` while running.
    pub usage: Option<Usage>,
}

/// A run with everything stored about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDetail {
    /// The listed fields.
    pub summary: RunSummary,
    /// The final envelope, as `finish_run` received it; `None` while running.
    pub envelope: Option<Envelope>,
    /// The attempts, in order of `n`.
    pub attempts: Vec<AttemptRecord>,
}

/// One agent tried during a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// The attempt's number, from 1, as in the events' `attempt`.
    pub n: u32,
    /// The provider (`claude`, `codex`, …).
    pub provider: String,
    /// The agent's name in the failover chain, if it has one.
    pub agent: Option<String>,
    /// The model, as reported or requested.
    pub model: Option<String>,
    /// The provider-native session id, once known.
    pub session_id: Option<String>,
    /// When the attempt started.
    pub started_at: Timestamp,
    /// When it ended; `None` while it runs.
    pub ended_at: Option<Timestamp>,
    /// Wall-clock duration in milliseconds; `None` while it runs.
    pub duration_ms: Option<u64>,
    /// Exit status of the provider CLI; `None` if killed by a signal, never
    /// started, or still running.
    pub exit_code: Option<i32>,
    /// The attempt's error kind; `None` if it succeeded. A kind this version
    /// does not know reads as [`ErrorKind::Unknown`].
    pub error_type: Option<ErrorKind>,
    /// The attempt's error message.
    pub error: Option<String>,
}

/// A logical session: a name the caller chose, bound to a provider's native
/// session id.
///
/// The key is `(name, provider)`: the same name can hold one native session
/// per provider, so a failover chain resumes each provider's own thread. The
/// working directory is recorded, not keyed on: Claude keeps its sessions per
/// directory, so a caller resumes in `cwd` (or refuses to resume elsewhere).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The logical name.
    pub name: String,
    /// The provider the native id belongs to.
    pub provider: String,
    /// The provider's own session (thread, conversation) id.
    pub native_session_id: String,
    /// The working directory the session was last used in.
    pub cwd: Option<String>,
    /// When the name was first stored. `put_session` keeps the stored value
    /// when it updates an existing session.
    pub created_at: Timestamp,
    /// When the session was last stored.
    pub updated_at: Timestamp,
    /// Turns run in the session, as the caller counts them.
    pub turns: u64,
    /// The labels of the run that created the session: `put_session` keeps
    /// the stored ones when it updates an existing session.
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub labels: Labels,
    /// The context length of the session's last turn (the last model
    /// call's prompt + output), when its CLI told it: what
    /// `max_context_tokens` is checked against before the next turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
}

/// One rotation of a session: the turn that started a new native session
/// under the same name instead of resuming the old one, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRotation {
    /// The logical name.
    pub name: String,
    /// The provider the native ids belong to.
    pub provider: String,
    /// When the new native session was stored.
    pub rotated_at: Timestamp,
    /// The run whose turn rotated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The native session left behind.
    pub old_native_id: String,
    /// The native session started in its place (none when the turn did
    /// not get one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_native_id: Option<String>,
    /// Why, in words (`context 180000 tokens > max_context_tokens 150000`).
    pub reason: String,
    /// The old session's last context length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// The limit it passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_context_tokens: Option<u64>,
    /// How the new session was seeded: `none`, `summary` or `prompt`.
    pub handoff: String,
}

/// What is known about a provider's usage limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuotaState {
    /// Whether requests are admitted.
    pub status: QuotaStatus,
    /// When the limit resets, if known.
    pub reset_at: Option<Timestamp>,
    /// Where the state comes from, e.g. `rate_limit_event`, `error:quota`.
    pub source: String,
    /// When the state was learnt.
    pub updated_at: Timestamp,
    /// The provider's words, if any.
    pub message: Option<String>,
    /// The last rate-limit windows the model gateway read off the wire for
    /// this quota key (empty when none was seen: a state learnt only from a
    /// CLI's output, or stored before windows were kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<RateLimitWindow>,
}

/// Whether a provider admits requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuotaStatus {
    /// Requests are admitted.
    Available,
    /// Requests are admitted, but the limit is close.
    Warning,
    /// The limit is reached: requests are refused until `reset_at`.
    Exhausted,
    /// Close enough to the limit that agentgate holds new runs until
    /// `reset_at` (the config's `gateway.quota_hold_above`, read off the
    /// wire): runs skip the provider and queued jobs wait as for
    /// `Exhausted`.
    Held,
}

impl QuotaStatus {
    /// Every status.
    pub const ALL: [QuotaStatus; 4] = [Self::Available, Self::Warning, Self::Exhausted, Self::Held];

    /// The stored name, e.g. `"exhausted"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Available => "available",
            Self::Warning => "warning",
            Self::Exhausted => "exhausted",
            Self::Held => "held",
        }
    }

    /// Whether runs skip the provider (and the queue holds its jobs) until
    /// `reset_at`: exhausted or held.
    pub const fn is_closed(self) -> bool {
        matches!(self, Self::Exhausted | Self::Held)
    }
}

impl From<RateLimitStatus> for QuotaStatus {
    fn from(status: RateLimitStatus) -> Self {
        match status {
            RateLimitStatus::Allowed => Self::Available,
            RateLimitStatus::Warning => Self::Warning,
            RateLimitStatus::Rejected => Self::Exhausted,
        }
    }
}

impl fmt::Display for QuotaStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for QuotaStatus {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| UnknownName(s.to_owned()))
    }
}

/// A string that names no variant of [`RunStatus`], [`RunKind`] or
/// [`QuotaStatus`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName(pub String);

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown name `{}`", self.0)
    }
}

impl std::error::Error for UnknownName {}
