//! The event stream: one JSON object per line, protocol version 1.

mod payloads;
mod raw;
mod status_kind;

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::approval::{ApprovalDecisionEvent, ApprovalRequestEvent};
use crate::error::ErrorInfo;
use crate::workflow::{
    TaskDoneEvent, TaskErrorEvent, TaskStartedEvent, TaskSubmittedEvent, WorkflowStateEvent,
};

pub use payloads::{
    AnswerChunkEvent, CancelReason, CancelledEvent, HeartbeatEvent, LogEvent, LogLevel,
    MessageEvent, RateLimitEvent, RateLimitStatus, ResultEvent, SessionEvent, StartEvent,
    StatusEvent, TextDeltaEvent, ThinkingEvent, ToolMessageEvent, ToolResultEvent, ToolUseEvent,
    UsageEvent, UsageScope,
};
pub use raw::{RawEvent, RawStream};
pub use status_kind::STATUS_KINDS;

/// Version of the event protocol this crate writes, carried in every event's
/// `v` field. Additive changes (new event types, new optional fields) keep the
/// version; anything that changes the meaning of an existing field bumps it.
pub const PROTOCOL_VERSION: u32 = 1;

/// Every `type` value this version of the protocol defines, in the order of
/// [`EventBody`]'s variants. Any other `type` deserializes into
/// [`EventBody::Unknown`].
pub const EVENT_TYPES: &[&str] = &[
    "start",
    "session",
    "text_delta",
    "message",
    "thinking",
    "tool_use",
    "tool_result",
    "usage",
    "rate_limit",
    "model_call",
    "status",
    "heartbeat",
    "log",
    "raw",
    "error",
    "cancelled",
    "result",
    "tool_message",
    "workflow_state",
    "task_submitted",
    "task_started",
    "task_progress",
    "task_error",
    "task_done",
    "approval_request",
    "approval_decision",
    "answer_chunk",
];

/// One event of a run's stream: the common header plus a typed body.
///
/// On the wire the header fields and the body's fields share one flat object:
/// `{"v":1,"ts":"…","run_id":"…","seq":3,"provider":"claude","attempt":1,
/// "type":"text_delta","text":"Hel"}`. `provider` and `attempt` are omitted
/// until a provider attempt has started.
///
/// Deserializing accepts any `v`; a consumer that cares checks it against
/// [`PROTOCOL_VERSION`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    /// Protocol version, [`PROTOCOL_VERSION`] for events this crate writes.
    #[schemars(extend("const" = 1))]
    pub v: u32,
    /// When the event was emitted: RFC 3339 in UTC, e.g.
    /// `2026-05-01T12:00:00.123Z`.
    #[schemars(extend("format" = "date-time"))]
    pub ts: String,
    /// The run this event belongs to.
    pub run_id: String,
    /// Position in the run's stream: starts at 0, gap-free, one stream per
    /// run across all attempts.
    pub seq: u64,
    /// The provider of the current attempt (`claude`, `codex`, …), once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The current attempt, counted from 1 across the failover chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub attempt: Option<u32>,
    /// Present when the event was cut to fit the line limit (32 MiB): its
    /// longest strings were shortened, or, if that could not make it fit,
    /// it is a `log` warning standing for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
    /// The `type` tag and the fields that go with it.
    #[serde(flatten)]
    pub body: EventBody,
}

impl Event {
    /// An event of the current protocol version with no provider or attempt.
    pub fn new(
        run_id: impl Into<String>,
        seq: u64,
        ts: impl Into<String>,
        body: EventBody,
    ) -> Self {
        Self {
            v: PROTOCOL_VERSION,
            ts: ts.into(),
            run_id: run_id.into(),
            seq,
            provider: None,
            attempt: None,
            cut: None,
            body,
        }
    }

    /// The same event attributed to `provider` and `attempt`.
    #[must_use]
    pub fn with_attempt(mut self, provider: impl Into<String>, attempt: u32) -> Self {
        self.provider = Some(provider.into());
        self.attempt = Some(attempt);
        self
    }
}

/// The header field of an event cut to fit the line limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Cut {
    /// The size in bytes of the event's JSON line before it was cut.
    pub original_bytes: u64,
}

