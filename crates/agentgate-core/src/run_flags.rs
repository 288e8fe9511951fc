//! What a caller asks of a run: the flags of `agentgate run`, as a plain
//! type that the command line, the server and library callers all fill.

use std::path::PathBuf;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::settings::{Handoff, OnDirty, Settings};
use agentgate_providers::McpServer;

/// Which model of an agent a run uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// The agent's `model` (its thinking model), the default.
    #[default]
    Thinking,
    /// The agent's `model_fast`, else its `model`.
    Fast,
}

/// What a run does when another run holds its `--session`: one run at a
/// time per session name, so that the first run creates exactly one native
/// session and every turn is counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SessionBusy {
    /// Wait for the other run to finish (at most the run's `--timeout`),
    /// the default.
    #[default]
    Wait,
    /// End at once with a `session_busy` error (exit 75).
    Fail,
}

impl SessionBusy {
    /// `wait` or `fail`.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionBusy::Wait => "wait",
            SessionBusy::Fail => "fail",
        }
    }
}

/// A run as asked: which agents, how each is set up, the prompt's parts and
/// the chain's policies. Relative paths are relative to the process's
/// working directory. `None` (or an empty list) leaves the choice to the
/// config file and the defaults.
#[derive(Debug, Clone, Default)]
pub struct RunFlags {
    /// Providers to try in order (`--provider claude,codex`).
    pub providers: Vec<String>,
    /// Agents of the config file to try in order (`--agent`).
    pub agents: Vec<String>,
    /// A chain of the config file (`--chain`). With no providers, agents
    /// or chain, the config's chain `default` runs.
    pub chain: Option<String>,
    /// The model: a name the provider knows, or an alias of the config.
    pub model: Option<String>,
    /// Which model of an agent to use.
    pub tier: Tier,
    /// The settings given for every step; they win over the agent's and
    /// the provider's (`permission_mode`, `system`, `cwd`, limits, `env`,
    /// `extra_args`, `binary`, `retry_on`, `output_schema`, ...).
    pub settings: Settings,
    /// Read the system instructions from this file (over
    /// `settings.system`).
    pub system_file: Option<PathBuf>,
    /// An agent definition Markdown file, put before the task.
    pub agent_file: Option<PathBuf>,
    /// Only this persona block of the agent file.
    pub persona: Option<String>,
    /// Context files put before the task.
    pub context: Vec<PathBuf>,
    /// Take CONTEXT.md from this folder.
    pub context_dir: Option<PathBuf>,
    /// Cut the context to this many bytes.
    pub context_max: Option<usize>,
    /// Do not include CONTEXT.md.
    pub skip_context_file: bool,
    /// Leave out the instruction that the agent runs unattended.
    pub no_unattended_instruction: bool,
    /// Refuse a prompt larger than this.
    pub prompt_max_bytes: Option<usize>,
    /// Warn about a prompt larger than this.
    pub prompt_warn_bytes: Option<usize>,
    /// Extra directories the agent may use.
    pub add_dirs: Vec<PathBuf>,
    /// A session name: the first run creates the provider's session, later
    /// ones resume it.
    pub session: Option<String>,
    /// A provider's native session id to resume (one provider only).
    pub resume: Option<String>,
    /// What to do when another run holds the session.
    pub session_busy: SessionBusy,
    /// What failover does when a failed attempt changed the workspace.
    pub on_dirty: Option<OnDirty>,
    /// What the next agent learns of a failed attempt.
    pub handoff: Option<Handoff>,
    /// Run providers even when their quota is recorded as exhausted.
    pub ignore_quota: bool,
    /// The clock for quota decisions; `None` = the system's.
    pub now: Option<Timestamp>,
    /// MCP servers every step's CLI starts for this run only; see
    /// [`agentgate_providers::mcp`].
    pub mcp_servers: Vec<McpServer>,
    /// `--tools`: registry tools every step's agent may call, besides its
    /// own `tools:` (the run's `ToolServer` (in `run`)
    /// offers them).
    pub tools: Vec<String>,
    /// `--label key=value`: recorded with the run and its session, and put
    /// in the envelope (checked by the caller: `agentgate_protocol::check_labels`).
    pub labels: agentgate_protocol::Labels,
    /// `--log-dir`: write the run's log file in this folder (over the
    /// config's `log_dir:`, the first agent's then the file's).
    pub log_dir: Option<PathBuf>,
    /// `--log-name`: the log file's name template (over the config's
    /// `log_name:`; see [`crate::log_name`]).
    pub log_name: Option<String>,
    /// `--skill NAME --input JSON`: the skill every step invokes, its own
    /// way (`plan/skill.rs`).
    pub skill: Option<SkillCall>,
    /// `--debug-prompt`: save the prompt sent, redacted, as `prompt.txt` in
    /// the run folder (with the config's `debug_prompt:`, either asks).
    pub debug_prompt: bool,
    /// The reasoning-effort levels each model takes, where a catalog knows
    /// them; an effort a model does not take is clamped or dropped
    /// (`plan/effort.rs`). Unset: every effort is passed as asked.
    pub effort_levels: EffortLevels,
    /// `--gateway` / `--no-gateway`: a model gateway in front of every
    /// step's CLI, or none (over the agent's and the config's `gateway:`).
    pub gateway: Option<bool>,
    /// `--record-model-calls`: the gateway keeps the run's model calls in
    /// `model-calls.jsonl` (with the config's `record_model_calls:`, either
    /// asks).
    pub record_model_calls: bool,
    /// `--max-model-calls`, `--max-input-tokens`, `--max-output-tokens`,
    /// `--max-model-time`: over the config's `gateway.limits`.
    pub gateway_limits: crate::gateway_limits::GatewayLimits,
    /// `--sandbox LEVEL`: every step's sandbox level (over the agent's and
    /// the config's `sandbox:`).
    pub sandbox: Option<agentgate_protocol::SandboxLevel>,
    /// `--max-context-tokens`, `--rotate-handoff`, `--rotate-prompt`: the
    /// session's rotation, over each agent's.
    pub rotation: crate::session_rotation::RotationSettings,
    /// `--max-cost`, `--max-tokens`: the run's own limits, over the
    /// config's `budgets.run` (`crate::budget`).
    pub budget: crate::budget::Limits,
}

