//! The result envelope.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorInfo, ErrorKind};
use crate::tool::ToolClass;
use crate::tool_protocol::ToolEnvelope;
use crate::usage::Usage;
use crate::workspace::WorkspaceReport;

/// The final result of a run: what `agentgate run` prints, and what the
/// `result` event carries.
///
/// Field-for-field compatible with the shell-wrapper envelope users migrate
/// from: every wrapper field keeps its name, type and place; agentgate only
/// adds fields. Which fields are present:
///
/// - Wrapper fields are always present, as the wrapper wrote them:
///   `response` and `reasoning` are strings, empty when there is none (see
///   `metadata.reasoning_available`); `tokens_used` counts are numbers, 0 when
///   not reported (see `metadata.token_usage_available`). Where the wrapper
///   had no way to say "unknown", agentgate writes `null`: `session_id` before
///   the provider gave one, `tokens_used.cost_usd` when the cost is unknown (0
///   would claim the run was free), `model_resolution` when the model was used
///   as requested, `metadata.tool_activity` when the provider's output cannot
///   show tool calls (a plain-text CLI; where it can, a run without tool
///   calls has zero counts and `activity_class: none`).
/// - `error`, `error_type`, `exit_code` and `recoverable` appear on failure
///   only, as in the wrapper: their absence means success.
/// - agentgate's additions are always present, `null` when unknown or not
///   applicable.
///
/// One difference in meaning: `tokens_used.input_tokens` includes cache reads
/// and writes (see [`Usage`]), where the Claude wrapper reported uncached
/// input only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Envelope {
    /// The answer: the final assistant text. On failure, what the model said
    /// before it failed (the error's own text is in `error`), else empty.
    #[serde(default)]
    pub response: String,
    /// The provider's native session id, to resume; `null` when unknown.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The model's reasoning, when it exposed any; empty otherwise.
    #[serde(default)]
    pub reasoning: String,
    /// `reasoning` in the wrappers' compact form: placeholder lines dropped,
    /// whitespace collapsed to single spaces, at most 600 characters (a cut
    /// one ends with `…`). An agentgate addition: the wrappers' `reasoning`
    /// was this compact form, agentgate's is the full text. Like `labels`,
    /// left out when there is no reasoning.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning_summary: String,
    /// Token and cost figures of the run.
    #[serde(default)]
    pub tokens_used: TokensUsed,
    /// What is known about the figures, the reasoning and the tool calls.
    #[serde(default)]
    pub metadata: Metadata,
    /// How the requested model was resolved, e.g. `claude model 'opus' ->
    /// 'claude-opus-4-1' (alias)`; `null` when it was used as requested.
    #[serde(default)]
    pub model_resolution: Option<String>,

    /// Failure only: the error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Failure only: the error's kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<ErrorKind>,
    /// Failure only: the exit status of `agentgate run` for this result (1,
    /// 2, 75, 124 or 130). The provider CLI's own exit status is in
    /// `attempts[].exit_code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Failure only: whether retrying later or elsewhere may succeed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recoverable: Option<bool>,

    /// The run's id, as in its events.
    #[serde(default)]
    pub run_id: String,
    /// The provider of the last attempt (the one that answered, on success).
    #[serde(default)]
    pub provider: Option<String>,
    /// The model of the last attempt, as the provider reported it or, failing
    /// that, as requested.
    #[serde(default)]
    pub model: Option<String>,
    /// Wall-clock duration of the whole run, in milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// One entry per agent tried, in order, the last one included.
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    /// The last lines of the last attempt's stderr (bounded), `null` when it
    /// wrote none.
    #[serde(default)]
    pub stderr_tail: Option<String>,
    /// Output tokens spent on reasoning (part of `tokens_used.output_tokens`).
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Context size after the last model call (see [`Usage`]).
    #[serde(default)]
    pub context_tokens: Option<u64>,
    /// Seconds to wait before retrying, when a provider said.
    #[serde(default)]
    pub retry_after_s: Option<u64>,
    /// When the limit that stopped the run resets: RFC 3339, UTC.
    #[serde(default)]
    #[schemars(extend("format" = "date-time"))]
    pub reset_at: Option<String>,
    /// Whether the session to resume had vanished and a new one was started
    /// in its place (`session_id` is then the new one).
    #[serde(default)]
    pub session_recreated: bool,
    /// With `--output-schema`: the answer's JSON, extracted from `response`
    /// (fences and surrounding prose removed) and valid against the schema;
    /// `null` without a schema or on failure.
    #[serde(default)]
    pub structured_output: Option<serde_json::Value>,
    /// The agent of the last attempt, when the run used named agents.
    #[serde(default)]
    pub agent: Option<String>,
    /// The failover chain the run followed, when it used one.
    #[serde(default)]
    pub chain: Option<String>,
    /// The run's labels (`--label key=value`, the API's `labels`), by key.
    /// Unlike the other fields it is left out when the run has none, so an
    /// unlabelled run's envelope is what it was before labels existed.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: crate::labels::Labels,
    /// The skill the run invoked (`--skill NAME`, the API's `skill`). Like
    /// `labels`, left out when the run invoked none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    /// The reasoning effort and thinking budget asked for
    /// (`--reasoning-effort`, `--thinking-budget`) and what the CLI was
    /// given. Like `skill`, left out when the run asked for neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<EffortReport>,
    /// With `workspace: worktree`: the git worktree the run ran in, whether
    /// it was kept, and what the run changed there; `null` for a run in the
    /// shared working tree.
    #[serde(default)]
    pub workspace: Option<WorkspaceReport>,
    /// A tool run (`agentgate tool`, a call through `agentgate mcp`): its
    /// whole result; `null` for an agent run.
    #[serde(default)]
    pub tool: Option<Box<ToolEnvelope>>,
    /// A workflow run (`agentgate workflow run`): its steps and outputs;
    /// `null` for any other run.
    #[serde(default)]
    pub workflow: Option<Box<crate::workflow::WorkflowEnvelope>>,
    /// The permission requests of a run in `ask` mode, counted (each is an
    /// `approval_request` and an `approval_decision` event); `null` for a
    /// run whose CLI was never asked to ask.
    #[serde(default)]
    pub approvals: Option<crate::approval::ApprovalCounts>,
    /// The process that served a turn of a warm session (`--warm`);
    /// `null` for a run whose CLI was started for it alone.
    #[serde(default)]
    pub warm: Option<crate::warm::WarmReport>,
    /// Where `agentgate run --reasoning-fallback` read the figures from;
    /// absent from every other envelope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<crate::fallback::FallbackSource>,
    /// What the run's model gateway saw (`--gateway`): the calls, the
    /// wire's usage beside the CLI's and where they differ; absent when no
    /// gateway ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<Box<crate::gateway::GatewayReport>>,
    /// The sandbox the CLI ran in (`--sandbox`): the level and what
    /// enforced each part; absent when the level is `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Box<crate::sandbox::SandboxReport>>,
    /// How `tokens_used.cost_usd` was worked out: the CLI's figure, the
    /// rate card's from the run's tokens, or both with their difference
    /// and whether it is flagged; absent from envelopes that ran no agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Box<crate::cost::CostReport>>,
    /// The session rotated on this turn (`max_context_tokens`): a new
    /// native session was started under the same name instead of resuming
    /// the old one; absent when the turn resumed or started as usual.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_rotated: Option<crate::session_rotation::SessionRotated>,
}

