//! Applying the policy to a tool: each rule in turn, the first that
//! refuses named with the value it refused; else the limits the run gets.

use std::path::PathBuf;

use super::Policy;
use crate::glob::glob_match;
use crate::manifest::{Manifest, WORKSPACE_VAR};
use crate::resolved::ResolvedTool;

/// A run's deadline when neither the manifest nor the policy gives one
/// (as the seed's runner).
pub const DEFAULT_RUN_S: u64 = 1800;

/// A run's heartbeat time when the manifest gives none (as the seed's
/// runner).
pub const DEFAULT_HEARTBEAT_S: u64 = 90;

/// The limits a run gets: the manifest's, capped by the policy, a cap
/// standing in for a limit the manifest does not give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct EffectiveLimits {
    /// CPU seconds; `None`: no limit.
    pub cpu_seconds: Option<u64>,
    /// Memory in MiB; `None`: no limit.
    pub memory_mb: Option<u64>,
    /// Output on stdout in MiB; `None`: no limit from the manifest or the
    /// policy (the runner may still apply its own).
    pub max_output_mb: Option<u64>,
    /// The deadline in seconds.
    pub run_s: u64,
    /// The heartbeat time in seconds.
    pub heartbeat_s: u64,
}

/// Why the policy refuses a tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the policy{} refuses the tool `{tool}`: rule `{rule}`: {message}",
    source_text(policy_file)
)]
pub struct PolicyRefusal {
    /// The tool.
    pub tool: String,
    /// The rule (the policy file's key, e.g. `deny_tools`, `caps.memory_mb`).
    pub rule: &'static str,
    /// The value refused (the tool's name, an egress entry, a number).
    pub value: String,
    /// Why, and what to do.
    pub message: String,
    /// The policy file; `None` for the default policy.
    pub policy_file: Option<PathBuf>,
}

fn source_text(policy_file: &Option<PathBuf>) -> String {
    match policy_file {
        Some(p) => format!(" ({})", p.display()),
        None => " (the default policy)".to_owned(),
    }
}

impl Policy {
    /// Whether the tool may run, and with which limits.
    pub fn check(&self, tool: &ResolvedTool) -> Result<EffectiveLimits, PolicyRefusal> {
        self.check_manifest(&tool.manifest)
    }

    /// [`Policy::check`] on a manifest alone.
    pub fn check_manifest(&self, m: &Manifest) -> Result<EffectiveLimits, PolicyRefusal> {
        let refuse = |rule: &'static str, value: &str, message: String| PolicyRefusal {
            tool: m.name.clone(),
            rule,
            value: value.to_owned(),
            message,
            policy_file: self.source.clone(),
        };
        if let Some(p) = self.deny_tools.iter().find(|p| glob_match(p, &m.name)) {
            return Err(refuse(
                "deny_tools",
                &m.name,
                format!("`{}` matches `{p}`", m.name),
            ));
        }
        if !self.allow_tools.is_empty() && !self.allow_tools.iter().any(|p| glob_match(p, &m.name))
        {
            return Err(refuse(
                "allow_tools",
                &m.name,
                format!(
                    "`{}` matches none of {}",
                    m.name,
                    self.allow_tools.join(", ")
                ),
            ));
        }
        for entry in &m.permissions.network.egress_allow {
            if entry == "*" && self.refuse_wildcard_egress {
                return Err(refuse(
                    "refuse_wildcard_egress",
                    entry,
                    "egress to any host (`*`) is refused: list the host:port entries the tool needs".into(),
                ));
            }
            if let Some(allowed) = &self.egress_allow
                && !allowed.iter().any(|p| glob_match(p, entry))
            {
                return Err(refuse(
                    "egress_allow",
                    entry,
                    format!("`{entry}` matches none of {}", allowed.join(", ")),
                ));
            }
        }
        if self.require_limits {
            for (field, value) in [
                ("resources.cpu_seconds", m.resources.cpu_seconds),
                ("resources.memory_mb", m.resources.memory_mb),
            ] {
                if value.is_none() {
                    return Err(refuse(
                        "require_limits",
                        field,
                        format!("the manifest must set {field}"),
                    ));
                }
            }
        }
        let capped = |rule: &'static str, asked: Option<u64>, cap: Option<u64>| match (asked, cap) {
            (Some(a), Some(c)) if a > c => Err(refuse(
                rule,
                &a.to_string(),
                format!("the manifest asks {a}, more than the cap of {c}"),
            )),
            (Some(a), _) => Ok(Some(a)),
            (None, c) => Ok(c),
        };
        let caps = &self.caps;
        let cpu_seconds = capped(
            "caps.cpu_seconds",
            m.resources.cpu_seconds,
            caps.cpu_seconds,
        )?;
        let memory_mb = capped("caps.memory_mb", m.resources.memory_mb, caps.memory_mb)?;
        let max_output_mb = capped(
            "caps.max_output_mb",
            m.resources.max_output_mb,
            caps.max_output_mb,
        )?;
        capped("caps.run_s", m.timeouts.run_s, caps.run_s)?;
        // No deadline asked: the default one, shortened to the cap.
        let run_s = m
            .timeouts
            .run_s
            .unwrap_or_else(|| caps.run_s.map_or(DEFAULT_RUN_S, |c| c.min(DEFAULT_RUN_S)));
        if !self.allow_write_outside_workspace
            && let Some(glob) = m
                .permissions
                .filesystem
                .write
                .iter()
                .find(|g| !g.starts_with(WORKSPACE_VAR))
        {
            return Err(refuse(
                "allow_write_outside_workspace",
                glob,
                format!(
                    "`{glob}` is outside {WORKSPACE_VAR}: the policy allows writes only in the run's workspace"
                ),
            ));
        }
        for name in &m.env.require {
            if let Some(p) = self.forbid_env.iter().find(|p| glob_match(p, name)) {
                return Err(refuse(
                    "forbid_env",
                    name,
                    format!("`{name}` matches `{p}`: a tool may not be given it"),
                ));
            }
        }
        Ok(EffectiveLimits {
            cpu_seconds,
            memory_mb,
            max_output_mb,
            run_s,
            heartbeat_s: m.timeouts.heartbeat_s.unwrap_or(DEFAULT_HEARTBEAT_S),
        })
    }
}
