//! The tool protocol v1: what deterministic tools print (one JSON message per
//! line on stdout), and the result of a tool run.
//!
//! A tool run's own event stream is agentgate's [`Event`](crate::Event)
//! stream: each message the tool printed is one `tool_message` event
//! ([`ToolMessageEvent`](crate::ToolMessageEvent)), between the runner's own
//! `start`, `error`, `cancelled` and `result` events.

mod message;
mod outcome;

pub use message::{
    ActionRequiredMessage, ArtifactRef, CancelledMessage, ErrorMessage, HeartbeatMessage,
    LogMessage, ProgressMessage, ResultMessage, StartMessage, TOOL_MESSAGE_TYPES,
    TOOL_PROTOCOL_VERSION, TaskMessage, ToolLine, ToolMessage, ToolMessageBody,
};
pub use outcome::{
    ActionRequest, ArtifactCheck, ArtifactState, CODE_HEARTBEAT_MISSED, CODE_POLICY, CODE_TIMEOUT,
    Enforcement, EnforcementState, ExitMeaning, LimitsReport, ToolEnvelope, ToolErrorClass,
    ToolExit, ToolStatus,
};