/// What became of a run's reasoning effort and thinking budget on the
/// provider that answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EffortReport {
    /// The level asked for; `null` when only a budget was.
    #[serde(default)]
    pub requested: Option<String>,
    /// The level the CLI was given; `null` when it was left out (the CLI
    /// or the model takes none, or `unsupported_effort: drop`).
    #[serde(default)]
    pub applied: Option<String>,
    /// The thinking budget in tokens the CLI was given; `null` when none
    /// was asked for or the CLI takes none.
    #[serde(default)]
    pub thinking_budget: Option<u32>,
    /// How the CLI was told, e.g. `--effort`, `-c model_reasoning_effort`,
    /// `MAX_THINKING_TOKENS`; empty when nothing was passed.
    #[serde(default)]
    pub via: Vec<String>,
    /// What agentgate changed, and why, when it did not pass what was
    /// asked as asked; `null` otherwise.
    #[serde(default)]
    pub effort_resolution: Option<String>,
}

impl Envelope {
    /// An empty success envelope for `run_id`.
    pub fn new(run_id: impl Into<String>) -> Self {
        Self {
            run_id: run_id.into(),
            ..Self::default()
        }
    }

    /// The same envelope as a failure: fills `error`, `error_type`,
    /// `recoverable`, `exit_code`, `retry_after_s` and `reset_at` from
    /// `error`, and says `error_path` for absent reasoning as the wrapper did.
    #[must_use]
    pub fn with_error(mut self, error: &ErrorInfo, exit_code: i32) -> Self {
        self.error = Some(error.message.clone());
        self.error_type = Some(error.kind);
        self.recoverable = Some(error.recoverable);
        self.exit_code = Some(exit_code);
        self.retry_after_s = error.retry_after_s;
        self.reset_at = error.reset_at.clone();
        if !self.metadata.reasoning_available {
            self.metadata.reasoning_absent_reason = ReasoningAbsentReason::ErrorPath;
        }
        self
    }

