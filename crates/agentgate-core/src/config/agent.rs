//! `agents:`: named agents, each a provider with its model and options.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::origin::Origins;
use super::paths::resolve_path;
use super::retry::RawItem;
use super::settings::{self, SettingsKeys};
use super::yaml::{Entries, Fault, Secs, Text, line};
use crate::prompt::InstructionFile;
use crate::settings::Settings;

/// What an agent may do to the files of its working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentMode {
    /// It must not edit files.
    Classify,
    /// It may edit files, only under these paths: relative to the agent's
    /// working directory (or absolute). Without `allow:`, `["."]`: the
    /// whole working directory.
    Edit {
        /// The allowlist.
        allow: Vec<PathBuf>,
    },
}

impl AgentMode {
    /// `classify` or `edit`.
    pub fn as_str(&self) -> &'static str {
        match self {
            AgentMode::Classify => "classify",
            AgentMode::Edit { .. } => "edit",
        }
    }
}

/// `mode:` as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum ModeName {
    Classify,
    Edit,
}

/// A named agent.
#[derive(Debug, Clone, Default)]
pub struct AgentSpec {
    /// Its name, as given to `--agent` and listed in chains.
    pub name: String,
    /// The provider: a built-in name (lower case) or a CLI described in
    /// the same file.
    pub provider: String,
    /// The model of the default tier (an alias or a model id). When only
    /// `model_thinking` is given, it is that: the default tier is thinking.
    pub model: Option<String>,
    /// The model of the fast tier (`--tier fast`).
    pub model_fast: Option<String>,
    /// The model of the thinking tier.
    pub model_thinking: Option<String>,
    /// `classify` or `edit`; none = no file policy.
    pub mode: Option<AgentMode>,
    /// Its settings: permission mode, system instructions, working
    /// directory, limits, environment, arguments, executable, `retry_on`,
    /// output schema (paths absolute).
    pub settings: Settings,
    /// An agent definition Markdown file (absolute).
    pub agent_file: Option<PathBuf>,
    /// The persona block of `agent_file` to use.
    pub persona: Option<String>,
    /// `instructions:`: standing instruction files sent first in every new
    /// session's prompt, in order (absolute; a migrated cli_agents.yaml's
    /// defaults are optional: left out when missing).
    pub instructions: Vec<InstructionFile>,
    /// `permissions_file`: agentgate's vendor-neutral permissions or the
    /// CLI's own settings, applied where the CLI takes them (absolute).
    pub permissions_file: Option<PathBuf>,
    /// `summary_file:`: where each finished attempt's structured summary
    /// (files changed, answer, error) is written (absolute).
    pub summary_file: Option<PathBuf>,
    /// `gateway:`: this agent's runs go through a model gateway (or not),
    /// over the config's `gateway:` section; `--gateway` wins.
    pub gateway: Option<bool>,
    /// `sandbox:`: this agent's runs' sandbox level, over the config's
    /// `sandbox:` section; `--sandbox` wins.
    pub sandbox: Option<agentgate_protocol::SandboxLevel>,
    /// `tools:`: registry tools the agent may call in every run (through
    /// agentgate's MCP server; see `agentgate run --tools`).
    pub tools: Vec<String>,
    /// `log_dir:`: the folder of the log file of each run whose first
    /// agent this is (over the file's `log_dir:`, under `--log-dir`).
    pub log_dir: Option<PathBuf>,
    /// `max_context_tokens`, `rotate_handoff`, `rotate_prompt`: when a
    /// session of this agent starts a new native session instead of
    /// resuming, and how it is seeded (under `--max-context-tokens`).
    pub rotation: crate::session_rotation::RotationSettings,
    /// Where each value was written.
    pub origins: Origins,
}

