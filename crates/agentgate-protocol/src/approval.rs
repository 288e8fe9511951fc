//! Approvals in the contract: a CLI asked permission before a tool call
//! (`approval_request`) and agentgate answered it (`approval_decision`),
//! from the policy, a human, or the ask timeout. The envelope counts them
//! in `approvals`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who or what decided a permission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// A rule of the policy, or its default.
    Policy,
    /// A human, through the server's API or the dashboard.
    Human,
    /// Nobody answered an `ask` in time: denied.
    Timeout,
    /// The same call was denied before in this turn and asked again: denied
    /// without asking, and the turn stopped (an ask never loops).
    Repeat,
    /// The run was cancelled while the request waited: denied.
    Cancelled,
}

/// Body of `approval_request`: the CLI asks before a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalRequestEvent {
    /// agentgate's id of the request (the answer route's `{request_id}`).
    pub request_id: String,
    /// The tool's name as the CLI gave it.
    pub tool: String,
    /// Its class.
    pub class: crate::tool::ToolClass,
    /// The paths it reads or writes, as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// The command it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The tool call's input as the CLI gave it (secrets redacted).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub input: Value,
    /// The id of the tool call in the stream (`tool_use.id`), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
}

/// Body of `approval_decision`: how a request was answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalDecisionEvent {
    /// The request answered.
    pub request_id: String,
    /// `allow` or `deny`, as sent to the CLI.
    pub decision: String,
    /// Who decided.
    pub by: DecidedBy,
    /// The rule that decided (`approvals.rules[2]`, or `default`), when the
    /// policy did or sent the request to a human.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// What the agent is told with a denial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The envelope's `approvals`: the run's permission requests, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalCounts {
    /// Requests the CLI made.
    pub requested: u32,
    /// Allowed (by the policy or a human).
    pub allowed: u32,
    /// Denied (by the policy, a human, a timeout or a repeat).
    pub denied: u32,
    /// Sent to a human (`ask`).
    pub asked: u32,
    /// Denied because nobody answered in time.
    pub timed_out: u32,
}
