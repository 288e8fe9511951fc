//! agentgate's contract: everything a caller of `agentgate run` (or of the
//! library) sees, defined once, with no I/O.
//!
//! - [`Event`]: one line of the JSONL event stream, protocol version
//!   [`PROTOCOL_VERSION`]. The payload is the tagged enum [`EventBody`].
//! - [`Envelope`]: the final result object, field-for-field compatible with
//!   the shell-wrapper envelope users migrate from.
//! - [`ErrorKind`] and [`ErrorInfo`]: the error taxonomy, with a fixed
//!   `recoverable` default per kind, and the exit codes of `agentgate run`
//!   ([`exit_code_for`]).
//! - [`Usage`]: token and cost accounting of a turn or a run.
//! - [`ToolMessage`] and [`ToolEnvelope`]: the tool protocol v1 that
//!   deterministic tools speak, and the result of a tool run.
//! - [`WorkflowStateEvent`], the task events and [`WorkflowEnvelope`]: a
//!   workflow run's stream and result.
//! - [`ApprovalRequestEvent`], [`ApprovalDecisionEvent`] and
//!   [`ApprovalCounts`]: a CLI's permission requests and their answers.
//! - [`Labels`]: a run's `key=value` labels and their bounds
//!   ([`check_labels`], [`parse_label`]).
//! - [`strict_json`]: JSON from outside read strictly (a repeated key is
//!   refused).
//! - [`MAX_LINE_BYTES`]: the one line limit, and [`fit`], which cuts an
//!   event to it (visibly: [`Cut`]).
//! - [`schemas`]: JSON Schemas generated from these types; the checked-in
//!   copies live in `schemas/` next to this crate's `Cargo.toml`.
//!
//! Optional fields follow one rule per type: events omit what is unknown (the
//! stream stays compact), the envelope always carries its fields and writes
//! `null` for what is unknown (its shape is stable), see [`Envelope`].
#![warn(missing_docs)]

mod approval;
mod cost;
mod envelope;
mod error;
mod events;
mod exit_code;
mod fallback;
mod gateway;
mod labels;
mod line_limit;
mod reasoning_summary;
mod sandbox;
mod schema;
mod session_rotation;
pub mod strict_json;
mod tool;
mod tool_protocol;
mod usage;
mod warm;
mod workflow;
mod workspace;
mod wrapper_envelope;

pub use approval::{ApprovalCounts, ApprovalDecisionEvent, ApprovalRequestEvent, DecidedBy};
pub use cost::{AttemptCost, CostCardEntry, CostReport, CostSource};
pub use envelope::{
    ActivityClass, Attempt, EffortReport, Envelope, Metadata, ReasoningAbsentReason,
    ReasoningSource, Survivor, TokensUsed, ToolActivity, estimate_output_tokens,
};
pub use error::{ErrorInfo, ErrorKind, ErrorSource, ToolErrorCode, UnknownErrorKind};
pub use events::{
    AnswerChunkEvent, CancelReason, CancelledEvent, Cut, EVENT_TYPES, Event, EventBody,
    HeartbeatEvent, LogEvent, LogLevel, MessageEvent, PROTOCOL_VERSION, RateLimitEvent,
    RateLimitStatus, RawEvent, RawStream, ResultEvent, STATUS_KINDS, SessionEvent, StartEvent,
    StatusEvent, TaskProgressEvent, TextDeltaEvent, ThinkingEvent, ToolMessageEvent,
    ToolResultEvent, ToolUseEvent, UsageEvent, UsageScope,
};
pub use exit_code::{
    EXIT_ALL_RECOVERABLE, EXIT_CANCELLED, EXIT_FAILURE, EXIT_OUTPUT_CLOSED, EXIT_OUTPUT_FAILED,
    EXIT_SUCCESS, EXIT_TIMEOUT, EXIT_USAGE, exit_code_for,
};
pub use fallback::{FallbackFrom, FallbackSource};
pub use gateway::{GatewayReport, ModelCallEvent, RateLimitWindow, UsageSource, WireApi};
pub use labels::{
    LABEL_KEY_MAX, LABEL_VALUE_MAX, LABELS_MAX, LabelError, Labels, check_label_key,
    check_label_value, check_labels, parse_label, parse_labels,
};
pub use line_limit::{MAX_LINE_BYTES, fit, fit_within, line_len};
pub use reasoning_summary::{REASONING_SUMMARY_CHARS, compact_reasoning};
pub use sandbox::{SandboxLevel, SandboxReport, UnknownSandboxLevel};
pub use schema::schemas;
pub use session_rotation::SessionRotated;
pub use tool::ToolClass;
pub use tool_protocol::{
    ActionRequest, ActionRequiredMessage, ArtifactCheck, ArtifactRef, ArtifactState,
    CODE_HEARTBEAT_MISSED, CODE_POLICY, CODE_TIMEOUT, CancelledMessage, Enforcement,
    EnforcementState, ErrorMessage, ExitMeaning, HeartbeatMessage, LimitsReport, LogMessage,
    ProgressMessage, ResultMessage, StartMessage, TOOL_MESSAGE_TYPES, TOOL_PROTOCOL_VERSION,
    TaskMessage, ToolEnvelope, ToolErrorClass, ToolExit, ToolLine, ToolMessage, ToolMessageBody,
    ToolStatus,
};
pub use usage::Usage;
pub use warm::{WarmProcessState, WarmReport};
pub use workflow::{
    StepOutcome, StepReport, StepStatus, TaskDoneEvent, TaskErrorEvent, TaskStartedEvent,
    TaskSubmittedEvent, WorkflowEnvelope, WorkflowState, WorkflowStateEvent,
};
pub use workspace::{ChangedFile, WorkspaceReport};
pub use wrapper_envelope::{EnvelopeFormat, wrapper_envelope};
