//! The body of each event type, one struct per type.
//!
//! None of these may have a field named `v`, `ts`, `run_id`, `seq`,
//! `provider`, `attempt` or `type`: they share one JSON object with the
//! [`Event`](super::Event) header.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::envelope::Envelope;
use crate::tool::ToolClass;
use crate::tool_protocol::ToolMessage;
use crate::usage::Usage;

/// Body of `start`: an attempt is about to spawn its provider CLI. The
/// provider and attempt number are in the event header.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StartEvent {
    /// Name of the agent (chain entry) this attempt runs, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The model requested from the provider, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The native session id this attempt resumes, if it resumes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_session_id: Option<String>,
    /// The working directory of the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// A tool run: the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// A tool run: the tool's arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
}

/// Body of `session`: the provider's native session id became known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionEvent {
    /// The provider's own session (thread, conversation) id, usable to resume.
    pub session_id: String,
    /// The model the provider reports it uses, if it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Body of `text_delta`: a fragment of assistant text. Concatenating the
/// fragments in `seq` order gives the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TextDeltaEvent {
    /// The fragment.
    pub text: String,
}

/// Body of `message`: one complete assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MessageEvent {
    /// The full text of the message.
    pub text: String,
}

/// Body of `thinking`: reasoning text the model exposed, a whole block or a
/// fragment of one, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThinkingEvent {
    /// The reasoning text.
    pub text: String,
}

/// Body of `tool_use`: the agent called a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolUseEvent {
    /// The call id, matching the later `tool_result`. Providers that give no
    /// id get one made up by agentgate.
    pub id: String,
    /// The tool's name as the provider declares it (`Bash`, `exec_command`, …).
    pub name: String,
    /// What kind of tool it is.
    pub class: ToolClass,
    /// The call's arguments, as the provider sent them.
    pub input: Value,
}

/// Body of `tool_result`: a tool call finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolResultEvent {
    /// The id of the matching `tool_use`.
    pub id: String,
    /// Whether the tool reported success.
    pub ok: bool,
    /// The tool's output, possibly truncated (see `truncated`).
    pub output: String,
    /// Whether `output` was cut short.
    #[serde(default)]
    pub truncated: bool,
    /// Length in bytes of the whole output, present when `truncated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_bytes: Option<u64>,
    /// Exit status of a shell command, when the tool ran one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

impl ToolResultEvent {
    /// A result whose output keeps at most `max_bytes` bytes, cut at a UTF-8
    /// character boundary; `truncated` and `original_bytes` say whether and
    /// from what it was cut.
    pub fn new(
        id: impl Into<String>,
        ok: bool,
        output: &str,
        max_bytes: usize,
        exit_code: Option<i32>,
    ) -> Self {
        let (output, truncated, original_bytes) = if output.len() <= max_bytes {
            (output.to_owned(), false, None)
        } else {
            let mut end = max_bytes;
            while !output.is_char_boundary(end) {
                end -= 1;
            }
            let original = u64::try_from(output.len()).unwrap_or(u64::MAX);
            (output[..end].to_owned(), true, Some(original))
        };
        Self {
            id: id.into(),
            ok,
            output,
            truncated,
            original_bytes,
            exit_code,
        }
    }
}

/// What the figures of a `usage` event cover.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum UsageScope {
    /// One model turn or step: consumers add these up.
    #[default]
    #[serde(rename = "turn")]
    Turn,
    /// Totals of the attempt so far: they replace earlier figures.
    #[serde(rename = "total")]
    Total,
}

/// Body of `usage`: token and cost figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsageEvent {
    /// Whether the figures are per turn (add up) or totals (replace).
    #[serde(default)]
    pub scope: UsageScope,
    /// The figures.
    pub usage: Usage,
}

/// Whether a rate or usage limit still admits requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum RateLimitStatus {
    /// Requests are admitted.
    #[serde(rename = "allowed")]
    Allowed,
    /// Requests are admitted but the limit is close.
    #[serde(rename = "warning")]
    Warning,
    /// The limit is reached: requests are refused until `resets_at`.
    #[serde(rename = "rejected")]
    Rejected,
}

