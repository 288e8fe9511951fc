//! `agents:`: named agents, each a provider with its model and options.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::custom::resolve_binary;
use super::origin::Origins;
use super::retry::{self, RawItem, RetryOn};
use super::yaml::{Entries, Fault, Secs, Text, line, text_pairs, texts};
use crate::provider::PermissionMode;

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
    /// The permission mode.
    pub permission_mode: Option<PermissionMode>,
    /// Instructions appended to the CLI's system prompt.
    pub system: Option<String>,
    /// An agent definition Markdown file (absolute).
    pub agent_file: Option<PathBuf>,
    /// The persona block of `agent_file` to use.
    pub persona: Option<String>,
    /// The working directory (absolute).
    pub cwd: Option<PathBuf>,
    /// Wall-clock limit of a run.
    pub timeout: Option<Duration>,
    /// Limit on silence.
    pub idle_timeout: Option<Duration>,
    /// Environment for the CLI (on top of the provider's defaults).
    pub env: Vec<(String, String)>,
    /// Arguments appended to the CLI's argv (after the provider's).
    pub extra_args: Vec<String>,
    /// The executable, instead of the provider's.
    pub binary: Option<PathBuf>,
    /// The failures of this agent that let a chain move on; none = the
    /// chain's, else every recoverable error.
    pub retry_on: Option<RetryOn>,
    /// Bound on the CLI's own retries of failed model requests.
    pub max_provider_retries: Option<u32>,
    /// A JSON Schema file the answer must satisfy (absolute).
    pub output_schema: Option<PathBuf>,
    /// cli_agents.yaml's `permissions_file`: recorded, not used.
    pub permissions_file: Option<PathBuf>,
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
    cwd: Option<Spanned<String>>,
    #[serde(default)]
    timeout: Option<Spanned<Secs>>,
    #[serde(default)]
    idle_timeout: Option<Spanned<Secs>>,
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
}

/// `~/x` is under the home folder; a relative path is relative to `base`
/// (the config file's folder).
pub(super) fn resolve_path(p: &str, base: &Path) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    // `.` parts say nothing: `working_dir: .` is the file's folder itself.
    base.join(p)
        .components()
        .filter(|c| *c != std::path::Component::CurDir)
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
    if let Some(p) = &raw.permission_mode {
        a.permission_mode = Some(
            p.value
                .parse::<PermissionMode>()
                .map_err(|m| Fault::at(p, label(m)))?,
        );
        a.origins.set("permission_mode", line(p));
    }
    let string = |key: &str, s: &Option<Spanned<String>>, o: &mut Origins| {
        s.as_ref().map(|s| {
            o.set(key, line(s));
            s.value.clone()
        })
    };
    a.system = string("system", &raw.system, &mut a.origins);
    a.persona = string("persona", &raw.persona, &mut a.origins);
    let path = |key: &str, s: &Option<Spanned<String>>, o: &mut Origins| -> Result<_, Fault> {
        let Some(s) = s else { return Ok(None) };
        if s.value.trim().is_empty() {
            return Err(Fault::at(s, label(format!("`{key}` is empty"))));
        }
        o.set(key, line(s));
        Ok(Some(resolve_path(s.value.trim(), base)))
    };
    a.agent_file = path("agent_file", &raw.agent_file, &mut a.origins)?;
    a.cwd = path("cwd", &raw.cwd, &mut a.origins)?;
    a.output_schema = path("output_schema", &raw.output_schema, &mut a.origins)?;
    if let Some(b) = &raw.binary {
        if b.value.trim().is_empty() {
            return Err(Fault::at(b, label("`binary` is empty".into())));
        }
        a.binary = Some(PathBuf::from(resolve_binary(b.value.trim(), base)));
        a.origins.set("binary", line(b));
    }
    if let Some(t) = &raw.timeout {
        a.timeout = Some(t.value.0);
        a.origins.set("timeout", line(t));
    }
    if let Some(t) = &raw.idle_timeout {
        a.idle_timeout = Some(t.value.0);
        a.origins.set("idle_timeout", line(t));
    }
    if let Some(e) = &raw.env {
        a.env = text_pairs(&e.value);
        a.origins.set("env", line(e));
    }
    if let Some(x) = &raw.extra_args {
        a.extra_args = texts(&x.value);
        a.origins.set("extra_args", line(x));
    }
    if let Some(r) = &raw.retry_on {
        a.retry_on =
            Some(retry::convert(r, false).map_err(|f| Fault::new(f.at, label(f.message)))?);
        a.origins.set("retry_on", line(r));
    }
    if let Some(r) = &raw.max_provider_retries {
        a.max_provider_retries = Some(r.value);
        a.origins.set("max_provider_retries", line(r));
    }
    Ok(a)
}