/// The typed part of an [`Event`], tagged by `type`.
///
/// Serialization and schema come from the derive; deserialization goes
/// through a hand-written impl so that an unknown `type` becomes
/// [`EventBody::Unknown`] while a known `type` with malformed fields is still
/// an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", tag = "type")]
pub enum EventBody {
    /// An attempt started: the provider CLI is about to be spawned.
    #[serde(rename = "start")]
    Start(StartEvent),
    /// The provider's native session id became known.
    #[serde(rename = "session")]
    Session(SessionEvent),
    /// A fragment of assistant text, in order.
    #[serde(rename = "text_delta")]
    TextDelta(TextDeltaEvent),
    /// A complete assistant message.
    #[serde(rename = "message")]
    Message(MessageEvent),
    /// Reasoning text the model exposed.
    #[serde(rename = "thinking")]
    Thinking(ThinkingEvent),
    /// The agent called a tool.
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseEvent),
    /// A tool call finished.
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultEvent),
    /// Token and cost figures.
    #[serde(rename = "usage")]
    Usage(UsageEvent),
    /// The provider reported the state of a rate or usage limit.
    #[serde(rename = "rate_limit")]
    RateLimit(RateLimitEvent),
    /// A request the CLI made to its model API, seen by the run's gateway.
    #[serde(rename = "model_call")]
    ModelCall(crate::gateway::ModelCallEvent),
    /// A retry, a context compaction or another notice from the provider.
    #[serde(rename = "status")]
    Status(StatusEvent),
    /// agentgate is alive and the run is still going, though the agent is
    /// silent.
    #[serde(rename = "heartbeat")]
    Heartbeat(HeartbeatEvent),
    /// A diagnostic message from agentgate.
    #[serde(rename = "log")]
    Log(LogEvent),
    /// A provider output line agentgate could not decode, kept verbatim.
    #[serde(rename = "raw")]
    Raw(RawEvent),
    /// An error, classified. A run may continue after it (failover).
    #[serde(rename = "error")]
    Error(ErrorInfo),
    /// The run was cancelled.
    #[serde(rename = "cancelled")]
    Cancelled(CancelledEvent),
    /// The run finished: the last event of the stream.
    #[serde(rename = "result")]
    Result(ResultEvent),
    /// A tool run: one message the tool printed (or a line it printed that
    /// was not one, kept as a `log` message).
    #[serde(rename = "tool_message")]
    ToolMessage(ToolMessageEvent),
    /// A workflow run changed state.
    #[serde(rename = "workflow_state")]
    WorkflowState(WorkflowStateEvent),
    /// A workflow's step is ready.
    #[serde(rename = "task_submitted")]
    TaskSubmitted(TaskSubmittedEvent),
    /// A try of a workflow's step started.
    #[serde(rename = "task_started")]
    TaskStarted(TaskStartedEvent),
    /// An event of a workflow step's run, nested.
    #[serde(rename = "task_progress")]
    TaskProgress(TaskProgressEvent),
    /// A try of a workflow's step failed.
    #[serde(rename = "task_error")]
    TaskError(TaskErrorEvent),
    /// A workflow's step ended.
    #[serde(rename = "task_done")]
    TaskDone(TaskDoneEvent),
    /// The CLI asked permission before a tool call.
    #[serde(rename = "approval_request")]
    ApprovalRequest(ApprovalRequestEvent),
    /// agentgate answered a permission request.
    #[serde(rename = "approval_decision")]
    ApprovalDecision(ApprovalDecisionEvent),
    /// A readable piece of the answer, cut at a paragraph, sentence or
    /// line by a coalescing follower (`--coalesce`, `?coalesce=`); never
    /// in a run's stored stream.
    #[serde(rename = "answer_chunk")]
    AnswerChunk(AnswerChunkEvent),
    /// An event whose `type` this version does not know (written by a newer
    /// agentgate): all its body fields, `type` included, kept as they came.
    /// It serializes back unchanged. Never written by this version, so it is
    /// not part of the JSON Schema.
    #[serde(skip)]
    #[schemars(skip)]
    Unknown(Map<String, Value>),
}

impl EventBody {
    /// The wire `type` of this body, e.g. `"text_delta"`.
    pub fn type_name(&self) -> &str {
        match self {
            Self::Start(_) => "start",
            Self::Session(_) => "session",
            Self::TextDelta(_) => "text_delta",
            Self::Message(_) => "message",
            Self::Thinking(_) => "thinking",
            Self::ToolUse(_) => "tool_use",
            Self::ToolResult(_) => "tool_result",
            Self::Usage(_) => "usage",
            Self::RateLimit(_) => "rate_limit",
            Self::ModelCall(_) => "model_call",
            Self::Status(_) => "status",
            Self::Heartbeat(_) => "heartbeat",
            Self::Log(_) => "log",
            Self::Raw(_) => "raw",
            Self::Error(_) => "error",
            Self::Cancelled(_) => "cancelled",
            Self::Result(_) => "result",
            Self::ToolMessage(_) => "tool_message",
            Self::WorkflowState(_) => "workflow_state",
            Self::TaskSubmitted(_) => "task_submitted",
            Self::TaskStarted(_) => "task_started",
            Self::TaskProgress(_) => "task_progress",
            Self::TaskError(_) => "task_error",
            Self::TaskDone(_) => "task_done",
            Self::ApprovalRequest(_) => "approval_request",
            Self::ApprovalDecision(_) => "approval_decision",
            Self::AnswerChunk(_) => "answer_chunk",
            Self::Unknown(fields) => fields.get("type").and_then(Value::as_str).unwrap_or(""),
        }
    }
}

impl Serialize for EventBody {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Unknown(fields) => fields.serialize(serializer),
            // The inherent `EventBody::serialize` generated by `remote = "Self"`.
            known => EventBody::serialize(known, serializer),
        }
    }
}

impl<'de> Deserialize<'de> for EventBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let fields = Map::<String, Value>::deserialize(deserializer)?;
        let known = match fields.get("type") {
            Some(Value::String(name)) => EVENT_TYPES.contains(&name.as_str()),
            Some(_) => return Err(D::Error::custom("event field `type` is not a string")),
            None => return Err(D::Error::missing_field("type")),
        };
        if known {
            // The inherent `EventBody::deserialize` generated by `remote = "Self"`.
            EventBody::deserialize(Value::Object(fields)).map_err(D::Error::custom)
        } else {
            Ok(Self::Unknown(fields))
        }
    }
}

/// Body of `task_progress`: one event of a step's run, nested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskProgressEvent {
    /// The step's id.
    pub task_id: String,
    /// The run the event belongs to.
    pub child_run_id: String,
    /// The run's event as it wrote it.
    pub event: Box<Event>,
}