/// Body of `rate_limit`: the provider reported the state of a limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RateLimitEvent {
    /// Whether requests are still admitted.
    pub status: RateLimitStatus,
    /// When the limit resets: RFC 3339, UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub resets_at: Option<String>,
    /// Which limit, in the provider's words (`five_hour`, `seven_day`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// How much of the limit is used, from 0.0 to 1.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization: Option<f64>,
}

/// Body of `status`: something the provider did or said that is neither
/// output nor an error, tagged by `kind`.
// Serialization and schema come from the derive; deserialization goes
// through a hand-written impl (`status_kind.rs`) so that an unknown `kind`
// becomes `StatusEvent::Unknown` while a known `kind` with malformed fields
// is still an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", tag = "kind")]
pub enum StatusEvent {
    /// The provider retries a failed request itself.
    #[serde(rename = "retry")]
    Retry {
        /// Which retry this is, from 1 (the provider's count, not agentgate's
        /// `attempt`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_attempt: Option<u32>,
        /// How many retries the provider will make at most.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_retries: Option<u32>,
        /// How long the provider waits before this retry, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delay_ms: Option<u64>,
        /// HTTP status of the failed request, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_status: Option<u16>,
        /// The provider's reason, as it gave it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// The provider compacted (summarized) the conversation to fit its context.
    #[serde(rename = "compaction")]
    Compaction {
        /// Context size before compaction, in tokens, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tokens_before: Option<u64>,
        /// The provider's description, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// Any other notice worth showing: the provider's, or agentgate's own
    /// before the CLI starts when it runs the CLI otherwise than asked (a
    /// flag the CLI cannot take left out, a mode mapped onto one it has).
    #[serde(rename = "notice")]
    Notice {
        /// The notice text.
        detail: String,
    },
    /// agentgate's own: an attempt failed with a recoverable error and the
    /// run goes on with the next agent or provider of its chain (the
    /// attempt's own end; the run's `error` event comes only at its end).
    #[serde(rename = "failover")]
    Failover {
        /// The attempt that failed: its agent and provider (`reviewer
        /// (claude)`), or its provider's name.
        from: String,
        /// What runs next, named the same way.
        to: String,
        /// The failed attempt's error type.
        error_type: crate::error::ErrorKind,
        /// The failed attempt's error message.
        message: String,
    },
    /// agentgate's own: a step of the chain was not started, and the run
    /// goes on with the next (the envelope's attempt for it has `skipped:
    /// true`): its provider's quota is known exhausted or held until a time
    /// still ahead (`--ignore-quota` tries it anyway), or its agent's budget
    /// window is spent. Written where the attempt would have started, under
    /// the attempt number it takes.
    #[serde(rename = "skipped")]
    Skipped {
        /// The step skipped: its agent and provider (`reviewer (claude)`),
        /// or its provider's name (named as `failover`'s `from`; the
        /// header's `provider` is its provider).
        step: String,
        /// Why: `quota` (its provider's quota, or its account's, is
        /// exhausted or held) or `budget` (its agent's budget window is
        /// spent).
        error_type: crate::error::ErrorKind,
        /// When the quota or the budget window resets, RFC 3339 in UTC;
        /// absent when not known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(extend("format" = "date-time"))]
        reset_at: Option<String>,
        /// Why, in words (`skipped claude: its quota is exhausted until
        /// …`): the skipped attempt's `error` in the envelope.
        message: String,
    },
    /// agentgate's own: the attempt's wall-clock deadline (`timeout`) is
    /// near (`timeout_warn`). The attempt goes on.
    #[serde(rename = "timeout_warning")]
    TimeoutWarning {
        /// Time left until the deadline, in milliseconds.
        remaining_ms: u64,
        /// Time since the CLI started, in milliseconds.
        elapsed_ms: u64,
        /// When the deadline falls, RFC 3339 in UTC.
        #[schemars(extend("format" = "date-time"))]
        deadline: String,
    },
    /// agentgate's own: the run has spent `warn_at` (80% unless the config
    /// says otherwise) of one of its budgets (`--max-cost`, `--max-tokens`,
    /// `budgets:`). The run goes on; past the budget it is stopped with
    /// `budget`.
    #[serde(rename = "budget_warning")]
    BudgetWarning {
        /// Which budget, in words (`the run's limit`, `the day budget of
        /// agent reviewer`).
        budget: String,
        /// `cost` (USD) or `tokens`.
        measure: String,
        /// What the budget's window has spent with this run so far.
        spent: f64,
        /// The budget.
        limit: f64,
        /// `spent / limit`.
        share: f64,
    },
    /// agentgate's own: the deadline came while the CLI was still printing
    /// (within `extend_on_activity`), so it moved later, never past
    /// `max_timeout` from the CLI's start.
    #[serde(rename = "timeout_extended")]
    TimeoutExtended {
        /// How far the deadline moved, in milliseconds.
        extended_by_ms: u64,
        /// Time left until the new deadline, in milliseconds.
        remaining_ms: u64,
        /// Time since the CLI started, in milliseconds.
        elapsed_ms: u64,
        /// The new deadline, RFC 3339 in UTC.
        #[schemars(extend("format" = "date-time"))]
        deadline: String,
    },
    /// A status whose `kind` this version does not know (written by a newer
    /// agentgate): all its body fields, `kind` included, kept as they came.
    /// It serializes back unchanged. Never written by this version, so it is
    /// not part of the JSON Schema.
    #[serde(skip)]
    #[schemars(skip)]
    Unknown(serde_json::Map<String, Value>),
}

/// Body of `answer_chunk`: a readable piece of the answer text as it
/// streamed (`text_delta`, or `message` where the CLI gives whole
/// messages), cut at a paragraph, sentence or line, never inside a word or
/// an open code fence. The chunks of one follower concatenate exactly to
/// the text it streamed; they are a view made by the follower that asked
/// for them, not events of the run's stored stream (they carry the header
/// of the event after which they were cut, its `seq` included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AnswerChunkEvent {
    /// The chunk's text.
    pub text: String,
    /// The chunk's number in this follower's stream, from 0.
    pub index: u64,
    /// Where the chunk starts in the streamed text, in bytes of UTF-8.
    pub offset: u64,
    /// Why it was cut here: `paragraph`, `sentence`, `line`, `word`,
    /// `size`, `idle`, `message` (a message ended) or `end` (the text ended).
    pub boundary: String,
}

/// Body of `heartbeat`: emitted while the agent is silent, so a consumer can
/// tell a quiet run from a dead one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HeartbeatEvent {
    /// Time since the run started, in milliseconds.
    pub elapsed_ms: u64,
    /// Time since the agent last wrote anything, in milliseconds.
    pub idle_ms: u64,
}

