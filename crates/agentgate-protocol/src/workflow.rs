//! Workflows in the contract: the events a workflow run writes (its state
//! machine and the seed's task events, each step's child events nested)
//! and the workflow's result, carried in the envelope's `workflow`.
//!
//! A workflow run's stream is also its checkpoint: a `task_done` holds the
//! step's whole outcome, so a resumed workflow reads its finished steps
//! back from its own events.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a workflow is in its life (seed 002's run state machine):
/// `queued → running → (waiting_ai → running)* → completed | failed |
/// cancelled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WorkflowState {
    /// Submitted to a server, not started (the job's state).
    Queued,
    /// Running its steps.
    Running,
    /// An agent is answering a tool's `action_required` (a decision step).
    WaitingAi,
    /// Every step ended `ok` or `skipped`.
    Completed,
    /// A step failed (after its retries).
    Failed,
    /// Cancelled; every running step was cancelled with it.
    Cancelled,
}

impl WorkflowState {
    /// The wire name, e.g. `"waiting_ai"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::WaitingAi => "waiting_ai",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the workflow has ended.
    pub const fn is_final(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// It succeeded.
    Ok,
    /// It failed (after its retries).
    Failed,
    /// Its `when:` was false, or a decision had nothing to answer.
    Skipped,
    /// The workflow was cancelled (or a `fail_fast` group stopped it).
    Cancelled,
}

impl StepStatus {
    /// The wire name, e.g. `"skipped"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Failed => "failed",
            Self::Skipped => "skipped",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether a later execution of the workflow keeps this outcome (`ok`
    /// and `skipped`) rather than running the step again.
    pub const fn is_finished(self) -> bool {
        matches!(self, Self::Ok | Self::Skipped)
    }
}

/// What a step produced: what `${steps.ID.…}` reads.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct StepOutcome {
    /// The step's result: a tool's result envelope, an agent run's
    /// envelope, a decision's answering tool run; `null` if none.
    #[serde(default)]
    pub result: Value,
    /// The step's output: a tool's `metrics`, an agent's structured output
    /// (else its text), a decision's answer `{choice, reason}`, a group's
    /// members' outputs by id; `null` if none.
    #[serde(default)]
    pub output: Value,
    /// The decision a tool asked for (`{action, context}`), if it asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Value>,
    /// The run that produced `result`, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}

/// Body of `workflow_state`: the workflow changed state. The first one of
/// a run carries the workflow (its definition, input and folder), which is
/// what a resume runs again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkflowStateEvent {
    /// The new state.
    pub state: WorkflowState,
    /// The workflow's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Which execution of the run this is: 1, then 2 after the first resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<u32>,
    /// The workflow file as read (JSON), on the run's first event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Value>,
    /// The workflow's input, on the run's first event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The folder relative paths of the workflow are resolved against, on
    /// the run's first event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_dir: Option<String>,
    /// The step the state is about (`waiting_ai`: the decision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Why (a failure, a cancel, a resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Body of `task_submitted`: a step is ready and waits for its turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskSubmittedEvent {
    /// The step's id.
    pub task_id: String,
    /// The step's kind: `tool`, `agent`, `parallel` or `decision`.
    pub kind: String,
    /// The `parallel` group it belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// What it will run: a tool's name and arguments, an agent's prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
}

/// Body of `task_started`: a try of a step started a run (or, for a step
/// that runs nothing itself, a `parallel` group, started).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskStartedEvent {
    /// The step's id.
    pub task_id: String,
    /// The try, from 1 (not `attempt`: that is the event header's provider
    /// attempt).
    pub step_attempt: u32,
    /// The run this try starts (a tool or agent run), if it starts one. A
    /// decision's try starts several: its agent's, then its tool's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_run_id: Option<String>,
    /// What the run is: `tool` or `agent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_kind: Option<String>,
    /// The earlier run whose workspace (and checkpoints) it continues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<String>,
}

/// Body of `task_error`: one try of a step failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskErrorEvent {
    /// The step's id.
    pub task_id: String,
    /// The try, from 1 (not `attempt`: that is the event header's provider
    /// attempt).
    pub step_attempt: u32,
    /// The run of that try, if it was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_run_id: Option<String>,
    /// The error: a tool's code (`E_TRANSIENT_NET`) or an agent's error
    /// type (`rate_limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// What went wrong.
    pub message: String,
    /// Whether a retry may help.
    pub retryable: bool,
    /// The wait before the next try, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_in_ms: Option<u64>,
}

/// Body of `task_done`: a step ended. Its outcome is the checkpoint a
/// resume reads back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskDoneEvent {
    /// The step's id.
    pub task_id: String,
    /// How it ended.
    pub status: StepStatus,
    /// How many tries it took (0 when skipped).
    pub attempts: u32,
    /// Every run it made, in order.
    #[serde(default)]
    pub child_run_ids: Vec<String>,
    /// What it produced.
    pub outcome: StepOutcome,
    /// Why it was skipped, failed or cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// One step in a workflow's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepReport {
    /// The step's id.
    pub id: String,
    /// `tool`, `agent`, `parallel` or `decision`.
    pub kind: String,
    /// The `parallel` group it belongs to, if any.
    pub group: Option<String>,
    /// How it ended; `null` if it never ran (an earlier step failed).
    pub status: Option<StepStatus>,
    /// Tries, over every execution.
    pub attempts: u32,
    /// Every run it made, in order.
    pub run_ids: Vec<String>,
    /// The execution that finished it (1 unless the workflow was resumed).
    pub execution: Option<u32>,
    /// Why it was skipped, failed or cancelled.
    pub reason: Option<String>,
}

/// The result of a workflow run, in its envelope's `workflow`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkflowEnvelope {
    /// The workflow's name.
    pub name: String,
    /// `completed`, `failed` or `cancelled`.
    pub state: WorkflowState,
    /// Every step, in file order (a group before its members).
    pub steps: Vec<StepReport>,
    /// The workflow's `outputs`, rendered (on `completed`).
    pub outputs: Map<String, Value>,
    /// The step whose failure failed the workflow.
    pub failed_step: Option<String>,
    /// How many executions the run took (1 + the resumes).
    pub executions: u32,
}
