//! One line a tool prints on stdout: the tool protocol v1 (seed 002).
//!
//! Every message is one JSON object with `v`, `type`, `ts`, `run_id` and
//! optional `trace_id`/`span_id`, plus the fields of its type. Reading is
//! lenient on purpose, because a tool's output is never lost:
//!
//! - a `type` this version does not know becomes [`ToolMessageBody::Unknown`]
//!   with every field kept;
//! - a known `type` whose fields do not fit becomes
//!   [`ToolMessageBody::Malformed`], also with every field kept;
//! - fields a known type does not name are kept in its `extra` map;
//! - a line that is not a JSON object with a string `type` is turned into a
//!   `log` message carrying the text ([`ToolMessage::from_text_line`]).
//!
//! Each of these serializes back to the fields it was read from.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Version of the tool protocol this crate reads and writes: the value of
/// `v` and of the `AI_PROTOCOL_VERSION` variable the runner sets.
pub const TOOL_PROTOCOL_VERSION: u32 = 1;

/// Every `type` the tool protocol v1 defines, in the order of
/// [`ToolMessageBody`]'s variants.
pub const TOOL_MESSAGE_TYPES: &[&str] = &[
    "start",
    "progress",
    "heartbeat",
    "action_required",
    "result",
    "error",
    "cancelled",
    "log",
    "task_submitted",
    "task_started",
    "task_done",
    "task_progress",
    "task_action_required",
    "task_error",
];

/// One message of the tool protocol: the common header and a typed body,
/// flat on the wire: `{"v":1,"type":"progress","ts":"…","run_id":"r-1",
/// "step":"scan","pct":37.5,"msg":"shard 3/8"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolMessage {
    /// Protocol version the tool wrote (1). `None` if it wrote none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v: Option<u32>,
    /// When the tool wrote it, as the tool formatted it (RFC 3339 expected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    /// The run, as the tool named it (the runner's `RUN_ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Distributed tracing: the trace (the runner's `TRACE_ID`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    /// Distributed tracing: the span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    /// The `type` tag and the fields that go with it.
    #[serde(flatten)]
    pub body: ToolMessageBody,
}

/// The typed part of a [`ToolMessage`], tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(remote = "Self", tag = "type")]
pub enum ToolMessageBody {
    /// The tool started a step. Emitted once.
    #[serde(rename = "start")]
    Start(StartMessage),
    /// How far the tool is. Resets the runner's heartbeat watchdog.
    #[serde(rename = "progress")]
    Progress(ProgressMessage),
    /// The tool is alive. Resets the runner's heartbeat watchdog.
    #[serde(rename = "heartbeat")]
    Heartbeat(HeartbeatMessage),
    /// The tool needs a decision (from an agent or a human) to go on.
    #[serde(rename = "action_required")]
    ActionRequired(ActionRequiredMessage),
    /// The tool finished: its status, artifacts and metrics.
    #[serde(rename = "result")]
    Result(ResultMessage),
    /// The tool failed, with a code from the error-code registry.
    #[serde(rename = "error")]
    Error(ErrorMessage),
    /// The tool stopped because it was asked to (it saw `CANCEL_FILE`).
    #[serde(rename = "cancelled")]
    Cancelled(CancelledMessage),
    /// A diagnostic line.
    #[serde(rename = "log")]
    Log(LogMessage),
    /// An orchestrating tool submitted a subtask.
    #[serde(rename = "task_submitted")]
    TaskSubmitted(TaskMessage),
    /// A subtask started.
    #[serde(rename = "task_started")]
    TaskStarted(TaskMessage),
    /// A subtask finished.
    #[serde(rename = "task_done")]
    TaskDone(TaskMessage),
    /// A subtask's progress, wrapped.
    #[serde(rename = "task_progress")]
    TaskProgress(TaskMessage),
    /// A subtask's `action_required`, wrapped.
    #[serde(rename = "task_action_required")]
    TaskActionRequired(TaskMessage),
    /// A subtask's error, wrapped.
    #[serde(rename = "task_error")]
    TaskError(TaskMessage),
    /// A `type` this version does not know: every body field, `type`
    /// included, kept as it came. Not part of the JSON Schema.
    #[serde(skip)]
    #[schemars(skip)]
    Unknown(Map<String, Value>),
    /// A known `type` whose fields do not fit it (a `pct` that is a string,
    /// an `error` without `code`): every body field kept as it came. Not part
    /// of the JSON Schema.
    #[serde(skip)]
    #[schemars(skip)]
    Malformed(Map<String, Value>),
}

