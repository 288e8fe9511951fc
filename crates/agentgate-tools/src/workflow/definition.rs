//! The workflow file as written: `version: 1`, a `name`, `steps` (each a
//! `tool`, an `agent`, a `parallel` group or a `decision`), optional
//! `outputs` and `timeout`. Read strictly (an unknown key is an error with
//! its line); `load.rs` checks what serde cannot (one kind per step, ids,
//! references, cycles) and `docs/workflows.md` is the reference.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The version this agentgate reads.
pub const WORKFLOW_VERSION: u32 = 1;

/// A workflow file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowDef {
    /// The format's version: `1`.
    pub version: u32,
    /// The workflow's name, shown by `workflow runs`.
    pub name: String,
    /// What it does, for humans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The longest the whole workflow may take (`30m`); none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// The steps, run in order (a step may also wait for steps it `needs`
    /// or refers to).
    pub steps: Vec<StepDef>,
    /// The workflow's outputs: name → a template over the steps
    /// (`${steps.review.output.approve}`), in the result's `outputs`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outputs: BTreeMap<String, String>,
}

/// One step. Exactly one of `tool`, `agent`, `parallel` and `decision` is
/// given: that is its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepDef {
    /// The step's id: unique in the workflow, letters, digits, `_` and `-`.
    pub id: String,
    /// Run the step only when this condition holds (see `condition.rs`):
    /// `${steps.review.output.approve}`, `${steps.x.output.choice} == fix`,
    /// `!${input.dry_run}`. A step whose condition is false is `skipped`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// Steps this one waits for besides the one before it (in a `parallel`
    /// group, the siblings it must follow).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
    /// How many times a retryable failure is tried again (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u32,
    /// The wait before the first retry (`2s`), doubled before each next one;
    /// default `1s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<String>,
    /// The longest one try of the step may take (`90s`, `10m`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,

    /// A `tool` step: the registry tool to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// A `tool` step: its arguments, each a template.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// A `tool` step: files and folders copied into its workspace before it
    /// starts, each a template; a relative path is relative to the workflow
    /// file's folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_in: Vec<String>,
    /// A `tool` step: its stdin, a template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,

    /// An `agent` step: the run, as the body of `POST /v1/runs` (`prompt`,
    /// `chain`, `agents`, `providers`, `model`, `output_schema`, `session`,
    /// ...; `agent` and `provider` are accepted for one), the prompt a
    /// template; relative paths relative to the workflow file's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, serde_json::Value>>")]
    pub agent: Option<serde_json::Value>,

    /// A `parallel` group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<ParallelDef>,

    /// A `decision`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<DecisionDef>,
}

/// A group of steps run at the same time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParallelDef {
    /// The most members running at once (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<u32>,
    /// What a failed member does to the group.
    #[serde(default)]
    pub on_failure: OnFailure,
    /// The members. Each waits only for the steps it `needs` or refers to.
    pub steps: Vec<StepDef>,
}

/// What a failed member of a `parallel` group does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// Cancel the running members, start no more; the group fails.
    #[default]
    FailFast,
    /// Run every member; the group fails at the end if one failed.
    Collect,
}

/// A decision: an agent answers the `action_required` of a tool step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionDef {
    /// The tool step whose `action_required` this answers (an earlier
    /// step). If it ended without asking, the decision is skipped.
    #[serde(rename = "for")]
    pub for_step: String,
    /// The agent that answers, as an `agent` step's run; its prompt may use
    /// `${action.action}` and `${action.context...}`.
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub agent: serde_json::Value,
    /// The allowed answers: the agent's output schema is
    /// `{"choice": one of these, "reason": text}`.
    pub choices: Vec<String>,
    /// Where the answer goes.
    #[serde(default)]
    pub answer: AnswerTo,
    /// With `answer: tool`, the tool's arguments for the run that takes the
    /// answer (templates; `${answer.choice}`); default: the step's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// With `answer: tool`, how many times the tool may ask again before
    /// the decision fails (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rounds: Option<u32>,
}

/// Where a decision's answer goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnswerTo {
    /// Back to the tool: it runs again in its workspace (its checkpoints
    /// kept) with the answer on stdin as JSON and in its arguments.
    #[default]
    Tool,
    /// To the next steps only: `${steps.ID.output.choice}`.
    Next,
}

/// A step's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// A registry tool.
    Tool,
    /// An agent run.
    Agent,
    /// A group of steps at once.
    Parallel,
    /// An agent answering a tool's `action_required`.
    Decision,
}

impl StepKind {
    /// The key that names the kind, e.g. `"tool"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Agent => "agent",
            Self::Parallel => "parallel",
            Self::Decision => "decision",
        }
    }
}

impl StepDef {
    /// The kinds this step gives (one when it is valid).
    pub fn kinds(&self) -> Vec<StepKind> {
        let mut out = Vec::new();
        if self.tool.is_some() {
            out.push(StepKind::Tool);
        }
        if self.agent.is_some() {
            out.push(StepKind::Agent);
        }
        if self.parallel.is_some() {
            out.push(StepKind::Parallel);
        }
        if self.decision.is_some() {
            out.push(StepKind::Decision);
        }
        out
    }

    /// The step's kind; `None` unless exactly one is given.
    pub fn kind(&self) -> Option<StepKind> {
        match self.kinds().as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