    /// Whether the run succeeded (no `error_type`).
    pub fn is_success(&self) -> bool {
        self.error_type.is_none()
    }
}

/// The envelope's `tokens_used`: the wrapper's token figures, with
/// [`Usage`]'s semantics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokensUsed {
    /// All billed input tokens, cache reads and writes included.
    #[serde(default)]
    pub input_tokens: u64,
    /// All generated tokens, reasoning included.
    #[serde(default)]
    pub output_tokens: u64,
    /// Output tokens estimated from the response's length (characters / 4,
    /// at least 1 for a non-empty response), whether or not the provider
    /// reported `output_tokens`.
    #[serde(default)]
    pub estimated_output_tokens: u64,
    /// `input_tokens` + `output_tokens`.
    #[serde(default)]
    pub total_tokens: u64,
    /// Cost in US dollars: the rate card's price of these tokens where the
    /// card prices the model, else the CLI's own figure, else `null` (see
    /// the envelope's `cost`).
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// The part of `input_tokens` read from the prompt cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// The part of `input_tokens` written to the prompt cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// The part of `cache_creation_input_tokens` written with a 1-hour
    /// lifetime (priced at the 1-hour rate; the rest at the 5-minute
    /// rate); absent when 0: no 1-hour writes, or a source that does not
    /// tell the lifetimes apart.
    #[serde(default, skip_serializing_if = "crate::usage::is_zero")]
    pub cache_creation_1h_input_tokens: u64,
    /// Whether the figures are estimates rather than provider-reported.
    #[serde(default)]
    pub estimated: bool,
}

impl TokensUsed {
    /// The envelope figures for a run's `usage` and final `response` text.
    pub fn from_usage(usage: &Usage, response: &str) -> Self {
        Self {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            estimated_output_tokens: estimate_output_tokens(response),
            total_tokens: usage.total_tokens,
            cost_usd: usage.cost_usd,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_creation_1h_input_tokens: usage.cache_creation_1h_input_tokens,
            estimated: usage.estimated,
        }
    }

    /// Add `other`'s figures to these (a workflow's sum of its steps'
    /// runs): every count, the cost where either is known (a sum when both
    /// are), `estimated` when either is.
    pub fn add(&mut self, other: &TokensUsed) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.estimated_output_tokens += other.estimated_output_tokens;
        self.total_tokens += other.total_tokens;
        self.cost_usd = crate::usage::sum_costs(self.cost_usd, other.cost_usd);
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_creation_1h_input_tokens += other.cache_creation_1h_input_tokens;
        self.estimated |= other.estimated;
    }
}

/// The wrapper's estimate of the tokens in `text`: one per four characters,
/// at least one for non-empty text.
pub fn estimate_output_tokens(text: &str) -> u64 {
    let chars = u64::try_from(text.chars().count()).unwrap_or(u64::MAX);
    if chars == 0 { 0 } else { (chars / 4).max(1) }
}

/// The envelope's `metadata`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Metadata {
    /// Whether `tokens_used` holds figures the provider reported: false when
    /// it reported none, or when agentgate estimated them (then
    /// `tokens_used.estimated` is true).
    #[serde(default)]
    pub token_usage_available: bool,
    /// Whether `reasoning` holds the model's reasoning.
    #[serde(default)]
    pub reasoning_available: bool,
    /// Where `reasoning` came from.
    #[serde(default)]
    pub reasoning_source: ReasoningSource,
    /// Why `reasoning` is empty, or `available` when it is not.
    #[serde(default)]
    pub reasoning_absent_reason: ReasoningAbsentReason,
    /// Where `tokens_used` comes from: `wire` when the run's gateway read
    /// the model API's own figures, absent when they are what the CLI
    /// printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_source: Option<crate::gateway::UsageSource>,
    /// Tool calls of the run; `null` when the provider's output cannot show
    /// them (a plain-text CLI), zero counts when it can and none ran.
    #[serde(default)]
    pub tool_activity: Option<ToolActivity>,
}