/// Severity of a `log` event.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum LogLevel {
    /// Something failed.
    #[serde(rename = "error")]
    Error,
    /// Something looks wrong but the run goes on.
    #[serde(rename = "warn")]
    Warn,
    /// Progress worth knowing.
    #[serde(rename = "info")]
    Info,
    /// Detail for debugging.
    #[serde(rename = "debug")]
    Debug,
}

/// Body of `log`: a diagnostic message from agentgate itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogEvent {
    /// Severity.
    pub level: LogLevel,
    /// The message.
    pub message: String,
}

/// Why a run was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CancelReason {
    /// agentgate received a signal (see `signal`).
    #[serde(rename = "signal")]
    Signal,
    /// The caller asked for it through the library or the API.
    #[serde(rename = "request")]
    Request,
    /// agentgate (a worker, the server) is shutting down.
    #[serde(rename = "shutdown")]
    Shutdown,
}

/// Body of `cancelled`: the run was cancelled and its agent stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CancelledEvent {
    /// Why.
    pub reason: CancelReason,
    /// The signal's name (`SIGINT`, `SIGTERM`) when `reason` is `signal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
}

/// Body of `result`: the run finished. Always the last event of a stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultEvent {
    /// The final result, identical to what `agentgate run` prints without
    /// streaming.
    pub envelope: Box<Envelope>,
}

/// Body of `tool_message`: one message of a tool run's tool, as it printed
/// it (see [`ToolMessage`]). Its own `v`, `ts` and `run_id` are kept inside
/// `message`; the event's header is the runner's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolMessageEvent {
    /// The message.
    pub message: ToolMessage,
}
