//! The settings keys every entry kind shares (an agent, a provider's
//! defaults, a migrated cli_agents.yaml agent), checked into a
//! [`Settings`] by one converter that also records where each was written.

use std::path::{Path, PathBuf};

use serde_saphyr::Spanned;

use super::origin::Origins;
use super::paths::{resolve_binary, resolve_path};
use super::retry::{self, RawItem};
use super::yaml::{Entries, Fault, Secs, Text, line, text_pairs, texts};
use crate::settings::{PermissionMode, Settings, WorkspaceMode};

/// The settings keys of one entry as written; each may be absent. The
/// origins record them under their [`Settings`] names.
#[derive(Debug, Default)]
pub(super) struct SettingsKeys<'a> {
    pub binary: Option<&'a Spanned<String>>,
    pub timeout: Option<&'a Spanned<Secs>>,
    pub idle_timeout: Option<&'a Spanned<Secs>>,
    pub timeout_warn: Option<&'a Spanned<String>>,
    pub extend_on_activity: Option<&'a Spanned<Secs>>,
    pub max_timeout: Option<&'a Spanned<Secs>>,
    pub max_provider_retries: Option<&'a Spanned<u32>>,
    pub permission_mode: Option<&'a Spanned<String>>,
    pub system: Option<&'a Spanned<String>>,
    /// The working directory, with the key it is written under
    /// (`working_dir` in a cli_agents.yaml).
    pub cwd: Option<(&'static str, &'a Spanned<String>)>,
    pub output_schema: Option<&'a Spanned<String>>,
    pub retry_on: Option<&'a Spanned<Vec<Spanned<RawItem>>>>,
    /// A cli_agents.yaml's `retry_on`: a name that is no error type is a
    /// case-insensitive substring pattern, not an error.
    pub lenient_retry_names: bool,
    pub env: Option<&'a Spanned<Entries<Text>>>,
    pub extra_args: Option<&'a Spanned<Vec<Text>>>,
    pub workspace: Option<&'a Spanned<String>>,
    pub knobs: Option<KnobKeys<'a>>,
}

/// The keys of an agent or a provider's defaults for the CLI's own knobs
/// (reasoning effort, thinking, turns, inherited variables, how extra
/// arguments combine), as written.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct KnobKeys<'a> {
    pub reasoning_effort: Option<&'a Spanned<String>>,
    pub unsupported_effort: Option<&'a Spanned<String>>,
    pub thinking_budget: Option<&'a Spanned<u32>>,
    pub max_turns: Option<&'a Spanned<u32>>,
    pub env_remove: Option<&'a Spanned<Vec<Spanned<String>>>>,
    pub extra_args_mode: Option<&'a Spanned<String>>,
}

/// The raw fields of the knob keys, for a raw entry to embed (each
/// `#[serde(default)]`), and [`KnobKeys`] of them.
macro_rules! knob_keys {
    ($raw:expr) => {
        $crate::config::settings::KnobKeys {
            reasoning_effort: $raw.reasoning_effort.as_ref(),
            unsupported_effort: $raw.unsupported_effort.as_ref(),
            thinking_budget: $raw.thinking_budget.as_ref(),
            max_turns: $raw.max_turns.as_ref(),
            env_remove: $raw.env_remove.as_ref(),
            extra_args_mode: $raw.extra_args_mode.as_ref(),
        }
    };
}
pub(super) use knob_keys;

/// Check the knob keys into `s`.
fn convert_knobs(
    k: &KnobKeys<'_>,
    s: &mut Settings,
    label: &dyn Fn(String) -> String,
    origins: &mut Origins,
) -> Result<(), Fault> {
    if let Some(e) = k.reasoning_effort {
        s.reasoning_effort = Some(
            agentgate_providers::reasoning::parse_effort(&e.value)
                .map_err(|m| Fault::at(e, label(format!("`reasoning_effort`: {m}"))))?,
        );
        origins.set("reasoning_effort", line(e));
    }
    if let Some(u) = k.unsupported_effort {
        s.unsupported_effort = Some(u.value.parse().map_err(|m| Fault::at(u, label(m)))?);
        origins.set("unsupported_effort", line(u));
    }
    if let Some(b) = k.thinking_budget {
        s.thinking_budget = Some(b.value);
        origins.set("thinking_budget", line(b));
    }
    if let Some(n) = k.max_turns {
        if n.value == 0 {
            return Err(Fault::at(n, label("`max_turns` is at least 1".into())));
        }
        s.max_turns = Some(n.value);
        origins.set("max_turns", line(n));
    }
    if let Some(list) = k.env_remove {
        for v in &list.value {
            let n = v.value.trim();
            if n.is_empty() || n.contains(['=', '\0']) {
                return Err(Fault::at(
                    v,
                    label(format!("`{n}` is not an environment variable name")),
                ));
            }
            s.env_remove.push(n.to_owned());
        }
        origins.set("env_remove", line(list));
    }
    if let Some(m) = k.extra_args_mode {
        s.extra_args_mode = Some(m.value.parse().map_err(|e| Fault::at(m, label(e)))?);
        origins.set("extra_args_mode", line(m));
    }
    Ok(())
}