impl AgentSpec {
    /// The model of a tier: `fast` takes `model_fast` (else `model`), the
    /// default tier `model`.
    pub fn model_for_tier(&self, fast: bool) -> Option<&str> {
        if fast {
            self.model_fast.as_deref().or(self.model.as_deref())
        } else {
            self.model.as_deref()
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAgent {
    provider: Spanned<String>,
    #[serde(default)]
    model: Option<Spanned<Text>>,
    #[serde(default)]
    model_fast: Option<Spanned<Text>>,
    #[serde(default)]
    model_thinking: Option<Spanned<Text>>,
    #[serde(default)]
    mode: Option<Spanned<ModeName>>,
    #[serde(default)]
    allow: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    permission_mode: Option<Spanned<String>>,
    #[serde(default)]
    system: Option<Spanned<String>>,
    #[serde(default)]
    agent_file: Option<Spanned<String>>,
    #[serde(default)]
    persona: Option<Spanned<String>>,
    #[serde(default)]
    instructions: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    summary_file: Option<Spanned<String>>,
    #[serde(default)]
    permissions_file: Option<Spanned<String>>,
    #[serde(default)]
    gateway: Option<Spanned<bool>>,
    #[serde(default)]
    sandbox: Option<Spanned<String>>,
    #[serde(default)]
    cwd: Option<Spanned<String>>,
    #[serde(default)]
    timeout: Option<Spanned<Secs>>,
    #[serde(default)]
    idle_timeout: Option<Spanned<Secs>>,
    #[serde(default)]
    timeout_warn: Option<Spanned<String>>,
    #[serde(default)]
    extend_on_activity: Option<Spanned<Secs>>,
    #[serde(default)]
    max_timeout: Option<Spanned<Secs>>,
    #[serde(default)]
    env: Option<Spanned<Entries<Text>>>,
    #[serde(default)]
    extra_args: Option<Spanned<Vec<Text>>>,
    #[serde(default)]
    binary: Option<Spanned<String>>,
    #[serde(default)]
    retry_on: Option<Spanned<Vec<Spanned<RawItem>>>>,
    #[serde(default)]
    max_provider_retries: Option<Spanned<u32>>,
    #[serde(default)]
    output_schema: Option<Spanned<String>>,
    #[serde(default)]
    workspace: Option<Spanned<String>>,
    #[serde(default)]
    tools: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    log_dir: Option<Spanned<String>>,
    #[serde(default)]
    reasoning_effort: Option<Spanned<String>>,
    #[serde(default)]
    unsupported_effort: Option<Spanned<String>>,
    #[serde(default)]
    thinking_budget: Option<Spanned<u32>>,
    #[serde(default)]
    max_turns: Option<Spanned<u32>>,
    #[serde(default)]
    env_remove: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    extra_args_mode: Option<Spanned<String>>,
    #[serde(default)]
    max_context_tokens: Option<Spanned<u64>>,
    #[serde(default)]
    rotate_handoff: Option<Spanned<String>>,
    #[serde(default)]
    rotate_prompt: Option<Spanned<String>>,
}

/// The longest tool name (as `agentgate-tools` allows in a manifest).
const TOOL_NAME_MAX: usize = 64;

/// `tools:` of an agent: registry tool names (letters, digits, `_` and
/// `-`), each once. Whether the registry has them is checked when a run
/// starts, by whoever opens the registry.
fn tool_names(
    list: &Spanned<Vec<Spanned<String>>>,
    label: &dyn Fn(String) -> String,
) -> Result<Vec<String>, Fault> {
    let mut out: Vec<String> = Vec::new();
    for t in &list.value {
        let n = t.value.trim();
        let ok = !n.is_empty()
            && n.len() <= TOOL_NAME_MAX
            && n.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !ok {
            return Err(Fault::at(
                t,
                label(format!(
                    "`{n}` is not a tool name (1 to {TOOL_NAME_MAX} letters, digits, `_` or `-`)"
                )),
            ));
        }
        if out.iter().any(|o| o == n) {
            return Err(Fault::at(
                t,
                label(format!("the tool `{n}` is listed twice")),
            ));
        }
        out.push(n.to_owned());
    }
    Ok(out)
}

/// `instructions:`: files, each required, relative to the config file's
/// folder.
pub(super) fn instruction_files(
    list: &Spanned<Vec<Spanned<String>>>,
    base: &Path,
    label: &dyn Fn(String) -> String,
) -> Result<Vec<InstructionFile>, Fault> {
    list.value
        .iter()
        .map(|p| {
            if p.value.trim().is_empty() {
                return Err(Fault::at(
                    p,
                    label("an `instructions` path is empty".into()),
                ));
            }
            Ok(InstructionFile {
                path: resolve_path(p.value.trim(), base),
                required: true,
            })
        })
        .collect()
}

/// Check a name of an agent or chain.
pub(super) fn check_name(what: &str, name: &Spanned<String>) -> Result<(), Fault> {
    let n = &name.value;
    if n.is_empty()
        || !n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(Fault::at(
            name,
            format!("`{n}` is not a {what} name (use letters, digits, `-`, `_` and `.`)"),
        ));
    }
    Ok(())
}

/// Check the agent `name`; `provider` turns a provider name into its
/// canonical one, or says why it is unknown.
pub(super) fn convert(
    name: &Spanned<String>,
    raw: &RawAgent,
    base: &Path,
    provider: &dyn Fn(&str) -> Result<String, String>,
) -> Result<AgentSpec, Fault> {
    check_name("agent", name)?;
    let label = |m: String| format!("agent `{}`: {m}", name.value);
    let mut a = AgentSpec {
        name: name.value.clone(),
        origins: Origins::at(line(name)),
        ..AgentSpec::default()
    };
    a.provider =
        provider(raw.provider.value.trim()).map_err(|m| Fault::at(&raw.provider, label(m)))?;
    a.origins.set("provider", line(&raw.provider));
    let text = |key: &str, t: &Option<Spanned<Text>>, o: &mut Origins| -> Result<_, Fault> {
        let Some(t) = t else { return Ok(None) };
        if t.value.0.trim().is_empty() {
            return Err(Fault::at(t, label(format!("`{key}` is empty"))));
        }
        o.set(key, line(t));
        Ok(Some(t.value.0.trim().to_owned()))
    };
    a.model = text("model", &raw.model, &mut a.origins)?;
    a.model_fast = text("model_fast", &raw.model_fast, &mut a.origins)?;
    a.model_thinking = text("model_thinking", &raw.model_thinking, &mut a.origins)?;
    if a.model.is_none()
        && let Some(t) = &raw.model_thinking
    {
        a.model = a.model_thinking.clone();
        a.origins.set("model", line(t));
    }
    a.mode = match (&raw.mode, &raw.allow) {
        (Some(m), _) if m.value == ModeName::Edit => {
            a.origins.set("mode", line(m));
            let allow = match &raw.allow {
                Some(list) => {
                    a.origins.set("allow", line(list));
                    if list.value.is_empty() {
                        return Err(Fault::at(
                            list,
                            label("`allow` is empty: list the paths the agent may edit, or leave `allow` out to allow its whole working directory".into()),
                        ));
                    }
                    list.value
                        .iter()
                        .map(|p| {
                            if p.value.trim().is_empty() {
                                Err(Fault::at(p, label("an `allow` path is empty".into())))
                            } else {
                                Ok(PathBuf::from(p.value.trim()))
                            }
                        })
                        .collect::<Result<Vec<_>, _>>()?
                }
                None => vec![PathBuf::from(".")],
            };
            Some(AgentMode::Edit { allow })
        }
        (_, Some(list)) => {
            return Err(Fault::at(
                list,
                label("`allow` applies to `mode: edit` only".into()),
            ));
        }
        (Some(m), None) => {
            a.origins.set("mode", line(m));
            Some(AgentMode::Classify)
        }
        (None, None) => None,
    };
    let keys = SettingsKeys {
        binary: raw.binary.as_ref(),
        timeout: raw.timeout.as_ref(),
        idle_timeout: raw.idle_timeout.as_ref(),
        timeout_warn: raw.timeout_warn.as_ref(),
        extend_on_activity: raw.extend_on_activity.as_ref(),
        max_timeout: raw.max_timeout.as_ref(),
        max_provider_retries: raw.max_provider_retries.as_ref(),
        permission_mode: raw.permission_mode.as_ref(),
        system: raw.system.as_ref(),
        cwd: raw.cwd.as_ref().map(|c| ("cwd", c)),
        output_schema: raw.output_schema.as_ref(),
        retry_on: raw.retry_on.as_ref(),
        lenient_retry_names: false,
        env: raw.env.as_ref(),
        extra_args: raw.extra_args.as_ref(),
        workspace: raw.workspace.as_ref(),
        knobs: Some(settings::knob_keys!(raw)),
    };
    a.settings = settings::convert(&keys, base, &label, &mut a.origins)?;
    if let Some(list) = &raw.tools {
        a.tools = tool_names(list, &label)?;
        a.origins.set("tools", line(list));
    }
    if let Some(s) = &raw.persona {
        a.persona = Some(s.value.clone());
        a.origins.set("persona", line(s));
    }
    if let Some(s) = &raw.agent_file {
        if s.value.trim().is_empty() {
            return Err(Fault::at(s, label("`agent_file` is empty".into())));
        }
        a.agent_file = Some(resolve_path(s.value.trim(), base));
        a.origins.set("agent_file", line(s));
    }
    if let Some(list) = &raw.instructions {
        a.instructions = instruction_files(list, base, &label)?;
        a.origins.set("instructions", line(list));
    }
    if let Some(s) = &raw.permissions_file {
        if s.value.trim().is_empty() {
            return Err(Fault::at(s, label("`permissions_file` is empty".into())));
        }
        a.permissions_file = Some(resolve_path(s.value.trim(), base));
        a.origins.set("permissions_file", line(s));
    }
    if let Some(g) = &raw.gateway {
        a.gateway = Some(g.value);
        a.origins.set("gateway", line(g));
    }
    if let Some(s) = &raw.sandbox {
        a.sandbox = Some(super::sandbox::level(s, &label("`sandbox`".into()))?);
        a.origins.set("sandbox", line(s));
    }
    if let Some(s) = &raw.summary_file {
        if s.value.trim().is_empty() {
            return Err(Fault::at(s, label("`summary_file` is empty".into())));
        }
        a.summary_file = Some(resolve_path(s.value.trim(), base));
        a.origins.set("summary_file", line(s));
    }
    if let Some(s) = &raw.log_dir {
        if s.value.trim().is_empty() {
            return Err(Fault::at(s, label("`log_dir` is empty".into())));
        }
        a.log_dir = Some(resolve_path(s.value.trim(), base));
        a.origins.set("log_dir", line(s));
    }
    a.rotation = rotation(raw, &label, &mut a.origins)?;
    Ok(a)
}

/// `max_context_tokens`, `rotate_handoff` and `rotate_prompt`, checked.
fn rotation(
    raw: &RawAgent,
    label: &dyn Fn(String) -> String,
    origins: &mut Origins,
) -> Result<crate::session_rotation::RotationSettings, Fault> {
    let mut out = crate::session_rotation::RotationSettings::default();
    if let Some(n) = &raw.max_context_tokens {
        if n.value == 0 {
            return Err(Fault::at(
                n,
                label("`max_context_tokens` is at least 1".into()),
            ));
        }
        out.max_context_tokens = Some(n.value);
        origins.set("max_context_tokens", line(n));
    }
    let kind = raw.rotate_handoff.as_ref();
    let text = raw.rotate_prompt.as_ref();
    out.handoff = crate::session_rotation::RotationHandoff::from_parts(
        kind.map(|k| k.value.as_str()),
        text.map(|t| t.value.as_str()),
    )
    .map_err(|m| match (kind, text) {
        (Some(k), _) => Fault::at(k, label(format!("`rotate_handoff`: {m}"))),
        (None, Some(t)) => Fault::at(t, label(format!("`rotate_prompt`: {m}"))),
        (None, None) => Fault::at(&raw.provider, label(m)),
    })?;
    if let Some(k) = kind {
        origins.set("rotate_handoff", line(k));
    }
    if let Some(t) = text {
        origins.set("rotate_prompt", line(t));
    }
    Ok(out)
}
