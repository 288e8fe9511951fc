//! The error taxonomy.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What went wrong, in one word every provider maps onto.
///
/// Each kind has a fixed `recoverable` default ([`ErrorKind::recoverable`]):
/// recoverable means another provider, or the same one later, may succeed
/// with the same request, so failover and retries are worth it.
///
/// | kind | recoverable | why |
/// |---|---|---|
/// | `timeout` | yes | the wall-clock deadline passed; a faster provider or a calmer moment may make it |
/// | `idle_timeout` | yes | the agent went silent; usually a stalled stream |
/// | `quota` | yes | a usage limit is exhausted; another provider, or this one after `reset_at` |
/// | `rate_limit` | yes | too many requests; wait `retry_after_s` or fail over |
/// | `overloaded` | yes | the provider is overloaded (HTTP 529/503) |
/// | `invalid_model` | yes | this provider does not know the model; the next agent of a chain names its own model |
/// | `invalid_session` | no | the session to resume is gone; no other provider has it (agentgate recreates a vanished session itself when allowed, see the envelope's `session_recreated`) |
/// | `invalid_input` | no | the request itself is wrong; it fails everywhere |
/// | `auth` | no | the provider rejected the credentials; a human has to log in again |
/// | `credential_unavailable` | yes | no usable credentials for this provider here (not logged in, key missing); another provider or machine may have them |
/// | `network` | yes | the provider could not be reached |
/// | `context_overflow` | no | the conversation no longer fits the model's context; it needs compaction or a smaller prompt |
/// | `invalid_output` | yes | the answer failed the caller's JSON Schema; another try may produce a valid one |
/// | `user_input_requested` | yes | the agent asked its user a question (a CLI's ask tool), which nobody answers in an unattended run; stopped at once, and another agent may not ask |
/// | `cancelled` | no | the caller cancelled the run |
/// | `provider_error` | yes | the provider failed on its side (HTTP 5xx, a crash) |
/// | `session_busy` | yes | another run holds the `--session` (refused with `--session-busy fail`, or waited for past the timeout); later it is free |
/// | `tool_error` | no | a deterministic tool (`agentgate tool`) failed; its error code's registry entry says whether a retry may help, and the envelope's `recoverable` carries that |
/// | `policy` | no | the tool policy refused the tool before it started; change the policy or the manifest |
/// | `max_turns` | no | the agent used the turns the caller allowed (`--max-turns`) without finishing; the same limit stops it again |
/// | `budget` | no | the run passed a budget (`--max-cost`, `--max-tokens`, `budgets:`) and its CLI was stopped, a budget window was spent before it started (`reset_at`: when it starts again), or it crossed a limit on its model use (calls, tokens, model time) that its gateway enforces; the same request passes it again |
/// | `unknown` | no | not classified; retrying blindly could repeat side effects |
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum ErrorKind {
    /// The run's wall-clock deadline passed.
    #[serde(rename = "timeout")]
    Timeout,
    /// The agent printed nothing for longer than the idle limit.
    #[serde(rename = "idle_timeout")]
    IdleTimeout,
    /// A usage limit (plan, credits, daily quota) is exhausted.
    #[serde(rename = "quota")]
    Quota,
    /// Too many requests in a short time (HTTP 429 without exhausted quota).
    #[serde(rename = "rate_limit")]
    RateLimit,
    /// The provider is overloaded.
    #[serde(rename = "overloaded")]
    Overloaded,
    /// The provider does not know or does not offer the model.
    #[serde(rename = "invalid_model")]
    InvalidModel,
    /// The session to resume does not exist (any more).
    #[serde(rename = "invalid_session")]
    InvalidSession,
    /// The request is invalid (bad arguments, unreadable prompt, bad schema).
    #[serde(rename = "invalid_input")]
    InvalidInput,
    /// The provider rejected the credentials.
    #[serde(rename = "auth")]
    Auth,
    /// No usable credentials for the provider on this machine.
    #[serde(rename = "credential_unavailable")]
    CredentialUnavailable,
    /// The provider could not be reached.
    #[serde(rename = "network")]
    Network,
    /// The prompt or conversation exceeds the model's context window.
    #[serde(rename = "context_overflow")]
    ContextOverflow,
    /// The answer does not match the caller's JSON Schema.
    #[serde(rename = "invalid_output")]
    InvalidOutput,
    /// The agent asked its user a question, which nobody answers.
    #[serde(rename = "user_input_requested")]
    UserInputRequested,
    /// The run was cancelled.
    #[serde(rename = "cancelled")]
    Cancelled,
    /// The provider failed on its side.
    #[serde(rename = "provider_error")]
    ProviderError,
    /// Another run holds the session the run asked for.
    #[serde(rename = "session_busy")]
    SessionBusy,
    /// A deterministic tool failed (see the tool envelope's `code`).
    #[serde(rename = "tool_error")]
    ToolError,
    /// The tool policy refused the tool before it started.
    #[serde(rename = "policy")]
    Policy,
    /// The agent reached the caller's limit on turns (`--max-turns`).
    #[serde(rename = "max_turns")]
    MaxTurns,
    /// The run crossed one of its limits on model use (model calls, input
    /// or output tokens, wall time of model calls), enforced by its gateway.
    #[serde(rename = "budget")]
    Budget,
    /// Not classified.
    #[serde(rename = "unknown")]
    Unknown,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 22] = [
        Self::Timeout,
        Self::IdleTimeout,
        Self::Quota,
        Self::RateLimit,
        Self::Overloaded,
        Self::InvalidModel,
        Self::InvalidSession,
        Self::InvalidInput,
        Self::Auth,
        Self::CredentialUnavailable,
        Self::Network,
        Self::ContextOverflow,
        Self::InvalidOutput,
        Self::UserInputRequested,
        Self::Cancelled,
        Self::ProviderError,
        Self::SessionBusy,
        Self::ToolError,
        Self::Policy,
        Self::MaxTurns,
        Self::Budget,
        Self::Unknown,
    ];

    /// Whether another provider or a later retry may succeed: the fixed
    /// default of the table on [`ErrorKind`].
    pub const fn recoverable(self) -> bool {
        match self {
            Self::Timeout
            | Self::IdleTimeout
            | Self::Quota
            | Self::RateLimit
            | Self::Overloaded
            | Self::InvalidModel
            | Self::CredentialUnavailable
            | Self::Network
            | Self::InvalidOutput
            | Self::UserInputRequested
            | Self::ProviderError
            | Self::SessionBusy => true,
            Self::InvalidSession
            | Self::InvalidInput
            | Self::Auth
            | Self::ContextOverflow
            | Self::Cancelled
            | Self::ToolError
            | Self::Policy
            | Self::MaxTurns
            | Self::Budget
            | Self::Unknown => false,
        }
    }

    /// The wire name, e.g. `"rate_limit"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Timeout => "timeout",
            Self::IdleTimeout => "idle_timeout",
            Self::Quota => "quota",
            Self::RateLimit => "rate_limit",
            Self::Overloaded => "overloaded",
            Self::InvalidModel => "invalid_model",
            Self::InvalidSession => "invalid_session",
            Self::InvalidInput => "invalid_input",
            Self::Auth => "auth",
            Self::CredentialUnavailable => "credential_unavailable",
            Self::Network => "network",
            Self::ContextOverflow => "context_overflow",
            Self::InvalidOutput => "invalid_output",
            Self::UserInputRequested => "user_input_requested",
            Self::Cancelled => "cancelled",
            Self::ProviderError => "provider_error",
            Self::SessionBusy => "session_busy",
            Self::ToolError => "tool_error",
            Self::Policy => "policy",
            Self::MaxTurns => "max_turns",
            Self::Budget => "budget",
            Self::Unknown => "unknown",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that names no [`ErrorKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownErrorKind(pub String);

impl fmt::Display for UnknownErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown error kind `{}`", self.0)
    }
}

impl std::error::Error for UnknownErrorKind {}

impl FromStr for ErrorKind {
    type Err = UnknownErrorKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| UnknownErrorKind(s.to_owned()))
    }
}

/// Which evidence classified an error, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ErrorSource {
    /// The provider's structured error fields (Claude's `api_error_status`,
    /// Codex `turn.failed`, opencode's `statusCode`).
    #[serde(rename = "structured")]
    Structured,
    /// The provider CLI's exit status.
    #[serde(rename = "exit_status")]
    ExitStatus,
    /// A text pattern matched the provider's output.
    #[serde(rename = "pattern")]
    Pattern,
    /// agentgate raised it itself: a deadline, a cancellation, a request it
    /// refused, an answer that failed the caller's schema.
    #[serde(rename = "internal")]
    Internal,
}

/// A classified error: the body of an `error` event, and the source of the
/// envelope's `error`, `error_type` and `recoverable` fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorInfo {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Human-readable message, usually the provider's own words.
    pub message: String,
    /// Whether another provider or a later retry may succeed. Starts as
    /// `kind.recoverable()`; structured provider data may override it (e.g.
    /// opencode's `isRetryable`).
    pub recoverable: bool,
    /// Exit status of the provider CLI, if it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Seconds to wait before retrying, when the provider said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
    /// When the exhausted limit resets: RFC 3339, UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub reset_at: Option<String>,
    /// HTTP status of the failed provider request, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_status: Option<u16>,
    /// A tool run's error code and hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<Box<ToolErrorCode>>,
    /// Which evidence classified the error.
    pub source: ErrorSource,
}

impl ErrorInfo {
    /// An error of `kind` with its default `recoverable` and nothing else
    /// known.
    pub fn new(kind: ErrorKind, source: ErrorSource, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            recoverable: kind.recoverable(),
            exit_code: None,
            retry_after_s: None,
            reset_at: None,
            provider_status: None,
            tool: None,
            source,
        }
    }
}

/// The error code of a tool run, in its `error` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolErrorCode {
    /// The code: the tool's own (`E_INPUT_NOT_FOUND`) or the runner's
    /// (`E_TIMEOUT`, `E_HEARTBEAT_MISSED`, …).
    pub code: String,
    /// What to do about it, if the tool said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}