/// Body of `start`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StartMessage {
    /// The step the tool starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The arguments, as the tool reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `progress`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProgressMessage {
    /// The step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Percent done, 0 to 100, as the tool wrote it (`37.5`, `40`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct: Option<serde_json::Number>,
    /// What the tool is doing, for humans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `heartbeat`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HeartbeatMessage {
    /// The step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `action_required`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActionRequiredMessage {
    /// The decision asked for, e.g. `choose_migration_strategy`.
    pub action: String,
    /// What the decision needs to know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One file a tool produced, as its `result` declares it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ArtifactRef {
    /// The file (or folder); a relative path is relative to `WORKSPACE`.
    pub path: String,
    /// The SHA-256 of the file's bytes, lowercase hex. Without it the
    /// runner only checks that the path exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `result`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultMessage {
    /// `ok`, or another word the tool chose.
    #[serde(default = "ok_status")]
    pub status: String,
    /// Files produced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<ArtifactRef>,
    /// Figures: rows, files, durations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Map<String, Value>>,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn ok_status() -> String {
    "ok".to_owned()
}

/// Body of `error`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorMessage {
    /// A code of the error-code registry, e.g. `E_INPUT_NOT_FOUND`.
    pub code: String,
    /// What went wrong, for humans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<String>,
    /// What to do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The tool's own opinion; the registry's entry for `code` decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `cancelled`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CancelledMessage {
    /// Why, e.g. `cancel-file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Body of `log`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogMessage {
    /// `debug`, `info`, `warn` or `error` (any word is kept).
    #[serde(default = "info_level")]
    pub level: String,
    /// The text.
    #[serde(default)]
    pub msg: String,
    /// Any other field, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn info_level() -> String {
    "info".to_owned()
}

/// Body of the `task_*` messages of an orchestrating tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskMessage {
    /// The subtask.
    pub task_id: String,
    /// The subtask's own run, once it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_run_id: Option<String>,
    /// `task_done`: `ok` or `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Any other field (`payload`, `child_event`, `child_result`,
    /// `child_rc`, …), kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolMessageBody {
    /// The wire `type`, e.g. `"progress"`.
    pub fn type_name(&self) -> &str {
        match self {
            Self::Start(_) => "start",
            Self::Progress(_) => "progress",
            Self::Heartbeat(_) => "heartbeat",
            Self::ActionRequired(_) => "action_required",
            Self::Result(_) => "result",
            Self::Error(_) => "error",
            Self::Cancelled(_) => "cancelled",
            Self::Log(_) => "log",
            Self::TaskSubmitted(_) => "task_submitted",
            Self::TaskStarted(_) => "task_started",
            Self::TaskDone(_) => "task_done",
            Self::TaskProgress(_) => "task_progress",
            Self::TaskActionRequired(_) => "task_action_required",
            Self::TaskError(_) => "task_error",
            Self::Unknown(fields) | Self::Malformed(fields) => {
                fields.get("type").and_then(Value::as_str).unwrap_or("")
            }
        }
    }

    /// Whether this message shows the tool is alive and working: `progress`
    /// and `heartbeat` (what the runner's heartbeat watchdog waits for).
    pub fn is_liveness(&self) -> bool {
        matches!(self, Self::Progress(_) | Self::Heartbeat(_))
    }
}