/// Where the envelope's `reasoning` came from (the wrapper's vocabulary).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ReasoningSource {
    /// The provider CLI's own output (its `thinking` events).
    #[serde(rename = "raw_output")]
    RawOutput,
    /// The provider's session file, read after the run.
    #[serde(rename = "session_log")]
    SessionLog,
    /// There is no reasoning.
    #[default]
    #[serde(rename = "none")]
    None,
}

/// Why the envelope's `reasoning` is empty (the wrapper's vocabulary, plus
/// `not_exposed`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ReasoningAbsentReason {
    /// It is not empty: reasoning is available.
    #[serde(rename = "available")]
    Available,
    /// The model produced no reasoning the provider passed on.
    #[default]
    #[serde(rename = "model_not_emitted")]
    ModelNotEmitted,
    /// The provider CLI never exposes reasoning, neither in its output nor in
    /// a session file agentgate can read.
    #[serde(rename = "not_exposed")]
    NotExposed,
    /// The run failed before any reasoning was seen.
    #[serde(rename = "error_path")]
    ErrorPath,
}

/// The envelope's `metadata.tool_activity`: a summary of the run's tool calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolActivity {
    /// Tool calls, repeats counted.
    #[serde(default)]
    pub call_count: u64,
    /// Calls of class `write`.
    #[serde(default)]
    pub write_count: u64,
    /// Calls whose result reported failure.
    #[serde(default)]
    pub error_count: u64,
    /// Names of the tools called, each once, in order of first use.
    #[serde(default)]
    pub tool_names: Vec<String>,
    /// Classes of the tools called, each once, in order of first use.
    #[serde(default)]
    pub result_classes: Vec<ToolClass>,
    /// Roll-up of the counts.
    #[serde(default)]
    pub activity_class: ActivityClass,
    /// Where the figures come from, e.g. `stream:claude`.
    #[serde(default)]
    pub source: String,
}

/// Roll-up of [`ToolActivity`], the first that applies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ActivityClass {
    /// At least one tool call failed.
    #[serde(rename = "tool_errors")]
    ToolErrors,
    /// At least one tool call wrote to the workspace.
    #[serde(rename = "write_active")]
    WriteActive,
    /// Tools were called, none wrote.
    #[serde(rename = "tool_active")]
    ToolActive,
    /// No tool was called.
    #[default]
    #[serde(rename = "none")]
    None,
}

impl ActivityClass {
    /// The roll-up of the given counts.
    pub const fn from_counts(call_count: u64, write_count: u64, error_count: u64) -> Self {
        if error_count > 0 {
            Self::ToolErrors
        } else if write_count > 0 {
            Self::WriteActive
        } else if call_count > 0 {
            Self::ToolActive
        } else {
            Self::None
        }
    }
}

/// One agent tried during a run: an entry of the envelope's `attempts`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Attempt {
    /// The provider (`claude`, `codex`, …).
    pub provider: String,
    /// The model, as reported or requested; `null` for the provider's default.
    #[serde(default)]
    pub model: Option<String>,
    /// The agent's name in the failover chain, if it has one.
    #[serde(default)]
    pub agent: Option<String>,
    /// The native session id of this attempt, if one became known.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Wall-clock duration of the attempt, in milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// Exit status of the provider CLI; `null` if it was killed by a signal or
    /// never started.
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// The attempt's error kind; `null` if it succeeded.
    #[serde(default)]
    pub error_type: Option<ErrorKind>,
    /// The attempt's error message; `null` if it succeeded.
    #[serde(default)]
    pub error: Option<String>,
    /// Whether the attempt's error was recoverable; `null` if it succeeded.
    #[serde(default)]
    pub recoverable: Option<bool>,
    /// When the limit that stopped this attempt resets: RFC 3339, UTC.
    #[serde(default)]
    #[schemars(extend("format" = "date-time"))]
    pub reset_at: Option<String>,
    /// Whether the provider was not run at all because its quota was known
    /// to be exhausted until `reset_at` (then `error_type` is `quota`).
    #[serde(default)]
    pub skipped: bool,
    /// Processes the attempt's CLI started that were still alive when it
    /// ended although they were sent SIGKILL (e.g. stuck in uninterruptible
    /// I/O); empty when every process was ended. End them by hand.
    #[serde(default)]
    pub survivors: Vec<Survivor>,
}

/// A process of an attempt that agentgate could not end.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Survivor {
    /// Its pid.
    pub pid: u32,
    /// Its command line (arguments joined by spaces), or its name.
    pub command: String,
}