/// The levels of reasoning effort a model takes: `(provider, model)` (the
/// model as the step will pass it, `None` for the CLI's default) to the
/// list, `None` when unknown. The seam through which a model catalog
/// tells the planner.
pub type EffortLevelsFn = dyn Fn(&str, Option<&str>) -> Option<Vec<String>> + Send + Sync;

/// [`RunFlags::effort_levels`]: a lookup, or none.
#[derive(Clone, Default)]
pub struct EffortLevels(pub Option<std::sync::Arc<EffortLevelsFn>>);

impl EffortLevels {
    /// The levels `model` of `provider` takes, if known.
    pub fn of(&self, provider: &str, model: Option<&str>) -> Option<Vec<String>> {
        self.0.as_ref().and_then(|f| f(provider, model))
    }
}

impl std::fmt::Debug for EffortLevels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "EffortLevels(lookup)"
        } else {
            "EffortLevels(none)"
        })
    }
}

/// The variable that sets the clock of a run (RFC 3339), for tests of the
/// quota skipping around a reset time.
pub const NOW_ENV: &str = "AGENTGATE_NOW";

/// The clock `AGENTGATE_NOW` sets, if it is set.
pub fn now_from_env() -> Result<Option<Timestamp>, String> {
    match std::env::var(NOW_ENV) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse::<Timestamp>()
            .map(Some)
            .map_err(|_| format!("{NOW_ENV}={v} is not an RFC 3339 time")),
        _ => Ok(None),
    }
}

/// The names of a comma-separated list (`claude,codex`), blanks dropped.
pub fn names(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A skill a run invokes (`--skill NAME --input JSON`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillCall {
    /// The skill's name.
    pub name: String,
    /// Its input: a JSON string is passed as its text, other JSON compact.
    pub input: Option<serde_json::Value>,
}

impl SkillCall {
    /// The input as the text the invocation carries (empty for none).
    pub fn input_text(&self) -> String {
        match &self.input {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
        }
    }
}

/// A skill name a run may ask for: not blank, no white space, no `/`
/// (it becomes `/NAME` or `$NAME` in a prompt and a folder name).
pub fn check_skill_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 128 {
        return Err("a skill name is 1 to 128 characters".to_owned());
    }
    if name
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '/' || c == '\\' || c == '$')
    {
        return Err(format!(
            "`{name}` is not a skill name (no white space, `/`, `\\` or `$`)"
        ));
    }
    Ok(())
}