impl Serialize for ToolMessageBody {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Unknown(fields) | Self::Malformed(fields) => fields.serialize(serializer),
            // The inherent `serialize` generated by `remote = "Self"`.
            known => ToolMessageBody::serialize(known, serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ToolMessageBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let fields = Map::<String, Value>::deserialize(deserializer)?;
        let known = match fields.get("type") {
            Some(Value::String(name)) => TOOL_MESSAGE_TYPES.contains(&name.as_str()),
            Some(_) => {
                return Err(D::Error::custom(
                    "tool message field `type` is not a string",
                ));
            }
            None => return Err(D::Error::missing_field("type")),
        };
        if !known {
            return Ok(Self::Unknown(fields));
        }
        // The inherent `deserialize` generated by `remote = "Self"`.
        match ToolMessageBody::deserialize(Value::Object(fields.clone())) {
            Ok(body) => Ok(body),
            Err(_) => Ok(Self::Malformed(fields)),
        }
    }
}

/// What one line of a tool's stdout was.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolLine {
    /// A message of the protocol (possibly of an unknown type, or malformed).
    Message(ToolMessage),
    /// Not a JSON object with a string `type`: kept as a `log` message with
    /// the text ([`ToolMessage::from_text_line`]).
    Text(ToolMessage),
    /// JSON that gives a key twice in one object (`{"type": "result",
    /// "status": "ok", "status": "failed"}`): which copy counts cannot be
    /// told, so the line is no message. Kept as [`ToolLine::Text`] is, with
    /// the reason in the log message's `refused`.
    Refused {
        /// The `log` message that keeps the line.
        message: ToolMessage,
        /// Why it is no message (names the key).
        reason: String,
    },
}

impl ToolLine {
    /// The message, whichever it was.
    pub fn into_message(self) -> ToolMessage {
        match self {
            Self::Message(message) | Self::Text(message) | Self::Refused { message, .. } => message,
        }
    }
}

impl ToolMessage {
    /// A message of the current version with no header but `v`.
    pub fn new(body: ToolMessageBody) -> Self {
        Self {
            v: Some(TOOL_PROTOCOL_VERSION),
            ts: None,
            run_id: None,
            trace_id: None,
            span_id: None,
            body,
        }
    }

    /// Reads one line of a tool's stdout (without its terminator). Never
    /// fails: what is not a message becomes a `log` message, and so does a
    /// line that gives a key twice ([`ToolLine::Refused`]).
    pub fn parse_line(bytes: &[u8]) -> ToolLine {
        match crate::strict_json::check_unique_keys(bytes) {
            Err(e) if e.is_data() => {
                let reason = e.to_string();
                let mut message = Self::from_text_line(bytes);
                if let ToolMessageBody::Log(log) = &mut message.body {
                    log.extra
                        .insert("refused".to_owned(), Value::String(reason.clone()));
                }
                return ToolLine::Refused { message, reason };
            }
            Err(_) => return ToolLine::Text(Self::from_text_line(bytes)),
            Ok(()) => {}
        }
        match serde_json::from_slice::<ToolMessage>(bytes) {
            Ok(message) => ToolLine::Message(message),
            Err(_) => ToolLine::Text(Self::from_text_line(bytes)),
        }
    }

    /// The `log` message that keeps a line which is not a protocol message:
    /// level `warn`, `msg` the text, `non_json: true`, and the exact bytes in
    /// `bytes_base64` when they are not valid UTF-8.
    pub fn from_text_line(bytes: &[u8]) -> Self {
        let mut extra = Map::new();
        extra.insert("non_json".to_owned(), Value::Bool(true));
        let msg = match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            Err(_) => {
                extra.insert(
                    "bytes_base64".to_owned(),
                    Value::String(STANDARD.encode(bytes)),
                );
                String::from_utf8_lossy(bytes).into_owned()
            }
        };
        Self {
            v: None,
            ts: None,
            run_id: None,
            trace_id: None,
            span_id: None,
            body: ToolMessageBody::Log(LogMessage {
                level: "warn".to_owned(),
                msg,
                extra,
            }),
        }
    }
}