/// Check `keys`; `label` prefixes a fault's message with the entry's name,
/// `base` anchors relative paths (the config file's folder).
pub(super) fn convert(
    keys: &SettingsKeys<'_>,
    base: &Path,
    label: &dyn Fn(String) -> String,
    origins: &mut Origins,
) -> Result<Settings, Fault> {
    let mut s = Settings::default();
    let non_empty = |key: &str, v: &Spanned<String>| {
        if v.value.trim().is_empty() {
            Err(Fault::at(v, label(format!("`{key}` is empty"))))
        } else {
            Ok(v.value.trim().to_owned())
        }
    };
    if let Some(b) = keys.binary {
        s.binary = Some(PathBuf::from(resolve_binary(
            &non_empty("binary", b)?,
            base,
        )));
        origins.set("binary", line(b));
    }
    if let Some(t) = keys.timeout {
        s.timeout = Some(t.value.0);
        origins.set("timeout", line(t));
    }
    if let Some(t) = keys.idle_timeout {
        s.idle_timeout = Some(t.value.0);
        origins.set("idle_timeout", line(t));
    }
    if let Some(w) = keys.timeout_warn {
        s.timeout_warn = Some(
            crate::settings::parse_timeout_warn(&w.value)
                .map_err(|m| Fault::at(w, label(format!("`timeout_warn`: {m}"))))?,
        );
        origins.set("timeout_warn", line(w));
    }
    if let Some(t) = keys.extend_on_activity {
        s.extend_on_activity = Some(t.value.0).filter(|d| !d.is_zero());
        origins.set("extend_on_activity", line(t));
    }
    if let Some(t) = keys.max_timeout {
        s.max_timeout = Some(t.value.0);
        origins.set("max_timeout", line(t));
    }
    if let Some(r) = keys.max_provider_retries {
        s.max_provider_retries = Some(r.value);
        origins.set("max_provider_retries", line(r));
    }
    if let Some(p) = keys.permission_mode {
        s.permission_mode = Some(
            p.value
                .parse::<PermissionMode>()
                .map_err(|m| Fault::at(p, label(m)))?,
        );
        origins.set("permission_mode", line(p));
    }
    if let Some(v) = keys.system {
        s.system = Some(v.value.clone());
        origins.set("system", line(v));
    }
    if let Some((key, v)) = keys.cwd {
        s.cwd = Some(resolve_path(&non_empty(key, v)?, base));
        origins.set("cwd", line(v));
    }
    if let Some(v) = keys.output_schema {
        s.output_schema = Some(resolve_path(&non_empty("output_schema", v)?, base));
        origins.set("output_schema", line(v));
    }
    if let Some(r) = keys.retry_on {
        s.retry_on = Some(
            retry::convert(r, keys.lenient_retry_names)
                .map_err(|f| Fault::new(f.at, label(f.message)))?,
        );
        origins.set("retry_on", line(r));
    }
    if let Some(e) = keys.env {
        for (k, _) in &e.value.0 {
            if k.value.is_empty() || k.value.contains(['=', '\0']) {
                return Err(Fault::at(
                    k,
                    label(format!("`{}` is not an environment variable name", k.value)),
                ));
            }
        }
        s.env = text_pairs(&e.value);
        origins.set("env", line(e));
    }
    if let Some(w) = keys.workspace {
        s.workspace = Some(
            w.value
                .trim()
                .parse::<WorkspaceMode>()
                .map_err(|m| Fault::at(w, label(m)))?,
        );
        origins.set("workspace", line(w));
    }
    if let Some(x) = keys.extra_args {
        s.extra_args = texts(&x.value);
        origins.set("extra_args", line(x));
    }
    if let Some(k) = &keys.knobs {
        convert_knobs(k, &mut s, label, origins)?;
    }
    Ok(s)
}
